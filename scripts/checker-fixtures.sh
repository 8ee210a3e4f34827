#!/usr/bin/env bash
# Writes checker/testdata: certificates and witness files written by mmds
# (bin/mmds, make build) on the committed examples, which the checker's own
# tests check and mutate (checker/checker_test.go). Run from the repository
# root after a change of the witness format; review the diff.
set -euo pipefail
cd "$(dirname "$0")/.."
M=bin/mmds
T=checker/testdata
rm -rf "$T"/binary "$T"/finite "$T"/smooth "$T"/onehot "$T"/ops "$T"/bn "$T"/bnops "$T"/categorical "$T"/run-* "$T"/*.json # not the fuzz corpus
mkdir -p "$T/binary" "$T/finite" "$T/smooth" "$T/onehot" "$T/ops" "$T/bn" "$T/bnops" "$T/categorical" "$T/run-labels" "$T/run-paper"
F=privatizer/testdata

# Channels and piecewise-linear networks (JSON and ONNX) on the paper's
# binary model: passes, fails, a CSV.
cp examples/binary-paper.json "$T/binary/model.json"
cp "$F/channel-pass.json" "$F/channel-fail.json" "$F/channel-binary.csv" "$F/net-pass.onnx" "$F/clamp-binary.json" "$F/relu2-binary.onnx" "$T/binary/"
printf '0.15,channel-pass.json\n0.15,channel-fail.json\n0.1,channel-binary.csv\n0.15,net-pass.onnx\n0.15,clamp-binary.json\n0.15,relu2-binary.onnx\n' > "$T/binary/points.csv"
$M certify --quiet --model "$T/binary/model.json" --points "$T/binary/points.csv" --certificate "$T/binary/cert.json" > /dev/null || true
# The same against --reference best: the optimum over all privatizers.
$M certify --quiet --reference best --model "$T/binary/model.json" --points "$T/binary/points.csv" --certificate "$T/binary/cert-best.json" > /dev/null || true

# Networks with sigmoid layers: a PyTorch float32 export (ONNX) and a
# ReLU → sigmoid network (JSON).
cp examples/binary-paper.json "$T/smooth/model.json"
cp "$F/torch32-fresh0.onnx" "$F/relu-sigmoid-binary.json" "$T/smooth/"
printf '0.15,torch32-fresh0.onnx\n0.15,relu-sigmoid-binary.json\n' > "$T/smooth/points.csv"
$M certify --quiet --model "$T/smooth/model.json" --points "$T/smooth/points.csv" --certificate "$T/smooth/cert.json" > /dev/null || true

# The ONNX operators mmds folds and lowers: LeakyRelu, ReLU6 and Hardtanh
# (Clip), a Clip after a sigmoid, Reshape, Flatten (PyTorch exports), and
# Gemm with alpha and beta, Sub, Dropout, Squeeze, Unsqueeze in float32
# and float64, and in float64 with an Add to a Gemm's C whose float64 sum
# is not exact (scripts/checker-onnx-ops.py).
cp examples/binary-paper.json "$T/ops/model.json"
cp "$F/leaky-relu6-binary.onnx" "$F/sigmoid-clamp-binary.onnx" "$T/ops/"
python3 scripts/checker-onnx-ops.py float "$T/ops/ops32.onnx"
python3 scripts/checker-onnx-ops.py double "$T/ops/ops64.onnx"
python3 scripts/checker-onnx-ops.py double-inexact "$T/ops/ops64-inexact.onnx"
printf '0.15,leaky-relu6-binary.onnx\n0.15,sigmoid-clamp-binary.onnx\n0.15,ops32.onnx\n0.15,ops64.onnx\n0.15,ops64-inexact.onnx\n' > "$T/ops/points.csv"
$M certify --quiet --model "$T/ops/model.json" --points "$T/ops/points.csv" --certificate "$T/ops/cert.json" > /dev/null || true

# Batch normalization: PyTorch's exports (scripts/make-export-fixtures.py)
# of Proposition 2's optimum as Linear → BatchNorm1d → Hardtanh(0, 1) (a
# pass), and of Linear → BatchNorm1d → ReLU → Linear → torch.clamp in
# float32 and float64.
cp examples/binary-paper.json "$T/bn/model.json"
cp "$F/bn-pass-binary.onnx" "$F/bn-clamp-binary.onnx" "$F/bn-clamp-binary-f64.onnx" "$T/bn/"
printf '0.15,bn-pass-binary.onnx\n0.15,bn-clamp-binary.onnx\n0.15,bn-clamp-binary-f64.onnx\n' > "$T/bn/points.csv"
$M certify --quiet --model "$T/bn/model.json" --points "$T/bn/points.csv" --certificate "$T/bn/cert.json" > /dev/null || true

# BatchNormalization where mmds folds it (after a Gemm with alpha, before
# a LeakyRelu and a Clip, after a Clip's last stage, before an Add), then
# a sigmoid, in float32 and float64 (scripts/checker-onnx-ops.py).
cp examples/binary-paper.json "$T/bnops/model.json"
python3 scripts/checker-onnx-ops.py bn-float "$T/bnops/bn32.onnx"
python3 scripts/checker-onnx-ops.py bn-double "$T/bnops/bn64.onnx"
printf '0.15,bn32.onnx\n0.15,bn64.onnx\n' > "$T/bnops/points.csv"
$M certify --quiet --model "$T/bnops/model.json" --points "$T/bnops/points.csv" --certificate "$T/bnops/cert.json" > /dev/null || true

# A network with a one-hot x on the ternary finite model, float64.
cp examples/finite-ternary.json "$T/onehot/model.json"
python3 -c '
import json, random
random.seed(3)
layers = [{"weight": [[random.gauss(0, 1) for _ in range(4)] for _ in range(5)], "bias": [random.gauss(0, 1) for _ in range(5)], "activation": "relu"},
          {"weight": [[random.gauss(0, 1) for _ in range(5)]], "bias": [0.1], "activation": "sigmoid"}]
print(json.dumps({"inputs": ["x=0", "x=1", "x=2", "r"], "precision": "float64", "layers": layers}))' > "$T/onehot/onehot.json"
$M certify --quiet --model "$T/onehot/model.json" --privatizer "$T/onehot/onehot.json" --d 0.15 --certificate "$T/onehot/cert.json" > /dev/null || true

# Categorical networks (a softmax over labels) on the ternary finite
# model: PyTorch's float32 export (ONNX: ReLU layers, a softmax over 4
# labels) and a float32 ReLU → tanh → softmax network (JSON), at
# --tol-expect 1e-4 (verify's precision for certificates): fewer cells.
cp examples/finite-ternary.json "$T/categorical/model.json"
cp "$F/categorical-finite.onnx" "$T/categorical/"
python3 -c '
import json, random
random.seed(5)
layers = [{"weight": [[random.gauss(0, 1) for _ in range(4)] for _ in range(6)], "bias": [random.gauss(0, 1) for _ in range(6)], "activation": "relu"},
          {"weight": [[random.gauss(0, 0.5) for _ in range(6)] for _ in range(5)], "bias": [random.gauss(0, 0.5) for _ in range(5)], "activation": "tanh"},
          {"weight": [[random.gauss(0, 1) for _ in range(5)] for _ in range(3)], "bias": [0.1, -0.2, 0.05], "activation": "softmax"}]
print(json.dumps({"inputs": ["x=0", "x=1", "x=2", "r"], "layers": layers}))' > "$T/categorical/tanh-softmax.json"
printf '0.15,categorical-finite.onnx\n0.15,tanh-softmax.json\n' > "$T/categorical/points.csv"
$M certify --quiet --tol-expect 1e-4 --model "$T/categorical/model.json" --points "$T/categorical/points.csv" --certificate "$T/categorical/cert.json" > /dev/null || true

# Channels on the ternary finite model: a 4-output channel and the
# optimum's mechanism at D = 0.1 as a channel.
cp examples/finite-ternary.json "$T/finite/model.json"
cp "$F/channel-finite.json" "$T/finite/"
$M finite --config "$T/finite/model.json" --d 0.1 --format json \
	| python3 -c 'import json, sys; print(json.dumps({"channel": json.load(sys.stdin)["points"][0]["mechanism"]}))' > "$T/finite/channel-opt.json"
printf '0.12,channel-finite.json\n0.1,channel-opt.json\n' > "$T/finite/points.csv"
$M certify --quiet --model "$T/finite/model.json" --points "$T/finite/points.csv" --certificate "$T/finite/cert.json" > /dev/null || true

# Certificates of mmds verify: the labels method's channel on the binary
# model, and three thresholds of the paper's binary run (networks: a pass,
# a fail, one not finalized; the other records removed, so those
# thresholds read as not trained — each record is bound on its own).
cp examples/labels/binary/model.json examples/labels/binary/results.json "$T/run-labels/"
echo results > "$T/run-labels/.mmds-kind"
$M verify --quiet --report-only "$T/run-labels" --certificate "$T/run-labels/cert.json" > /dev/null
cp paper/binary/model.json paper/binary/.mmds-kind "$T/run-paper/"
python3 -c '
import json, sys
r = json.load(open("paper/binary/results.json"))
r["points"] = [p for p in r["points"] if p["d_index"] in (1, 18, 29)]
print(json.dumps(r))' > "$T/run-paper/results.json"
$M verify --quiet --report-only "$T/run-paper" --certificate "$T/run-paper/cert.json" > /dev/null

# Witness files: Proposition 2 with the global optimum beside it; the ray
# LP; column generation on a 6-value model.
$M binary --quiet --global --sweep 0.0025:0.2:4 --witness "$T/witness-binary.json" > /dev/null
$M finite --quiet --config examples/finite-ternary.json --sweep 0:0.2:4 --witness "$T/witness-finite.json" > /dev/null
$M finite --quiet --config examples/finite-random-n6-k2.json --sweep 0.1:0.15:2 --witness "$T/witness-colgen.json" > /dev/null
ls -l "$T" "$T"/*/
