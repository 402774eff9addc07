#!/bin/sh
# CI step after the ordinary build and tests (README's test command, .ci/run):
#  1. builds, with clang and ASan + UBSan (-DVKINFER_FUZZ=ON), the library, the GPU-free test
#     binaries, the CLI and the three libFuzzer targets, in one tree: $SANITIZE_BUILD_DIR
#     (default build-sanitize), with the kernels' SPIR-V copied from the ordinary tree
#     ($SPIRV_FROM_BUILD, default build) where there is one;
#  2. runs the GPU-free tests there: ctest label `cpu` (planner, io; the consumer and
#     conformance-report checks excluded: they need the ordinary tree) and the CLI tests that
#     need no device (usage errors, plan), against the sanitized CLI;
#  3. runs the three fuzzers at once, each on a copy of its seed corpus (tests/fuzz/corpus/
#     <target>, left unchanged) in a temporary folder: fuzz_onnx for $FUZZ_ONNX_RUNS inputs
#     (default 150000), fuzz_npy and fuzz_pb for $FUZZ_TENSOR_RUNS (default 400000); a
#     target that has not run them all after $FUZZ_MAX_SECONDS (default 900) fails; all from
#     $FUZZ_SEED (default 1: the same inputs for the same code, so that a CI failure is
#     reproducible and not the luck of the run; 0 draws a seed, for sessions of your own).
# Fails on any test failure, sanitizer report (UB, memory error, leak: every report aborts)
# or fuzzer finding; a fuzzer's crashing input is kept in the temporary folder, whose path it
# prints. Run from anywhere; needs clang and libclang-rt-14-dev (scripts/install-deps.sh).
set -eu
cd "$(dirname "$0")/.."
build=${SANITIZE_BUILD_DIR:-build-sanitize}
onnx_runs=${FUZZ_ONNX_RUNS:-150000}
tensor_runs=${FUZZ_TENSOR_RUNS:-400000}
max_seconds=${FUZZ_MAX_SECONDS:-900}
seed=${FUZZ_SEED:-1}

say() { printf '\n== sanitize-and-fuzz: %s\n' "$*"; }
run() {
    echo "+ $*"
    "$@"
}
start=$(date +%s)

# The kernels' SPIR-V does not depend on the C++ compiler: when the ordinary tree ($SPIRV_FROM_BUILD,
# default build; README's test command builds it first) is there, it compiles whatever it lacks
# and this tree copies them (cmake/Shaders.cmake, VKINFER_SPIRV_FROM) instead of running glslc
# on every variant again; without it this tree compiles them itself.
spirv_from_build=${SPIRV_FROM_BUILD:-build}
spirv_from=
if [ -f "$spirv_from_build/build.ninja" ] || [ -f "$spirv_from_build/Makefile" ]; then
    say "the kernels' SPIR-V, from $spirv_from_build"
    run cmake --build "$spirv_from_build" --target vkinfer_spirv
    spirv_from=$(cd "$spirv_from_build" && pwd)/shaders
fi

say "configure and build ($build: clang, -fsanitize=address,undefined, libFuzzer)"
# -O1, one tree for the sanitized tests and the fuzzers: fuzz_onnx runs about 12 times as
# many inputs per second as at -O0 (2,100 against 170 on 2 cores, 2026-12-03), and clang
# builds the library, three test binaries, the CLI and the fuzzers in a few minutes either
# way (a second -O0 tree for the tests would cost more than it saves). Line tables only.
run cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DVKINFER_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 \
    -DVKINFER_BUILD_BENCH=OFF -DVKINFER_BUILD_EXAMPLES=OFF -DVKINFER_SPIRV_FROM="$spirv_from"
run cmake --build "$build" --target plan_tests io_tests cli_tests vkinfer_cli fuzz_onnx fuzz_npy fuzz_pb
echo "build: $(($(date +%s) - start)) s"

