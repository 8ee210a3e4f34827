#!/usr/bin/env bash
# Installs Debian's PyTorch (python3-torch) for the side-by-side epoch
# benchmark (bench/epoch_torch.py, make bench-epoch). Only the benchmark uses
# it; no test needs Python.
set -euo pipefail
PY=${PYTHON:-/usr/bin/python3}
if "$PY" -c 'import torch' 2>/dev/null; then
	echo "torch $("$PY" -c 'import torch; print(torch.__version__)') already installed for $PY"
	exit 0
fi
SUDO=
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
$SUDO apt-get update
$SUDO apt-get install -y python3-torch
"$PY" -c 'import torch; print("torch", torch.__version__)'
