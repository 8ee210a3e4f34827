#!/usr/bin/env bash
# Installs, from Debian, what make wheel and make test-python need: the
# system Python with venv (and the pip it bootstraps), setuptools and wheel
# to build the wheel offline, PyTorch and NumPy for the tests. Idempotent:
# nothing is installed when everything imports. Run as root (CI does), or
# with sudo.
set -euo pipefail
PY=${PYTHON:-/usr/bin/python3}
check() {
	"$PY" - <<'PY' 2>/dev/null
import ensurepip, venv, setuptools, wheel, pip, torch, numpy
PY
}
if check; then
	echo "install-python-deps: python3-venv, -setuptools, -wheel, -pip, -torch, -numpy already installed"
	exit 0
fi
SUDO=
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends \
	python3 python3-venv python3-pip python3-setuptools python3-wheel python3-torch python3-numpy
if ! check; then
	echo "install-python-deps: $PY still lacks one of ensurepip, venv, setuptools, wheel, pip, torch, numpy" >&2
	exit 1
fi
"$PY" -c 'import torch, setuptools, wheel; print("install-python-deps: torch", torch.__version__, "setuptools", setuptools.__version__, "wheel", wheel.__version__)'
