#!/usr/bin/env bash
# The assembly kernels (amd64, AVX2 + FMA) and the portable scalar kernels
# (-tags purego) must train to the same bits: compares the fingerprints
# TestTrainingFingerprint logs in the two builds (Algorithm 1's parameters,
# the labels method's points on a finite model and on the Gaussian one,
# Algorithm 1's points on a finite model).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
fp() { $GO test -count=1 -run '^TestTrainingFingerprint$' -v "$@" ./learn/ | grep -o 'fingerprint .*'; }
a=$(fp)
b=$(fp -tags purego)
echo "default: $a" | tr '\n' ' '; echo
echo "purego:  $b" | tr '\n' ' '; echo
if [ "$a" != "$b" ]; then
	echo "check-kernels: the assembly and portable builds differ" >&2
	exit 1
fi
echo "check-kernels: identical"
