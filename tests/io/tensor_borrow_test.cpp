// Tensor::borrow: a tensor reading bytes it does not own (mapped external data), copied on
// the first write.
#include <gtest/gtest.h>
#include <vkinfer/vkinfer.h>

#include <cstring>
#include <memory>
#include <vector>

namespace vkinfer {
namespace {

std::shared_ptr<std::vector<float>> someFloats() {
    return std::make_shared<std::vector<float>>(std::vector<float>{1, 2, 3, 4, 5, 6});
}

TEST(IoTensorBorrow, ReadsInPlaceAndKeepsTheOwnerAlive) {
    auto store = someFloats();
    std::weak_ptr<std::vector<float>> watch = store;
    Tensor t = Tensor::borrow(DataType::Float32, {2, 3}, store->data(), store);
    store.reset();
    ASSERT_FALSE(watch.expired()) << "the tensor must keep its owner alive";
    EXPECT_TRUE(t.borrowed());
    EXPECT_EQ(t.byteSize(), 24u);
    EXPECT_EQ(t.elementCount(), 6);
    const Tensor& ct = t;
    EXPECT_EQ(static_cast<const void*>(ct.data()), static_cast<const void*>(watch.lock()->data()));
    EXPECT_EQ(ct.as<float>()[4], 5.0f);
    EXPECT_EQ(t.getDouble(5), 6.0);
    EXPECT_TRUE(t.reshape({3, 2}));
    EXPECT_TRUE(t.borrowed());
    t = Tensor();
    EXPECT_TRUE(watch.expired());
}

TEST(IoTensorBorrow, CopiesShareAndWritesCopyFirst) {
    auto store = someFloats();
    Tensor a = Tensor::borrow(DataType::Float32, {6}, store->data(), store);
    Tensor b = a;
    EXPECT_TRUE(b.borrowed());
    EXPECT_EQ(static_cast<const Tensor&>(b).data(), static_cast<const Tensor&>(a).data());
    b.as<float>()[0] = 100.0f;  // non-const access: b now owns a copy
    EXPECT_FALSE(b.borrowed());
    EXPECT_EQ(b.as<float>()[0], 100.0f);
    EXPECT_EQ(b.as<float>()[5], 6.0f);
    EXPECT_EQ((*store)[0], 1.0f) << "writing must never reach the borrowed bytes";
    EXPECT_EQ(static_cast<const Tensor&>(a).as<float>()[0], 1.0f);
    EXPECT_EQ(b.byteSize(), 24u);
}

TEST(IoTensorBorrow, MovedFromTensorHoldsNothing) {
    auto store = someFloats();
    std::weak_ptr<std::vector<float>> watch = store;
    Tensor a = Tensor::borrow(DataType::Float32, {6}, store->data(), store);
    store.reset();
    Tensor b = std::move(a);
    EXPECT_TRUE(b.borrowed());
    EXPECT_FALSE(a.borrowed());  // NOLINT(bugprone-use-after-move): moved-from state is specified
    EXPECT_EQ(a.byteSize(), 0u);
    Tensor c;
    c = std::move(b);
    EXPECT_FALSE(b.borrowed());
    EXPECT_EQ(c.getDouble(2), 3.0);
    c = Tensor(DataType::Int32, {2});
    EXPECT_TRUE(watch.expired());
}

TEST(IoTensorBorrow, EmptyTensorBorrowsNothing) {
    Tensor t = Tensor::borrow(DataType::Float32, {0, 4}, nullptr, std::make_shared<int>(1));
    EXPECT_FALSE(t.borrowed());
    EXPECT_EQ(t.byteSize(), 0u);
    EXPECT_EQ(t.dtype(), DataType::Float32);
}

}  // namespace
}  // namespace vkinfer
