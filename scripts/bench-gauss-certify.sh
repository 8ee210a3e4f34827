#!/usr/bin/env bash
# Side by side, in one run on one machine (CPU seconds, user + system): the
# Gaussian certificate of the quick preset's D = 5.76 network against an
# independent numpy computation of the same three losses
# (scripts/gauss-reference.py: exact face integration, 2 Gauss nodes per f
# panel, 32 Hermite nodes over M), PAIRS back-to-back pairs; then the quick
# Gaussian verify, mmds plot after it (cache on and off), verify --check of
# paper/gauss and a 2→64→64→1 ReLU network. With OLD=path/to/older/mmds the
# same commands run with that binary too, for before/after pairs.
#
#   scripts/bench-gauss-certify.sh [pairs]        (make bench-gauss)
set -euo pipefail
PAIRS=${1:-3}
PY=${PYTHON:-/usr/bin/python3}
GO=${GO:-go}
if ! [[ $PAIRS =~ ^[1-9][0-9]*$ ]]; then
	echo "bench-gauss-certify: pairs $PAIRS: must be a positive integer" >&2
	exit 2
fi
if ! "$PY" -c 'import numpy' 2>/dev/null; then
	echo "bench-gauss-certify: $PY cannot import numpy" >&2
	exit 2
fi
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$GO build -o "$tmp/mmds" ./cmd/mmds
export MMDS_CACHE_DIR="$tmp/cache"
# cpu CMD…: runs CMD (its output discarded) and prints its CPU seconds and
# exit status.
cpu() {
	"$PY" - "$@" <<'PY'
import resource, subprocess, sys
p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.2f %d" % (r.ru_utime + r.ru_stime, p.returncode))
PY
}
echo "$(date -u '+%Y-%m-%d %H:%M UTC')  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores  load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$tmp/mmds" train gauss --preset quick --out "$tmp/quick" >/dev/null
"$tmp/mmds" export "$tmp/quick" --d 5.76 -o "$tmp/q576.json"
bins=("$tmp/mmds")
[[ -n ${OLD:-} ]] && bins+=("$OLD")
name() { [[ $1 == "$tmp/mmds" ]] && echo new || echo old; }

echo "== certify, quick preset D = 5.76 (3 losses): numpy reference, mmds certify, and their ratio"
for p in $(seq "$PAIRS"); do
	ref=$("$PY" scripts/gauss-reference.py --model "$tmp/quick/model.json" --privatizer "$tmp/q576.json" --json |
		"$PY" -c 'import json, sys; d = json.load(sys.stdin); print("%.2f" % (d["cpu_faces_s"] + d["cpu_integration_s"]))')
	line="pair $p: numpy $ref s"
	for b in "${bins[@]}"; do
		read -r c _ < <(cpu "$b" certify --model "$tmp/quick/model.json" --privatizer "$tmp/q576.json" --d 5.76 --format json)
		line+="   mmds ($(name "$b")) $c s = $(awk -v a="$c" -v r="$ref" 'BEGIN { printf "%.2f", a / r }')× numpy"
	done
	echo "$line"
done
cert=$($GO test ./bayes -run '^$' -bench 'CertifyGauss/D=5.76' -benchtime 3x 2>/dev/null | awk '/cpu-s\/op/ { for (i = 1; i < NF; i++) if ($(i+1) == "cpu-s/op") print $i }')
echo "the certificate alone (bayes.BenchmarkCertifyGauss/D=5.76, this tree): $cert s"

echo "== verify and plot, quick Gaussian run (4 thresholds)"
for b in "${bins[@]}"; do
	rm -rf "$MMDS_CACHE_DIR"
	read -r v _ < <(cpu "$b" verify --quiet --report-only "$tmp/quick")
	read -r pl _ < <(cpu "$b" plot "$tmp/quick")
	read -r po _ < <(MMDS_CACHE_DIR=off cpu "$b" plot "$tmp/quick")
	echo "$(name "$b"): verify $v s; plot after it $pl s (target ≤ 0.2 × verify + 0.5 s = $(awk -v v="$v" 'BEGIN { printf "%.2f", 0.2 * v + 0.5 }') s); plot with the cache off $po s"
done

echo "== verify --check paper/gauss (30 thresholds)"
for b in "${bins[@]}"; do
	read -r c st < <(cpu "$b" verify --quiet --report-only --check paper/gauss/certificate.json paper/gauss)
	echo "$(name "$b"): $c s (exit $st)"
done

echo "== a 2→64→64→1 ReLU network (PyTorch's initialization, seed 1), D = 5.76"
"$PY" - "$tmp/net64.json" <<'PY'
import json, sys
import numpy as np
rng = np.random.default_rng(1)
def layer(i, o, act):
    b = 1 / np.sqrt(i)
    return {"weight": rng.uniform(-b, b, (o, i)).tolist(), "bias": rng.uniform(-b, b, o).tolist(), "activation": act}
net = {"inputs": ["x", "r"], "noise": "normal(0,1)", "precision": "float64",
       "layers": [layer(2, 64, "relu"), layer(64, 64, "relu"), layer(64, 1, "identity")]}
json.dump(net, open(sys.argv[1], "w"))
PY
for b in "${bins[@]}"; do
	read -r c st < <(cpu "$b" certify --model "$tmp/quick/model.json" --privatizer "$tmp/net64.json" --d 5.76)
	echo "$(name "$b"): $c s (exit $st: 0/1 answered, 3 refused)"
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
