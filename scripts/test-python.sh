#!/usr/bin/env bash
# make test-python: installs the wheel in dist/ into a fresh virtual
# environment that sees Debian's packages (--system-site-packages: torch),
# from no index, and runs the package's tests (python/tests, unittest) and
# docs/python.md's example from a folder outside the source tree, so that
# what is tested is the installed package and the binary it carries.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
PY=${PYTHON:-/usr/bin/python3}
shopt -s nullglob
wheels=(dist/mmds-*.whl)
if [ ${#wheels[@]} -ne 1 ]; then
	echo "test-python: want one dist/mmds-*.whl, found ${#wheels[@]}: run make wheel" >&2
	exit 1
fi
if ! "$PY" -c 'import ensurepip, venv, torch' 2>/dev/null; then
	echo "test-python: $PY lacks venv/ensurepip or torch: run scripts/install-python-deps.sh (as root)" >&2
	exit 1
fi
tmp=$(mktemp -d -t mmds-test-python.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$PY" -m venv --system-site-packages "$tmp/venv"
"$tmp/venv/bin/python" -m pip install --quiet --no-index --no-deps --disable-pip-version-check "$REPO/${wheels[0]}"
cd "$tmp"
# The test folder is the top level: python/ (the source package) is not on sys.path.
env -u MMDS_BINARY -u PYTHONPATH MMDS_REPO="$REPO" "$tmp/venv/bin/python" -m unittest discover \
	-s "$REPO/python/tests" -t "$REPO/python/tests" ${TESTFLAGS:--v}
