#!/bin/bash
# One GPU call for the folds of 0f415cc and after (a float16 plan's output Cast taken by
# conv2d_cmd; a DepthToSpace stored by a conv with a residual, the shipped upscaler's head):
# the new op tests and `check` on the device, then ESPCN at 960x540 and the upscaler at 1920x1080, base (A)
# against new (B), A B B A, GPU medians of 50, and profiles. Arguments: the two bundles, each a
# .gpu-bundle packed by `scripts/gpu-bundle.sh build build/tests/op_tests` and
# `tar cJf X.tar.xz --exclude=.gpu-bundle/layers .gpu-bundle` (base: a build of 1a8ee8c, or of
# anything before 0f415cc; new: with op_tests beside it). Needs .gl/ from
# ../shared/tools/gpu-prep.sh; run with the device tool, carry [".gl", ".gpu-run"] when the
# bundles lie in .gpu-run/. ROUNDS (default 2) A B B A rounds; about 4 minutes with 2.
# Log: $OUT/log.txt.
set -u
[ $# -eq 2 ] || { echo "usage: $0 BASE.tar.xz NEW.tar.xz" >&2; exit 2; }
new_tar=$2
. bench/variants/gpu_probe_setup.sh "$1"
mkdir -p /tmp/new && tar xJf "$new_tar" -C /tmp/new
N=/tmp/new/.gpu-bundle
el "op tests of the new build on the device"
LD_LIBRARY_PATH=$N $N/op_tests --gtest_filter='DirectConvRuns.*:CastFolding.*:DirectConvSelection.*:CoopmatDirectConv*' 2>&1 |
    grep -E "FAILED|PASSED|Failure|mismatch" | head -20
el "checks (both precisions, both sync modes)"
for P in fp32 fp16; do for S in minimal conservative; do for m in espcn_x2 upscaler_x2; do
    echo "$P $S $m: $(LD_LIBRARY_PATH=$N $N/vkinfer --precision $P --sync $S check data/$m 2>&1 | tail -2 | tr '\n' ' ')"
done; done; done
gpu() {  # bundle, precision, model, shape: the GPU median of 50 and its p90
    LD_LIBRARY_PATH=$1 $1/vkinfer --precision $2 bench $3 --shape $4 --iters 50 2>&1 | awk '/GPU ms/ {print $4, "p90", $8}'
}
el "A B B A (A = base, B = new), GPU ms median of 50"
for round in $(seq ${ROUNDS:-2}); do
    for m in "data/espcn_x2/model.onnx input=1x3x540x960" "data/upscaler_x2/model.onnx input=1x3x1080x1920"; do
        set -- $m
        for P in fp16 fp32; do
            [ "$P" = fp32 ] && [ "$1" = data/upscaler_x2/model.onnx ] && continue
            echo "round $round $(basename $(dirname $1)) $P: A $(gpu $B $P $1 $2) | B $(gpu $N $P $1 $2) |" \
                 "B $(gpu $N $P $1 $2) | A $(gpu $B $P $1 $2)"
        done
    done
done
el "profiles, fp16: new ESPCN, new upscaler, base upscaler"
LD_LIBRARY_PATH=$N $N/vkinfer --precision fp16 bench data/espcn_x2/model.onnx --shape input=1x3x540x960 --iters 50 \
    --profile --top 8 2>&1 | tail -12
for bundle in $N $B; do
    LD_LIBRARY_PATH=$bundle $bundle/vkinfer --precision fp16 bench data/upscaler_x2/model.onnx \
        --shape input=1x3x1080x1920 --iters 50 --profile --top 12 2>&1 | tail -16
done
el end
