#!/bin/sh
# Issue 22 part 1's figures on the GPU machine: shared images at 1920x1080, what each tiling
# costs (docs/INTEGRATION.md chapter 3, "Which tiling"): the renderer drawing into a LINEAR
# shared image, drawing into an OPTIMAL one, the optimal->linear copy (recordCopyToLinear),
# and inference (ESPCN x2) reading each image on a second VkDevice through an opaque fd;
# then the same run once more under the validation layer on a small frame (zero messages
# expected), and the external-sync, shared-image and cross-process tests (semaphore and fence
# paths on the H200; lavapipe only has the host wait). Prints each command before its output.
#
# Build here and bundle the extra binaries (scripts/gpu-bundle.sh takes them as arguments):
#
#   ninja -C build interop_images_bench interop_tests interop_peer interop_image_peer
#   sh scripts/gpu-bundle.sh build build/tests/interop_images_bench build/tests/interop_tests \
#       build/tests/interop_image_peer
#
# then on the GPU machine, from the checkout's root:
#
#   sh scripts/interop_images_bench.sh [BUNDLE]        (default .gpu-bundle)
#
# IMAGES_BENCH_SIZE and IMAGES_BENCH_FRAMES shrink the run (e.g. 64x48 and 3 on lavapipe);
# IMAGES_BENCH_OUT names the folder of the JSON files (default images-bench).
set -u
bundle=${1:-.gpu-bundle}
export LD_LIBRARY_PATH="$bundle${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The cross-process test's renderer, from the bundle (the build path is not there).
export VKINFER_INTEROP_IMAGE_PEER="$PWD/$bundle/interop_image_peer"
model=data/espcn_x2/model.onnx
out=${IMAGES_BENCH_OUT:-images-bench}
size=${IMAGES_BENCH_SIZE:-1920x1080}
frames=${IMAGES_BENCH_FRAMES:-50}
mkdir -p "$out"
start=$(date +%s)

. "$(dirname "$0")/gpu_run_lib.sh"  # run CMD...: print, run, count failures

run "$bundle/vkinfer" devices

# 1. The figures: medians of GPU timestamps over the frames.
run "$bundle/interop_images_bench" --model "$model" --size "$size" --frames "$frames" --json "$out/images.json"

# 2. The same recordings under the validation layer with synchronization validation.
if [ -d "$bundle/layers" ]; then
    run env VK_LAYER_PATH="$PWD/$bundle/layers" "$bundle/interop_images_bench" --model "$model" --size 64x48 \
        --frames 3 --validate --json "$out/images-validated.json"
    # 3. Fences, semaphores, the chosen sync path and shared images on this driver.
    run env VK_LAYER_PATH="$PWD/$bundle/layers" VKINFER_VALIDATE=1 "$bundle/interop_tests" \
        --gtest_filter='SyncPaths.*:ExternalSync.*:ImageSharing.*:DrmModifiers.*:Routes/SharedImagePath.*:ImageProcess.*'
else
    echo "(no validation layer in the bundle: steps 2 and 3 run without it)"
    run "$bundle/interop_tests" --gtest_filter='SyncPaths.*:ExternalSync.*:ImageSharing.*:DrmModifiers.*:Routes/SharedImagePath.*:ImageProcess.*'
fi

echo
echo "$failures failure(s); JSON in $out/"
[ $failures -eq 0 ]
