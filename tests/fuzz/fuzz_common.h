// What every fuzz target treats as a finding: anything but a vkinfer::Error, and an Error
// with ErrorCode::Internal (an invariant of the library broke). An Error of any other code
// is the expected answer to malformed input. Other exceptions are not caught: they reach
// std::terminate from the throw site, so libFuzzer's report shows where they came from.
#pragma once

#include <cstdio>
#include <cstdlib>

#include "core/error.h"

namespace vkinfer::fuzz {

// VKINFER_FUZZ_VERBOSE=1 prints each input's outcome (to see how deep a corpus reaches).
template <class F>
void expectOnlyCleanErrors(F&& body) {
    static const bool verbose = std::getenv("VKINFER_FUZZ_VERBOSE") != nullptr;
    try {
        body();
        if (verbose) std::fprintf(stderr, "fuzz: ok\n");
    } catch (const Error& e) {
        if (e.status().code() == ErrorCode::Internal) {
            std::fprintf(stderr, "fuzz: internal error: %s\n", e.status().toString().c_str());
            std::abort();
        }
        if (verbose) std::fprintf(stderr, "fuzz: %s\n", e.status().toString().c_str());
    }
}

}  // namespace vkinfer::fuzz
