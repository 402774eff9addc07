#!/bin/sh
# Regenerates docs/CONFORMANCE.md and tests/conformance/expected_pass.txt by running the ONNX
# backend test suite of Debian's libonnx-testdata (node, pytorch-converted, pytorch-operator,
# simple) on the default device, under the validation layer, each case isolated in a worker
# process. CI runs the same command (ctest -R conformance) and fails if a listed data set
# stops passing, if any case crashes, or if the report it produces differs from the
# committed one.
#
#   scripts/conformance.sh [BUILD_DIR]      (default: build)
set -eu
build=${1:-build}
data=/usr/share/libonnx-testdata/data
[ -d "$data/node" ] || { echo "conformance: $data not found (apt install libonnx-testdata)" >&2; exit 1; }
VKINFER_VALIDATE=1 "$build/vkinfer" check "$data" --isolate \
    --scope tests/conformance/scope.txt \
    --markdown docs/CONFORMANCE.md \
    --write-expected tests/conformance/expected_pass.txt | tail -n 1
