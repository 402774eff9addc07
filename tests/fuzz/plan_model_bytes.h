// What fuzz_onnx runs on each input (and plan/onnx_mutator_test.cpp on each mutant): the
// model imported, checked against the operator table, given input shapes (the declared dims;
// dynamic ones bound to 1..8 by name, so that inputs sharing a dim name agree) and compiled
// to a plan, printed as JSON and as text; then compiled again with float16 precision and
// conservative sync. This is what `vkinfer plan` and Session::create do before a GPU.
// Throws vkinfer::Error for a model it refuses.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vkinfer::fuzz {

void planModelBytes(const uint8_t* data, size_t size);

}  // namespace vkinfer::fuzz
