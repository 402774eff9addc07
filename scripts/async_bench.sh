#!/bin/sh
# Issue 22's figures on the GPU machine (docs/BENCHMARKS.md): inference on an asynchronous
# compute queue against the serial frame, and the handoff of every integration pattern, in fp32
# and fp16; then the async pattern checked frame by frame where the device has a compute queue
# family (under the validation layer when the bundle carries it). Prints each command before
# its output. About two minutes on the H200.
#
# Run from the checkout's root on the GPU machine, with a bundle made on the build machine by
# scripts/gpu-bundle.sh (it packs vkinfer, vkinfer_patterns, vkinfer_demo and the validation
# layer):
#
#   sh scripts/async_bench.sh [BUNDLE]        (default .gpu-bundle)
#
# The models are the checkout's: data/espcn_x2 (the issue's ESPCN) and data/upscaler_x2 (the
# demo's default). ASYNC_BENCH_SIZE, ASYNC_BENCH_FRAMES and ASYNC_BENCH_COSTS shrink the runs
# (e.g. 32x24, 3 and 0,4 to try the script on lavapipe); ASYNC_BENCH_OUT names the folder of
# the JSON files (default async-bench).
set -u
bundle=${1:-.gpu-bundle}
export LD_LIBRARY_PATH="$bundle${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
espcn=data/espcn_x2/model.onnx
upscaler=data/upscaler_x2/model.onnx
out=${ASYNC_BENCH_OUT:-async-bench}
size=${ASYNC_BENCH_SIZE:-960x540}
frames=${ASYNC_BENCH_FRAMES:-100}
costs=${ASYNC_BENCH_COSTS:-0,8,32,128}
sweepFrames=$(( frames / 2 > 3 ? frames / 2 : 3 ))
mkdir -p "$out"
start=$(date +%s)

. "$(dirname "$0")/gpu_run_lib.sh"  # run CMD...: print, run, count failures

run "$bundle/vkinfer" devices

# 1. The handoff of every pattern with the issue's ESPCN at 960x540, fp32 and fp16: the shared
#    pattern in both submission orders, the async pattern in both orders and sharing modes.
run "$bundle/vkinfer_patterns" "$espcn" --size "$size" --frames "$frames" --precision fp32,fp16 \
    --order pipelined,serial --sharing exclusive,concurrent --json "$out/handoff.json"

# 2. Async against serial (interleaved: the same frame on one queue) while the render grows, to
#    find the scene cost at which the render costs about as much as the inference.
for model in "$espcn" "$upscaler"; do
    name=$(basename "$(dirname "$model")")
    run "$bundle/vkinfer_patterns" "$model" --size "$size" --frames "$sweepFrames" --precision fp32,fp16 \
        --pattern interleaved,async --scene-cost "$costs" --json "$out/sweep-$name.json"
done

# 3. The demo (its default model, data/upscaler_x2) at the scene cost whose render is closest to
#    transfer + inference in the sweep, async and serial, fp32 and fp16.
for precision in fp32 fp16; do
    cost=$(python3 - "$out/sweep-upscaler_x2.json" "$precision" <<'EOF'
import json, sys
runs = [r for r in json.load(open(sys.argv[1]))["runs"]
        if r["pattern"] == "interleaved" and r["precision"] == sys.argv[2]]
best = min(runs, key=lambda r: abs(r["render_ms"] - r["transfer_ms"] - r["inference_ms"]))
print(best["scene_cost"])
EOF
)
    [ -n "$cost" ] || cost=0
    for pattern in interleaved async; do
        run "$bundle/vkinfer_demo" --pattern $pattern --precision $precision --scene-cost "$cost" \
            --size "$size" --frames "$frames" --json "$out/demo-$pattern-$precision.json"
    done
done

# 4. The async pattern checked frame by frame (model panel against Session::run) at 960x540, in
#    both sharing modes; then at a small size under the validation layer, if the bundle has it.
for sharing in exclusive concurrent; do
    run "$bundle/vkinfer_demo" --pattern async --sharing $sharing --size "$size" --frames 6 --check
done
if [ -f "$bundle/layers/VkLayer_khronos_validation.json" ]; then
    export VK_LAYER_PATH="$PWD/$bundle/layers"
    for sharing in exclusive concurrent; do
        run "$bundle/vkinfer_demo" --pattern async --sharing $sharing --size 96x64 --frames 5 --validate --check
    done
    run "$bundle/vkinfer_patterns" "$espcn" --size 48x32 --frames 3 --order pipelined,serial \
        --sharing exclusive,concurrent --validate --check
else
    echo "(no validation layer in $bundle/layers: the validated runs are left out)"
fi

echo
echo "done in $(( $(date +%s) - start )) s, $failures command(s) failed; JSON in $out/"
[ $failures -eq 0 ]
