#!/bin/sh
# CI step after the ordinary build and tests (README's test command, .ci/run):
#  1. builds, with clang and ASan + UBSan (-DVKINFER_FUZZ=ON), the library, the GPU-free test
#     binaries, the CLI and the three libFuzzer targets, in one tree: $SANITIZE_BUILD_DIR
#     (default build-sanitize);
#  2. runs the GPU-free tests there: ctest label `cpu` (planner, io; the consumer and
#     conformance-report checks excluded: they need the ordinary tree) and the CLI tests that
#     need no device (usage errors, plan), against the sanitized CLI;
#  3. runs each fuzzer for $FUZZ_SECONDS (default 60) on a copy of its seed corpus
#     (tests/fuzz/corpus/<target>, left unchanged) in a temporary folder, all three at once.
# Fails on any test failure, sanitizer report (UB, memory error, leak: every report aborts)
# or fuzzer finding; a fuzzer's crashing input is kept in the temporary folder, whose path it
# prints. Run from anywhere; needs clang and libclang-rt-14-dev (scripts/install-deps.sh).
set -eu
cd "$(dirname "$0")/.."
build=${SANITIZE_BUILD_DIR:-build-sanitize}
seconds=${FUZZ_SECONDS:-60}

say() { printf '\n== sanitize-and-fuzz: %s\n' "$*"; }
run() {
    echo "+ $*"
    "$@"
}
start=$(date +%s)

say "configure and build ($build: clang, -fsanitize=address,undefined, libFuzzer)"
# -O0: this step is CI's second full build of the library; at -O0 it compiles about 40% faster
# than at -O1 (clang 14, measured on src/runtime/session.cpp), which keeps CI under 30 minutes
# on 2 cores, at the cost of fewer fuzzer executions per second. Line tables only.
run cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DVKINFER_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O0 \
    -DVKINFER_BUILD_BENCH=OFF -DVKINFER_BUILD_EXAMPLES=OFF
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
run ctest --test-dir "$build" -L cpu -E '^(consumer_find_package|conformance_report_is_current)$' \
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

say "fuzzing, ${seconds} s per target"
work=$(mktemp -d "${TMPDIR:-/tmp}/vkinfer-fuzz.XXXXXX")
echo "working corpora, logs and any crashing input: $work"
fuzz() {
    target=$1
    mkdir -p "$work/$target"
    cp tests/fuzz/corpus/"$target"/* "$work/$target/"
    echo "+ $build/fuzz/$target -max_total_time=$seconds ... $work/$target (log: $work/$target.log)"
    # -timeout: one input running 25 s is a finding too; -rss_limit_mb (the default) also
    # limits single allocations (-malloc_limit_mb): a library that allocates what a hostile
    # header declares fails here.
    if "$build/fuzz/$target" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$work/$target-" "$work/$target" >"$work/$target.log" 2>&1; then
        echo "$target: $(grep -E '^stat::number_of_executed_units' "$work/$target.log" | awk '{print $2}') inputs, no finding"
    else
        echo "$target: FINDING (exit $?); the end of its log:"
        tail -n 60 "$work/$target.log"
        ls -l "$work/$target"-* 2>/dev/null || true
        return 1
    fi
}
# All three at once, each for $seconds of wall time: on CI's 2 cores each gets about two
# thirds of one, and the step takes one fuzzing period instead of two.
status=0
fuzz fuzz_onnx &
onnx=$!
fuzz fuzz_npy &
npy=$!
fuzz fuzz_pb || status=1
wait "$onnx" || status=1
wait "$npy" || status=1

echo "sanitize-and-fuzz: $(($(date +%s) - start)) s in all"
if [ "$status" -ne 0 ]; then
    echo "sanitize-and-fuzz: FAILED (see above; reproduce: $build/fuzz/<target> <crashing input>)"
    exit 1
fi
echo "sanitize-and-fuzz: no sanitizer report, no fuzzer finding"
