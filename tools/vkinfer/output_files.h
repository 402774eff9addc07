// Files the CLI writes: checked before any work (a run that fails at the end after minutes of
// work loses it), never an input overwritten, a replaced file said so, and images in the form
// their format can hold.
#pragma once

#include <string>
#include <vector>

#include "common.h"

namespace vkinfer::cli {

// An image file to write: the extension .png, .jpg or .jpeg, not a folder, in a folder that
// exists; `what` names it in the usage error (exit 2) otherwise ("--save-image 'y=out.png'").
void checkImageOutput(const std::string& path, const std::string& what);
// A file to write that must not be one of `inputs` (the same file by another path too).
void checkNotAnInput(const std::string& path, const std::vector<std::string>& inputs, const std::string& what);
// " (replaced the file that was there)" when `path` exists now, else "".
std::string replacedNote(const std::string& path);

// The image as `path`'s format stores it: RGBA to RGB for JPEG, with `note` saying so.
Image forFormat(Image image, const std::string& path, std::string* note);
// "80x60 RGB".
std::string imageText(const Image& image);
const char* channelName(uint32_t channels);

// A folder created for this command's outputs, removed again (if still empty) when the
// command fails before writing into it.
class OutputFolder {
public:
    explicit OutputFolder(const std::string& dir);  // "" for none; creates it, usage error if it cannot be one
    ~OutputFolder();
    OutputFolder(const OutputFolder&) = delete;
    OutputFolder& operator=(const OutputFolder&) = delete;
    void keep() { created_ = false; }

private:
    std::string dir_;
    bool created_ = false;
};

}  // namespace vkinfer::cli
