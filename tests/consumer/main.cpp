// Plans a model through the installed public API (no GPU needed) and prints the summary.
#include <vkinfer/vkinfer.h>

#include <cstdio>

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    auto model = vkinfer::Model::load(argv[1]);
    if (!model) {
        std::fprintf(stderr, "%s\n", model.status().toString().c_str());
        return 1;
    }
    auto summary = vkinfer::planSummary(*model, {{"input", {1, 3, 32, 32}}});
    if (!summary) {
        std::fprintf(stderr, "%s\n", summary.status().toString().c_str());
        return 1;
    }
    std::printf("vkinfer %s: %zu dispatches, %zu barriers\n", vkinfer::versionString(), summary->dispatches,
                summary->barriers);
    return summary->dispatches > 0 ? 0 : 1;
}
