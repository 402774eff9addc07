#include "output_files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace vkinfer::cli {

namespace fs = std::filesystem;

namespace {

std::string lowerExtension(const std::string& path) {
    std::string ext = fs::path(path).extension().string();
    for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

}  // namespace

void checkImageOutput(const std::string& path, const std::string& what) {
    const std::string ext = lowerExtension(path);
    if (ext != ".png" && ext != ".jpg" && ext != ".jpeg")
        throw CliError(fmt::format("{}: the format comes from the extension: .png, .jpg or .jpeg", what), 2);
    std::error_code ec;
    if (fs::is_directory(path, ec)) throw CliError(fmt::format("{}: '{}' is a folder", what, path), 2);
    const fs::path parent = fs::path(path).parent_path();
    if (!parent.empty() && !fs::is_directory(parent, ec))
        throw CliError(fmt::format("{}: the folder '{}' does not exist", what, parent.string()), 2);
}

void checkNotAnInput(const std::string& path, const std::vector<std::string>& inputs, const std::string& what) {
    for (const auto& in : inputs) {
        std::error_code ec;
        const bool same = fs::exists(path, ec) ? fs::equivalent(path, in, ec)
                                               : fs::weakly_canonical(path, ec) == fs::weakly_canonical(in, ec);
        if (same) throw CliError(fmt::format("{}: '{}' is an input of this command; it would be overwritten", what, path), 2);
    }
}

std::string replacedNote(const std::string& path) {
    std::error_code ec;
    return fs::exists(path, ec) ? " (replaced the file that was there)" : "";
}

Image forFormat(Image image, const std::string& path, std::string* note) {
    const std::string ext = lowerExtension(path);
    if ((ext == ".jpg" || ext == ".jpeg") && image.channels == 4) {
        std::vector<uint8_t> rgb(size_t(image.width) * image.height * 3);
        for (size_t i = 0; i < size_t(image.width) * image.height; ++i)
            std::memcpy(&rgb[i * 3], &image.pixels[i * 4], 3);
        image.pixels = std::move(rgb);
        image.channels = 3;
        if (note) *note += "; alpha dropped (JPEG has none)";
    }
    return image;
}

const char* channelName(uint32_t c) { return c == 1 ? "gray" : c == 3 ? "RGB" : "RGBA"; }

std::string imageText(const Image& image) {
    return fmt::format("{}x{} {}", image.width, image.height, channelName(image.channels));
}

OutputFolder::OutputFolder(const std::string& dir) : dir_(dir) {
    if (dir.empty()) return;
    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
        throw CliError(fmt::format("-o '{}' exists and is not a folder", dir), 2);
    created_ = !fs::exists(dir, ec);
    fs::create_directories(dir, ec);
    if (ec) throw CliError(fmt::format("-o '{}': cannot create the folder: {}", dir, ec.message()));
    std::string probe = (fs::path(dir) / ".vkinfer-write-test-XXXXXX").string();
    int fd = mkstemp(probe.data());
    if (fd < 0) {
        const std::string why = std::strerror(errno);
        if (created_) fs::remove(dir, ec);
        throw CliError(fmt::format("-o '{}': cannot create files in the folder: {}", dir, why));
    }
    close(fd);
    unlink(probe.c_str());
}

OutputFolder::~OutputFolder() {
    std::error_code ec;
    if (created_ && fs::is_empty(dir_, ec)) fs::remove(dir_, ec);
}

}  // namespace vkinfer::cli
