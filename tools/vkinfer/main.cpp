#include <fmt/format.h>
#include <vkinfer/vkinfer.h>
int main(int argc, char** argv) {
    if (argc < 3) return 2;
    auto model = vkinfer::Model::load(argv[1]);
    if (!model) { fmt::print(stderr, "{}\n", model.status().toString()); return 1; }
    auto ctx = vkinfer::Context::create({-1, true});
    if (!ctx) { fmt::print(stderr, "{}\n", ctx.status().toString()); return 1; }
    auto sess = vkinfer::Session::create(*ctx, *model);
    auto in = vkinfer::loadTensorFile(argv[2]);
    if (!in) { fmt::print(stderr, "{}\n", in.status().toString()); return 1; }
    vkinfer::RunStats st;
    auto out = sess->run({{model->inputs()[0].name, *in}}, &st);
    if (!out) { fmt::print(stderr, "{}\n", out.status().toString()); return 1; }
    if (argc > 3) {
        auto ref = vkinfer::loadTensorFile(argv[3]);
        const auto& y = (*out)[0].tensor;
        double maxErr = 0, maxRef = 0;
        for (int64_t i = 0; i < y.elementCount(); ++i) { maxErr = std::max(maxErr, std::abs(y.getDouble(i) - ref->getDouble(i))); maxRef = std::max(maxRef, std::abs(ref->getDouble(i))); }
        (void)vkinfer::saveNpy("/tmp/out.npy", y);
        fmt::print("max err {} (max ref {}) gpu {:.2f} ms wall {:.2f} ms\n", maxErr, maxRef, st.gpuMs, st.wallMs);
    }
    return 0;
}
