#!/usr/bin/env bash
# Installs the optional solvers of `mmds bench` from Debian: CBC (coinor-cbc)
# and GLPK's glpsol (glpk-utils). mmds builds, tests and benchmarks without
# them; with them, `mmds bench --cbc --glpk` adds two solvers.
# Usage: scripts/install-solvers.sh   (as root, or with sudo on PATH)
set -euo pipefail

pkgs=(coinor-cbc glpk-utils)
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

# A binary that is installed but cannot start is of no use: run each once.
cbc -quit </dev/null | head -n 3
glpsol --version | head -n 1
