#!/bin/sh
# Regenerates the conformance reports and expected-pass lists by running the ONNX backend
# test suites on the default device, under the validation layer, each case isolated in a
# worker process:
#   Debian's libonnx-testdata (node, pytorch-converted, pytorch-operator, simple; ONNX 1.12)
#     -> docs/CONFORMANCE.md, tests/conformance/expected_pass.txt
#   ONNX 1.22's node tests (tests/conformance/onnx-1.22, extracted by the build into BUILD_DIR)
#     -> docs/CONFORMANCE-ONNX-1.22.md, tests/conformance/onnx-1.22/expected_pass.txt
# CI runs the same commands (ctest -L conformance) and fails if a listed data set stops
# passing, if any case crashes, or if a report it produces differs from the committed one.
#
#   scripts/conformance.sh [BUILD_DIR]      (default: build)
set -eu
build=${1:-build}
data=/usr/share/libonnx-testdata/data
[ -d "$data/node" ] || { echo "conformance: $data not found (apt install libonnx-testdata)" >&2; exit 1; }
node122="$build/onnx-1.22/data"
[ -d "$node122/node" ] || { echo "conformance: $node122 not found (configure the build: cmake -S . -B $build)" >&2; exit 1; }
VKINFER_VALIDATE=1 "$build/vkinfer" check "$data" --isolate \
    --scope tests/conformance/scope.txt \
    --markdown docs/CONFORMANCE.md --title "Conformance" \
    --write-expected tests/conformance/expected_pass.txt | tail -n 1
VKINFER_VALIDATE=1 "$build/vkinfer" check "$node122" --isolate \
    --scope tests/conformance/scope.txt \
    --markdown docs/CONFORMANCE-ONNX-1.22.md --title "Conformance: ONNX 1.22 node tests" \
    --write-expected tests/conformance/onnx-1.22/expected_pass.txt | tail -n 1
