#!/usr/bin/env bash
# Installs the optional solvers of `mmds bench` from Debian: CBC (coinor-cbc),
# GLPK's glpsol (glpk-utils), SYMPHONY (coinor-symphony) and lp_solve
# (lp-solve). mmds builds, tests and benchmarks without them; with them,
# `mmds bench --all` (or --cbc --glpk --symphony --lp-solve) adds them.
# Usage: scripts/install-solvers.sh   (as root, or with sudo on PATH)
set -euo pipefail

pkgs=(coinor-cbc glpk-utils coinor-symphony lp-solve)
sudo=()
if [ "$(id -u)" -ne 0 ]; then
	if ! command -v sudo >/dev/null; then
		echo "install-solvers: need root (or sudo) to install ${pkgs[*]}" >&2
		exit 1
	fi
	sudo=(sudo)
fi
if ! command -v apt-get >/dev/null; then
	echo "install-solvers: apt-get not found: install ${pkgs[*]} with your package manager" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${pkgs[@]}"

# A binary that is installed but cannot start is of no use: run each once
# (mmds bench also probes each by solving a 2-column MIP before using it).
cbc -quit </dev/null | head -n 3
glpsol --version | head -n 1
tiny=$(mktemp --suffix=.mps)
trap 'rm -f "$tiny"' EXIT
printf 'NAME tiny FREE\nROWS\n N obj\n L r0\nCOLUMNS\n x0 obj -1\n x0 r0 1\nRHS\n rhs r0 1\nBOUNDS\n UP bnd x0 2\nENDATA\n' >"$tiny"
symphony -F "$tiny" | grep -E 'Version|Solution Cost'
lp_solve -fmps "$tiny" -S1
