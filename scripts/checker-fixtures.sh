#!/usr/bin/env bash
# Writes checker/testdata: certificates and witness files written by mmds
# (bin/mmds, make build) on the committed examples, which the checker's own
# tests check and mutate (checker/checker_test.go). Run from the repository
# root after a change of the witness format; review the diff.
set -euo pipefail
cd "$(dirname "$0")/.."
M=bin/mmds
T=checker/testdata
rm -rf "$T" && mkdir -p "$T/binary" "$T/finite"
F=privatizer/testdata

# Channels on the paper's binary model: a pass, a fail, a CSV.
cp examples/binary-paper.json "$T/binary/model.json"
cp "$F/channel-pass.json" "$F/channel-fail.json" "$F/channel-binary.csv" "$T/binary/"
printf '0.15,channel-pass.json\n0.15,channel-fail.json\n0.1,channel-binary.csv\n' > "$T/binary/points.csv"
$M certify --quiet --model "$T/binary/model.json" --points "$T/binary/points.csv" --certificate "$T/binary/cert.json" > /dev/null || true

# Channels on the ternary finite model: a 4-output channel and the
# optimum's mechanism at D = 0.1 as a channel.
cp examples/finite-ternary.json "$T/finite/model.json"
cp "$F/channel-finite.json" "$T/finite/"
$M finite --config "$T/finite/model.json" --d 0.1 --format json \
	| python3 -c 'import json, sys; print(json.dumps({"channel": json.load(sys.stdin)["points"][0]["mechanism"]}))' > "$T/finite/channel-opt.json"
printf '0.12,channel-finite.json\n0.1,channel-opt.json\n' > "$T/finite/points.csv"
$M certify --quiet --model "$T/finite/model.json" --points "$T/finite/points.csv" --certificate "$T/finite/cert.json" > /dev/null || true

# Witness files: Proposition 2 with the global optimum beside it; the ray
# LP; column generation on a 6-value model.
$M binary --quiet --global --sweep 0.0025:0.2:4 --witness "$T/witness-binary.json" > /dev/null
$M finite --quiet --config examples/finite-ternary.json --sweep 0:0.2:4 --witness "$T/witness-finite.json" > /dev/null
$M finite --quiet --config examples/finite-random-n6-k2.json --sweep 0.1:0.15:2 --witness "$T/witness-colgen.json" > /dev/null
ls -l "$T" "$T"/*/
