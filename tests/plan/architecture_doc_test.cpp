// docs/ARCHITECTURE.md is held to the code: every file or folder it names exists, and its
// layer table is the one the build enforces (CMakeLists.txt, vkinfer_layer).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace vkinfer {
namespace {

namespace fs = std::filesystem;

std::string readFile(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

const fs::path kRoot = VKINFER_SOURCE_DIR;

TEST(ArchitectureDoc, EveryNamedFileExists) {
    std::string doc = readFile(kRoot / "docs/ARCHITECTURE.md");
    ASSERT_FALSE(doc.empty());
    doc = std::regex_replace(doc, std::regex("```[^`]*```"), "");  // fenced blocks hold no inline code
    // Paths from the repository root, and source paths written from src/ (`ops/conv/select.cpp`).
    const std::regex rooted(R"(^(src|shaders|cmake|scripts|tests|include|docs|data|bench|examples|tools)/[A-Za-z0-9_./-]*$)");
    const std::regex fromSrc(R"(^(core|graph|io|ops|passes|plan|vk|runtime|interop)/[A-Za-z0-9_/]+\.(h|cpp)$)");
    const std::regex quoted("`([^`]+)`");
    size_t checked = 0;
    for (auto it = std::sregex_iterator(doc.begin(), doc.end(), quoted); it != std::sregex_iterator(); ++it) {
        std::string p = (*it)[1];
        // "src/ops/conv/portable.cpp, depthwise.cpp" style lists name the folder once.
        if (std::regex_match(p, rooted)) {
            EXPECT_TRUE(fs::exists(kRoot / p)) << "docs/ARCHITECTURE.md names `" << p << "`, which does not exist";
            ++checked;
        } else if (std::regex_match(p, fromSrc)) {
            EXPECT_TRUE(fs::exists(kRoot / "src" / p)) << "docs/ARCHITECTURE.md names `" << p << "` (in src/), which does not exist";
            ++checked;
        }
    }
    EXPECT_GT(checked, 50u);
}

struct Layer {
    std::set<std::string> folders, uses;
};

std::set<std::string> words(const std::string& s) {
    std::set<std::string> out;
    std::regex word(R"([a-z]+)");
    for (auto it = std::sregex_iterator(s.begin(), s.end(), word); it != std::sregex_iterator(); ++it) out.insert(it->str());
    return out;
}

TEST(ArchitectureDoc, LayerTableIsTheBuilds) {
    const std::string doc = readFile(kRoot / "docs/ARCHITECTURE.md");
    const auto begin = doc.find("<!-- layers"), end = doc.find("<!-- /layers -->");
    ASSERT_NE(begin, std::string::npos);
    ASSERT_NE(end, std::string::npos);
    std::map<std::string, Layer> documented;
    std::istringstream rows(doc.substr(begin, end - begin));
    std::string line;
    const std::regex row(R"(^\|\s*(\w+)\s*\|([^|]*)\|([^|]*)\|)");
    for (std::smatch m; std::getline(rows, line);) {
        if (!std::regex_search(line, m, row) || m[1] == "layer") continue;
        Layer l;
        for (const auto& w : words(m[2])) if (w != "src") l.folders.insert(w);
        l.uses = words(m[3]);
        documented[m[1]] = l;
    }
    const std::string cmake = readFile(kRoot / "CMakeLists.txt");
    std::map<std::string, Layer> built;
    const std::regex call(R"(vkinfer_layer\((\w+) FOLDERS ([a-z ]+?)(?: USES ([a-z ]+?))?(?: LIBS [^)]*| SOURCES [^)]*)?\))");
    for (auto it = std::sregex_iterator(cmake.begin(), cmake.end(), call); it != std::sregex_iterator(); ++it) {
        Layer l;
        l.folders = words((*it)[2]);
        l.uses = words((*it)[3]);
        built[(*it)[1]] = l;
    }
    ASSERT_GE(built.size(), 7u) << "vkinfer_layer calls in CMakeLists.txt";
    ASSERT_EQ(documented.size(), built.size());
    for (const auto& [name, l] : built) {
        ASSERT_TRUE(documented.count(name)) << "layer " << name << " is not in the table";
        EXPECT_EQ(documented[name].folders, l.folders) << "folders of layer " << name;
        EXPECT_EQ(documented[name].uses, l.uses) << "what layer " << name << " uses";
        for (const auto& f : l.folders) EXPECT_TRUE(fs::is_directory(kRoot / "src" / f)) << f;
    }
}

}  // namespace
}  // namespace vkinfer
