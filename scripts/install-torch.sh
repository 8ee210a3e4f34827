#!/usr/bin/env bash
# Installs Debian's PyTorch and ONNX for the system Python: the side-by-side
# epoch benchmark (scripts/epoch_torch.py, make bench-epoch) and the fixture
# generator (scripts/make-certify-fixtures.py) use them. Building and testing
# mmds never does.
set -euo pipefail
PY=${PYTHON:-/usr/bin/python3}
if "$PY" -c 'import torch, onnx' 2>/dev/null; then
	"$PY" -c 'import torch, onnx; print("torch", torch.__version__, "onnx", onnx.__version__, "already installed")'
	exit 0
fi
SUDO=
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends python3 python3-torch python3-onnx python3-numpy
"$PY" -c 'import torch, onnx; print("torch", torch.__version__, "onnx", onnx.__version__)'
