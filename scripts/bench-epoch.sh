#!/usr/bin/env bash
# Side-by-side: one Algorithm 1 epoch in mmds (learn's BenchmarkEpochGauss /
# BenchmarkEpochBinary, GOMAXPROCS=1) and in PyTorch on CPU (scripts/epoch_torch.py,
# one thread), as PAIRS back-to-back runs so both see the same load. Prints
# each pair's wall-time and CPU-time ratios PyTorch/mmds and their medians
# (CPU time is the steadier figure on a shared host).
#
#   scripts/bench-epoch.sh [gauss|binary] [pairs]
set -euo pipefail
MODEL=${1:-gauss}
PAIRS=${2:-3}
PY=${PYTHON:-/usr/bin/python3}
GO=${GO:-go}
case $MODEL in
gauss) BENCH=BenchmarkEpochGauss ;;
binary) BENCH=BenchmarkEpochBinary ;;
*) echo "bench-epoch: model $MODEL: must be gauss or binary" >&2; exit 2 ;;
esac
if ! [[ $PAIRS =~ ^[1-9][0-9]*$ ]]; then
	echo "bench-epoch: pairs $PAIRS: must be a positive integer" >&2
	exit 2
fi
if ! "$PY" -c 'import torch' 2>/dev/null; then
	echo "bench-epoch: $PY cannot import torch; run scripts/install-torch.sh" >&2
	exit 2
fi
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Compile the benchmark once, so the pairs time only the epochs.
$GO test -c -o "$tmp/learn.test" ./learn/
echo "$(date -u '+%Y-%m-%d %H:%M UTC')  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)  load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "GOAMD64=$($GO env GOAMD64)  torch $("$PY" -c 'import torch; print(torch.__version__)')"
: >"$tmp/ratios"
for p in $(seq "$PAIRS"); do
	read -r go_ms go_cpu < <(GOMAXPROCS=1 "$tmp/learn.test" -test.run '^$' -test.bench "^$BENCH\$" -test.benchtime 2s |
		awk -v b="$BENCH" '$1 ~ "^"b { for (i = 2; i < NF; i++) { if ($(i+1) == "ns/op") w = $i; if ($(i+1) == "cpu-ns/op") c = $i } printf "%.3f %.3f\n", w / 1e6, c / 1e6 }')
	read -r torch_ms torch_cpu < <("$PY" scripts/epoch_torch.py --model "$MODEL" --epochs 10 | awk '{ print $4, $6 }')
	awk -v p="$p" -v a="$go_ms" -v b="$torch_ms" -v c="$go_cpu" -v d="$torch_cpu" 'BEGIN {
		printf "pair %d: mmds %7.3f ms wall %7.3f ms CPU   PyTorch %8.3f ms wall %8.3f ms CPU   ratio %5.1fx wall %5.1fx CPU\n", p, a, c, b, d, b / a, d / c
		printf "%f %f\n", b / a, d / c >> "'"$tmp/ratios"'"
	}'
done
med() { sort -g | awk '{ r[NR] = $1 } END { print (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2 }'; }
printf 'median ratio (PyTorch / mmds, %s epoch, %d pairs): %.1fx wall, %.1fx CPU\n' "$MODEL" "$PAIRS" \
	"$(cut -d' ' -f1 "$tmp/ratios" | med)" "$(cut -d' ' -f2 "$tmp/ratios" | med)"
