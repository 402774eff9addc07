// Strided windows (ops/strided_view.h), what lets a MatMul read attention's q, k and v where
// the fused in-projection left them: Reshapes of strided views re-strided or refused, element
// by element against a row-major walk of the source.
#include <gtest/gtest.h>

#include "ops/strided_view.h"

namespace vkinfer::ops {
namespace {

using graph::Shape;
using graph::StridedView;

// The source elements a view visits, in its row-major order.
std::vector<int64_t> visited(const StridedView& v) {
    std::vector<int64_t> out;
    std::vector<int64_t> idx(v.shape.size(), 0);
    int64_t total = 1;
    for (int64_t d : v.shape) total *= d;
    for (int64_t e = 0; e < total; ++e) {
        int64_t at = v.offset;
        for (size_t d = 0; d < idx.size(); ++d) at += idx[d] * v.stride[d];
        out.push_back(at);
        for (size_t d = idx.size(); d-- > 0;) {
            if (++idx[d] < v.shape[d]) break;
            idx[d] = 0;
        }
    }
    return out;
}

// The window q = x[:, 16:32] of a [5, 48] tensor (k of an in-projection with E = 16).
StridedView keyColumns() { return {16, {5, 16}, {48, 1}}; }

TEST(StridedView, ReshapeSplitsAndMergesWithinContiguousRuns) {
    const StridedView k = keyColumns();
    // Split into heads: [5, 16] -> [5, 2, 8]: the same elements, in the same order.
    auto heads = reshapeView(k, {5, 2, 8});
    ASSERT_TRUE(heads);
    EXPECT_EQ(heads->stride, (std::vector<int64_t>{48, 8, 1}));
    EXPECT_EQ(visited(*heads), visited(k));
    // Size-1 dims anywhere.
    auto ones = reshapeView(k, {1, 5, 1, 16, 1});
    ASSERT_TRUE(ones);
    EXPECT_EQ(visited(*ones), visited(k));
    // Merging the rows with a split of the columns is not one stride: refused.
    EXPECT_FALSE(reshapeView(k, {10, 8}));
    EXPECT_FALSE(reshapeView(k, {80}));
    // A contiguous view merges freely; element counts must agree.
    auto flat = reshapeView(contiguousView({3, 4, 5}), {60});
    ASSERT_TRUE(flat);
    EXPECT_EQ(flat->stride, (std::vector<int64_t>{1}));
    EXPECT_FALSE(reshapeView(contiguousView({3, 4}), {13}));
    // A sliced outer dim (x[1:3] of [4, 6]) stays contiguous: merges.
    auto rows = reshapeView(StridedView{6, {2, 6}, {6, 1}}, {12});
    ASSERT_TRUE(rows);
    EXPECT_EQ(visited(*rows), visited(StridedView{6, {2, 6}, {6, 1}}));
}

TEST(StridedView, FitsChecksTheLastElement) {
    EXPECT_TRUE(viewFits(keyColumns(), 5 * 48));
    EXPECT_FALSE(viewFits(StridedView{33, {5, 16}, {48, 1}}, 5 * 48));  // the last row runs past the end
    EXPECT_FALSE(viewFits(StridedView{0, {5, 0}, {48, 1}}, 5 * 48));    // empty
    EXPECT_FALSE(viewFits(StridedView{0, {5, 16}, {-48, 1}}, 5 * 48));  // backwards
}

// An empty tensor (an extent 0 anywhere) is no window: the chain walk refuses it instead of
// dividing by its zero extent, which CI's fuzz_onnx reached through a Reshape in a view chain
// in front of a MatMul (passes::foldViewsIntoMatMul; UBSan: integer division by zero).
TEST(StridedView, ChainsOverEmptyTensorsAreRefused) {
    graph::Graph g;
    g.opset = 17;
    auto value = [&](const std::string& name, Shape shape) {
        graph::Value v;
        v.name = name;
        v.shape = std::move(shape);
        v.hasShape = true;
        return g.addValue(std::move(v));
    };
    const int x = value("x", {4, 0}), y = value("y", {0, 4}), t = value("t", {4, 0});
    graph::Node reshape;
    reshape.name = "r";
    reshape.opType = "Reshape";
    reshape.inputs = {x};
    reshape.outputs = {y};
    graph::Node transpose;
    transpose.name = "t";
    transpose.opType = "Transpose";
    transpose.inputs = {y};
    transpose.outputs = {t};
    g.nodes = {reshape, transpose};
    EXPECT_FALSE(viewThroughChain(g, {&g.nodes[0]}, contiguousView({4, 0})));
    EXPECT_FALSE(viewThroughChain(g, {&g.nodes[1], &g.nodes[0]}, contiguousView({0, 4})));
    // Strides over a zero extent merge with anything: a sliced source is refused the same way.
    EXPECT_FALSE(viewThroughChain(g, {&g.nodes[0]}, StridedView{0, {4, 0}, {8, 1}}));
    EXPECT_FALSE(reshapeView(contiguousView({4, 0}), {0, 4}));
}

}  // namespace
}  // namespace vkinfer::ops
