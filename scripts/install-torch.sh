#!/bin/sh
# Installs what scripts/make-certify-fixtures.py needs: Debian's PyTorch and
# ONNX for the system Python (/usr/bin/python3). Only fixture generation uses
# them; building and testing mmds never does.
set -eu
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
else
	SUDO=
fi
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends python3 python3-torch python3-onnx python3-numpy
/usr/bin/python3 -c 'import torch, onnx; print("torch", torch.__version__, "onnx", onnx.__version__)'
