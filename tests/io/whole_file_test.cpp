// Whole-file reads of images and tensor files: the bytes as written, and errors that name the
// file and its role (the public loaders' messages come from here).
#include <gtest/gtest.h>
#include <vkinfer/vkinfer.h>

#include <filesystem>

#include "core/error.h"
#include "io/io_test_util.h"
#include "io/whole_file.h"

namespace vkinfer::testing {
namespace {

Status statusOf(const std::string& path, std::string_view what) {
    return guardStatus([&] { io::readWholeFile(path, what); });
}

TEST(WholeFile, ReadsEveryByteIncludingNuls) {
    TempDir dir;
    std::string bytes("a\0b\xff\n\r", 6);
    bytes.append(100000, '\x7f');
    writeFile(dir.file("x.bin"), bytes);
    EXPECT_EQ(io::readWholeFile(dir.file("x.bin"), "tensor file"), bytes);
    writeFile(dir.file("empty.bin"), "");
    EXPECT_EQ(io::readWholeFile(dir.file("empty.bin"), "image"), "");
}

TEST(WholeFile, AFolderOrAMissingFileIsAnErrorThatNamesItsRole) {
    TempDir dir;
    std::filesystem::create_directories(dir.file("sub"));
    Status folder = statusOf(dir.file("sub"), "image");
    EXPECT_EQ(folder.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(folder.message(), "image '" + dir.file("sub") + "' is a folder");
    Status missing = statusOf(dir.file("none.npy"), "tensor file");
    EXPECT_EQ(missing.code(), ErrorCode::NotFound);
    EXPECT_TRUE(contains(missing.message(), "cannot open tensor file '" + dir.file("none.npy") + "'"))
        << missing.message();
}

TEST(WholeFile, ThePublicLoadersSayWhichKindOfFileFailed) {
    TempDir dir;
    std::filesystem::create_directories(dir.file("d"));
    auto npy = loadNpy(dir.file("d"));
    ASSERT_FALSE(npy.ok());
    EXPECT_EQ(npy.status().code(), ErrorCode::InvalidArgument);
    EXPECT_TRUE(contains(npy.status().message(), "tensor file '" + dir.file("d") + "' is a folder"));
    auto image = loadImage(dir.file("missing.png"));
    ASSERT_FALSE(image.ok());
    EXPECT_EQ(image.status().code(), ErrorCode::NotFound);
    EXPECT_TRUE(contains(image.status().message(), "cannot open image '" + dir.file("missing.png") + "'"));
}

}  // namespace
}  // namespace vkinfer::testing
