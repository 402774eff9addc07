// fuzz_onnx: the input is an ONNX model file, planned as `vkinfer plan` and Session::create
// do before touching a GPU (plan_model_bytes.h), with a smaller folding budget
// (LLVMFuzzerInitialize). Inputs are mutated as models (onnx_mutator.h) and as bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "fuzz/fuzz_common.h"
#include "fuzz/onnx_mutator.h"
#include "fuzz/plan_model_bytes.h"
#include "passes/specialize.h"

using namespace vkinfer;

// A 1 MiB folding budget instead of 64: with the sanitizers and coverage the CPU evaluators
// take up to 3 us per folded element (-O0), so the default budget's 16M floats
// or 64M bytes outlast the 25 s timeout while the code's bounds are the same at any budget.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
    passes::setMinFoldBudgetForTesting(int64_t{1} << 20);
    return 0;
}

// Mutations of the parsed model (most still import, so the planner gets fuzzed), and
// libFuzzer's own byte mutations for the parser. VKINFER_FUZZ_BYTES_ONLY=1 leaves only the
// latter (to measure what the model mutations add: tests/fuzz/README.md).
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t maxSize);
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t maxSize, unsigned int seed) {
    static const bool bytesOnly = std::getenv("VKINFER_FUZZ_BYTES_ONLY") != nullptr;
    if (bytesOnly) return LLVMFuzzerMutate(data, size, maxSize);
    return fuzz::mutateOnnxBytes(data, size, maxSize, seed, LLVMFuzzerMutate);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fuzz::expectOnlyCleanErrors([&] { fuzz::planModelBytes(data, size); });
    return 0;
}
