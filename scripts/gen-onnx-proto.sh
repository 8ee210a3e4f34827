#!/bin/sh
# Regenerates network/internal/onnxpb/onnx.pb.go, the Go types of the ONNX
# protobuf schema (google.golang.org/protobuf), from the committed copy of
# onnx.proto (taken from Debian's python3-onnx 1.12: ONNX IR version 8,
# Apache-2.0). Run once when the schema changes; the generated file is
# committed, so building mmds needs neither protoc nor this script.
#
#   scripts/gen-onnx-proto.sh            # regenerate from the committed copy
#   scripts/gen-onnx-proto.sh --refresh  # first copy onnx.proto from python3-onnx
set -eu
cd "$(dirname "$0")/.."
dir=network/internal/onnxpb
pgg=v1.36.12 # the google.golang.org/protobuf version in go.mod
if ! command -v protoc >/dev/null 2>&1; then
	apt-get update && apt-get install -y --no-install-recommends protobuf-compiler
fi
if [ "${1:-}" = "--refresh" ]; then
	[ -f /usr/lib/python3/dist-packages/onnx/onnx.proto ] || scripts/install-torch.sh
	cp /usr/lib/python3/dist-packages/onnx/onnx.proto "$dir/onnx.proto"
fi
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
GOBIN="$bin" go install "google.golang.org/protobuf/cmd/protoc-gen-go@$pgg"
PATH="$bin:$PATH" protoc -I "$dir" --go_out="$dir" --go_opt=paths=source_relative \
	--go_opt=Monnx.proto=github.com/mmds-project/mmds/network/internal/onnxpb \
	"$dir/onnx.proto"
gofmt -l "$dir"