# Every report is fatal and aborts (exit 134), so neither ctest nor a CLI test that expects
# "exit 1" can mistake one for an ordinary failure. LeakSanitizer runs with ASan, with no
# suppressions (none has been needed: nothing here loads a Vulkan driver).
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="abort_on_error=1:halt_on_error=1:print_stacktrace=1"
# No Vulkan driver: whatever these tests run must not need a device (and does not run
# lavapipe, an uninstrumented driver, under the sanitizers).
export VK_ICD_FILENAMES=/nonexistent/icd.json VK_DRIVER_FILES=/nonexistent/icd.json

say "GPU-free tests under ASan + UBSan"
run ctest --test-dir "$build" -L cpu -E '^(consumer_find_package|conformance_.*_report_is_current)$' \
    --output-on-failure -j2
# The CLI tests that need no device (tests/cli: the ones that pass with no Vulkan driver;
# the others run in the ordinary tree): usage errors, help, version, plan, and the input
# and model errors reported before a device is opened.
cli_tests='CliUsage\..*'
cli_tests="$cli_tests|CliPlan\.(SqueezenetJson|TextPlanOfASmallModel)|CliCheck\.NothingToCheck"
cli_tests="$cli_tests|CliRun\.(MissingModelFile|TruncatedModel|UnsupportedModel|WrongInputNameListsValidInputs|MissingOrBadInputFile)"
cli_tests="$cli_tests|CliBadInput\.(HugeRandomInputNamesTheTensorAndItsBytes|NumericOptionsAreValidated|BadModelPaths"
cli_tests="$cli_tests|MissingUnknownAndRepeatedInputsAreUsageErrors|EmptyPathsAndListsThatAreFolders|CheckOnNothing)"
run ctest --test-dir "$build" --output-on-failure -j2 -R "^($cli_tests)\$"

say "fuzzing from seed $seed: fuzz_onnx $onnx_runs inputs, fuzz_npy and fuzz_pb $tensor_runs each"
work=$(mktemp -d "${TMPDIR:-/tmp}/vkinfer-fuzz.XXXXXX")
echo "working corpora, logs and any crashing input: $work"
fuzz() {
    target=$1
    runs=$2
    mkdir -p "$work/$target"
    cp tests/fuzz/corpus/"$target"/* "$work/$target/"
    echo "+ $build/fuzz/$target -runs=$runs -seed=$seed ... $work/$target (log: $work/$target.log)"
    # -timeout: one input running 25 s is a finding too; -rss_limit_mb (the default) also
    # limits single allocations (-malloc_limit_mb): a library that allocates what a hostile
    # header declares fails here.
    t0=$(date +%s)
    if "$build/fuzz/$target" -runs="$runs" -seed="$seed" -max_total_time="$max_seconds" -timeout=25 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/$target-" "$work/$target" \
        >"$work/$target.log" 2>&1; then
        done_runs=$(grep -E '^stat::number_of_executed_units' "$work/$target.log" | awk '{print $2}')
        echo "$target: $done_runs inputs in $(($(date +%s) - t0)) s, no finding"
        if [ "$done_runs" -lt "$runs" ]; then
            echo "$target: stopped at $done_runs of $runs inputs: FUZZ_MAX_SECONDS ($max_seconds) ran out"
            return 1
        fi
    else
        echo "$target: FINDING (exit $?); the end of its log:"
        tail -n 60 "$work/$target.log"
        ls -l "$work/$target"-* 2>/dev/null || true
        return 1
    fi
}
# All three at once: on CI's 2 cores each gets about two thirds of one while they overlap.
status=0
fuzz fuzz_onnx "$onnx_runs" &
onnx=$!
fuzz fuzz_npy "$tensor_runs" &
npy=$!
fuzz fuzz_pb "$tensor_runs" || status=1
wait "$onnx" || status=1
wait "$npy" || status=1

echo "sanitize-and-fuzz: $(($(date +%s) - start)) s in all"
if [ "$status" -ne 0 ]; then
    echo "sanitize-and-fuzz: FAILED (see above; reproduce: $build/fuzz/<target> <crashing input>)"
    exit 1
fi
echo "sanitize-and-fuzz: no sanitizer report, no fuzzer finding"
