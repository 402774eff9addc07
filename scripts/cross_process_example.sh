#!/bin/sh
# The cross-process example (examples/cross_process/, docs/INTEGRATION.md "Across processes")
# on the GPU machine: the semaphore path (timeline semaphores shared by fd, which lavapipe
# cannot run), then the host-wait path forced (VKINFER_CROSS_PROCESS_SYNC=host) for
# comparison, each under the validation layer with synchronization validation where the
# bundle has it (zero messages expected), a longer semaphore run without it, and the
# cross-process image test (ImageProcess.*) where the bundle has it. The first
# line each run prints names the path it took: on the H200 the first must say "timeline
# semaphores".
#
# Build here and bundle (scripts/gpu-bundle.sh takes every build/examples/example_*, these two
# included; the session's binary starts the renderer from its own folder):
#
#   ninja -C build example_cross_process example_cross_process_renderer
#   sh scripts/gpu-bundle.sh build
#
# then on the GPU machine, from the checkout's root:
#
#   sh scripts/cross_process_example.sh [BUNDLE]        (default .gpu-bundle)
set -u
bundle=${1:-.gpu-bundle}
export LD_LIBRARY_PATH="$bundle${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
model=data/espcn_x2

. "$(dirname "$0")/gpu_run_lib.sh"  # run CMD...: print, run, count failures

if [ -d "$bundle/layers" ]; then
    validated="env VK_LAYER_PATH=$PWD/$bundle/layers VKINFER_VALIDATE=1"
else
    echo "(no validation layer in the bundle: the validated runs run without it)"
    validated="env"
fi
run $validated "$bundle/example_cross_process" "$model" 50
run $validated VKINFER_CROSS_PROCESS_SYNC=host "$bundle/example_cross_process" "$model" 50
run "$bundle/example_cross_process" "$model" 1000

# The cross-process image test, where the bundle has it (ninja -C build interop_tests
# interop_image_peer; sh scripts/gpu-bundle.sh build build/tests/interop_tests
# build/tests/interop_image_peer): on the H200 the first test prints "synchronization: timeline
# semaphores shared by fd" and the host-wait one runs instead of skipping.
if [ -x "$bundle/interop_tests" ] && [ -x "$bundle/interop_image_peer" ]; then
    run $validated VKINFER_INTEROP_IMAGE_PEER="$PWD/$bundle/interop_image_peer" "$bundle/interop_tests" \
        --gtest_filter='ImageProcess.*'
else
    echo "(interop_tests or interop_image_peer not in the bundle: the cross-process test is not run)"
fi

echo
echo "$failures failure(s)"
[ $failures -eq 0 ]
