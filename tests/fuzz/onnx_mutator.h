// A structure-aware mutator for ONNX models (fuzz_onnx's LLVMFuzzerCustomMutator): it
// parses the input as a ModelProto and changes what an exporter could get wrong (an
// attribute's value, an op type, a node's inputs, a graph input's dims or element type, an
// initializer's values, the node order, the opset), so that most mutants still import and
// reach the shape inference, the passes and the planner instead of dying in the parser.
// Inputs that do not parse, and a share of the others, get libFuzzer's byte mutations.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <random>

namespace vkinfer::fuzz {

// One structural change to `model`; false when the one drawn found nothing to change.
bool mutateModel(onnx::ModelProto& model, std::mt19937& rng);

// The whole mutation step: up to a few structural changes of the parsed model (written
// back into data, at most maxSize bytes), or `byteMutate` for the bytes. Returns the new size.
using ByteMutator = size_t (*)(uint8_t* data, size_t size, size_t maxSize);
size_t mutateOnnxBytes(uint8_t* data, size_t size, size_t maxSize, unsigned seed, ByteMutator byteMutate);

}  // namespace vkinfer::fuzz
