// A model's inputs from the command line: `--shape` specs, `-i` files and synthetic values.
// What the command line alone gets wrong (a name the model has no input for, an input given
// twice or not at all, malformed dimensions) is a usage error, exit 2; what a file gets wrong
// (missing, malformed, of the wrong type or shape) is a failure, exit 1.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common.h"

namespace vkinfer::cli {

// "NAME=1x3x224x224" ("NAME=scalar" for rank 0), or the dimensions alone when the model has
// one input. Fails for malformed dimensions, an unknown or repeated input, or a shape whose
// byte size does not fit in 63 bits.
InputShapes parseShapes(const std::vector<std::string>& specs, const Model& model);
// `given`, completed for dynamic inputs from test_data_set_0 next to the model file when
// present; inputs with a default that `given` does not name are left out (they take their
// defaults). Fails naming the input whose shape is still unknown.
InputShapes resolveShapesWithDefaults(const Model& model, const std::string& modelPath, const InputShapes& given);

// Input tensors from "-i NAME=FILE" or "-i FILE" (.npy or .pb). A lone FILE feeds the
// model's only input, or, for a model with several, the input its TensorProto names. A .pb
// whose own name is another input than the one it is given for gets a warning. Every input
// of the model must be given exactly once: by these files or by `givenElsewhere` (input ->
// what gives it, e.g. "--image 'a.png'", for messages), which are not returned; except that
// inputs with a default may be left out (said on stderr). A lone FILE of a model whose other
// inputs have defaults feeds the one without.
std::vector<NamedTensor> loadInputs(const std::vector<std::string>& specs, const Model& model,
                                    const std::map<std::string, std::string>& givenElsewhere = {});

// Deterministic uniform [0, 1) float32 inputs of the given shapes (from
// resolveShapesWithDefaults); inputs with a default that `shapes` leaves out take their
// defaults, said on stderr. A tensor larger than the host's memory, or whose allocation
// fails, is an error naming it and its bytes.
std::vector<NamedTensor> syntheticInputs(const Model& model, const InputShapes& shapes);

}  // namespace vkinfer::cli
