#!/usr/bin/env bash
# Side-by-side: one Algorithm 1 epoch in mmds (learn's BenchmarkEpochGauss /
# BenchmarkEpochBinary, GOMAXPROCS=1) and in PyTorch on CPU (bench/epoch_torch.py,
# one thread), as PAIRS back-to-back runs so both see the same load; prints
# each pair's ratio PyTorch/mmds and the median.
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
if ! "$PY" -c 'import torch' 2>/dev/null; then
	echo "bench-epoch: $PY cannot import torch; run scripts/install-torch.sh" >&2
	exit 2
fi
if ! [[ $PAIRS =~ ^[1-9][0-9]*$ ]]; then
	echo "bench-epoch: pairs $PAIRS: must be a positive integer" >&2
	exit 2
fi
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Compile the benchmark once, so the pairs time only the epochs.
$GO test -c -o "$tmp/learn.test" ./learn/
echo "$(date -u '+%Y-%m-%d %H:%M UTC')  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)  load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "GOEXPERIMENT=$($GO env GOEXPERIMENT) GOAMD64=$($GO env GOAMD64)  torch $("$PY" -c 'import torch; print(torch.__version__)')"
ratios=()
for p in $(seq "$PAIRS"); do
	ns=$(GOMAXPROCS=1 "$tmp/learn.test" -test.run '^$' -test.bench "^$BENCH\$" -test.benchtime 2s |
		awk -v b="$BENCH" '$1 ~ "^"b { print $3 }')
	go_ms=$(awk -v ns="$ns" 'BEGIN { printf "%.3f", ns / 1e6 }')
	torch_ms=$("$PY" bench/epoch_torch.py --model "$MODEL" --epochs 10 | awk '{ print $4 }')
	ratio=$(awk -v a="$torch_ms" -v b="$go_ms" 'BEGIN { printf "%.1f", a / b }')
	ratios+=("$ratio")
	printf 'pair %d: mmds %8.3f ms/epoch   PyTorch %8.3f ms/epoch   ratio %5.1fx\n' "$p" "$go_ms" "$torch_ms" "$ratio"
done
printf '%s\n' "${ratios[@]}" | sort -g | awk '{ r[NR] = $1 } END { m = (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2; printf "median ratio (PyTorch / mmds, %s epoch): %.1fx over %d pairs\n", "'"$MODEL"'", m, NR }'
