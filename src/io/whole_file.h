// Reading a small file (an image, a .npy or .pb tensor) whole into memory, with errors that
// name the file and what it was meant to be. Models and external data are mapped instead
// (mapped_file.h).
#pragma once

#include <string>
#include <string_view>

namespace vkinfer::io {

// The bytes of `path`. `what` names the file's role in messages ("image", "tensor file").
// Fails with InvalidArgument for a folder (an ifstream opens one without complaint and reads
// nothing), NotFound when the file cannot be opened, ParseError when a read fails midway.
std::string readWholeFile(const std::string& path, std::string_view what);

}  // namespace vkinfer::io
