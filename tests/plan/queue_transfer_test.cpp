// The queue family ownership transfers of recordInference (interop/queue_transfer.h), from a
// RecordIO alone: which resources get one, that vkinfer's half and the host's half name the
// same families and layouts, and what recordInference's own barriers see between them. (Recording them needs a device with two queue families: the
// demo's async pattern does that on the GPU machine, vkinfer_demo --pattern async --check.)
#include <gtest/gtest.h>

#include "interop/queue_transfer.h"

namespace vkinfer {
namespace {

using interop::OwnershipTransfer;
using interop::OwnershipTransfers;
using interop::ownershipTransfers;

constexpr uint32_t kGraphics = 0, kCompute = 2;

template <class Handle>
Handle fake(uintptr_t id) {
    return reinterpret_cast<Handle>(id);
}

ImageInput sceneInput(uint32_t family) {
    ImageInput in;
    in.image.image = fake<VkImage>(0x10);
    in.before = {VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                 VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, family};
    in.after = {VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT, family};
    return in;
}

ImageOutput upscaledOutput(uint32_t family, VkImageLayout before = VK_IMAGE_LAYOUT_UNDEFINED) {
    ImageOutput out;
    out.image.image = fake<VkImage>(0x20);
    out.before = {before, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0, family};
    out.after = {VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                 VK_ACCESS_SHADER_READ_BIT, family};
    return out;
}

TEST(QueueTransfer, ImagesOnTheGraphicsFamilyTransferBothWays) {
    RecordIO io;
    io.imageInputs = {{"input", sceneInput(kGraphics)}};
    io.imageOutputs = {{"output", upscaledOutput(kGraphics)}};
    OwnershipTransfers t = ownershipTransfers(io, kCompute);
    // The frame goes to the compute family and comes back; the output is only released (its
    // contents before are discarded: UNDEFINED).
    ASSERT_EQ(t.toSession.size(), 1u);
    ASSERT_EQ(t.fromSession.size(), 2u);
    const OwnershipTransfer& in = t.toSession[0];
    EXPECT_EQ(in.image, fake<VkImage>(0x10));
    EXPECT_EQ(in.srcFamily, kGraphics);
    EXPECT_EQ(in.dstFamily, kCompute);
    EXPECT_EQ(in.oldLayout, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    EXPECT_EQ(in.newLayout, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL) << "the layout vkinfer samples in";
    EXPECT_EQ(in.releaseStages, VkPipelineStageFlags(VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT));
    EXPECT_EQ(in.releaseAccess, VkAccessFlags(VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT));
    EXPECT_EQ(in.acquireStages, VkPipelineStageFlags(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT));
    EXPECT_EQ(in.acquireAccess, VkAccessFlags(VK_ACCESS_SHADER_READ_BIT));

    const OwnershipTransfer* back = OwnershipTransfers::find(t.fromSession, fake<VkImage>(0x10));
    ASSERT_NE(back, nullptr);
    EXPECT_EQ(back->srcFamily, kCompute);
    EXPECT_EQ(back->dstFamily, kGraphics);
    EXPECT_EQ(back->oldLayout, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    EXPECT_EQ(back->newLayout, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    EXPECT_EQ(back->acquireStages, VkPipelineStageFlags(VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT));

    const OwnershipTransfer* out = OwnershipTransfers::find(t.fromSession, fake<VkImage>(0x20));
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out->oldLayout, VK_IMAGE_LAYOUT_GENERAL) << "the layout vkinfer writes in";
    EXPECT_EQ(out->newLayout, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    EXPECT_EQ(out->releaseAccess, VkAccessFlags(VK_ACCESS_SHADER_WRITE_BIT));
    EXPECT_EQ(OwnershipTransfers::find(t.toSession, fake<VkImage>(0x20)), nullptr);
}

TEST(QueueTransfer, AKeptOutputAndStorageInputsTransferInTheirLayouts) {
    RecordIO io;
    ImageInput in = sceneInput(kGraphics);
    in.access = ImageAccess::Storage;
    io.imageInputs = {{"input", in}};
    io.imageOutputs = {{"output", upscaledOutput(kGraphics, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL)}};
    OwnershipTransfers t = ownershipTransfers(io, kCompute);
    ASSERT_EQ(t.toSession.size(), 2u);
    EXPECT_EQ(t.toSession[0].newLayout, VK_IMAGE_LAYOUT_GENERAL) << "storage images are read in GENERAL";
    const OwnershipTransfer* out = OwnershipTransfers::find(t.toSession, fake<VkImage>(0x20));
    ASSERT_NE(out, nullptr) << "a 'before' layout other than UNDEFINED keeps the contents: transferred";
    EXPECT_EQ(out->oldLayout, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    EXPECT_EQ(out->newLayout, VK_IMAGE_LAYOUT_GENERAL);
    EXPECT_EQ(out->acquireAccess, VkAccessFlags(VK_ACCESS_SHADER_WRITE_BIT));
}

TEST(QueueTransfer, NoTransferWithoutAnotherFamily) {
    RecordIO io;
    io.imageInputs = {{"input", sceneInput(VK_QUEUE_FAMILY_IGNORED)}};
    io.imageOutputs = {{"output", upscaledOutput(kCompute)}};  // the session's own family
    OwnershipTransfers t = ownershipTransfers(io, kCompute);
    EXPECT_TRUE(t.toSession.empty());
    EXPECT_TRUE(t.fromSession.empty());
    EXPECT_FALSE(interop::onOtherFamily(VK_QUEUE_FAMILY_IGNORED, kCompute));
    EXPECT_FALSE(interop::onOtherFamily(kCompute, kCompute));
    EXPECT_TRUE(interop::onOtherFamily(VK_QUEUE_FAMILY_EXTERNAL, kCompute));
}

TEST(QueueTransfer, BuffersTransferFromTheirOffsetWithTheCopysAccess) {
    RecordIO io;
    BufferInput bi;
    bi.buffer = fake<VkBuffer>(0x30);
    bi.offset = 256;
    bi.before = {VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, kGraphics};
    bi.after = {VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, kGraphics};
    BufferOutput bo;
    bo.buffer = fake<VkBuffer>(0x40);
    bo.before = {VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0, VK_QUEUE_FAMILY_IGNORED};
    bo.after = {VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, kGraphics};
    io.bufferInputs = {{"input", bi}};
    io.bufferOutputs = {{"output", bo}};
    OwnershipTransfers t = ownershipTransfers(io, kCompute);
    ASSERT_EQ(t.toSession.size(), 1u);
    EXPECT_EQ(t.toSession[0].buffer, fake<VkBuffer>(0x30));
    EXPECT_EQ(t.toSession[0].offset, 256u);
    EXPECT_EQ(t.toSession[0].acquireStages, VkPipelineStageFlags(VK_PIPELINE_STAGE_TRANSFER_BIT));
    EXPECT_EQ(t.toSession[0].acquireAccess, VkAccessFlags(VK_ACCESS_TRANSFER_READ_BIT));
    ASSERT_EQ(t.fromSession.size(), 2u);
    const OwnershipTransfer* in = OwnershipTransfers::find(t.fromSession, fake<VkBuffer>(0x30));
    ASSERT_NE(in, nullptr);
    EXPECT_EQ(in->releaseAccess, 0u) << "the copy only read it";
    const OwnershipTransfer* out = OwnershipTransfers::find(t.fromSession, fake<VkBuffer>(0x40));
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out->releaseAccess, VkAccessFlags(VK_ACCESS_TRANSFER_WRITE_BIT));
    EXPECT_EQ(out->acquireAccess, VkAccessFlags(VK_ACCESS_SHADER_READ_BIT));
}

// What recordInference's own barriers see between its acquires and its releases: no state on
// another family, each in the layout its transfer leaves or starts from.
TEST(QueueTransfer, TheSessionsQueueSeesItsOwnUse) {
    RecordIO io;
    io.imageInputs = {{"input", sceneInput(kGraphics)}};
    io.imageOutputs = {{"output", upscaledOutput(kGraphics)}};
    BufferOutput bo;
    bo.buffer = fake<VkBuffer>(0x40);
    bo.before = {VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, kGraphics};
    bo.after = {VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, kGraphics};
    io.bufferOutputs = {{"output", bo}};
    const RecordIO seen = interop::onSessionQueue(io, kCompute);
    const ImageInput& in = seen.imageInputs[0].second;
    EXPECT_EQ(in.before.layout, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL) << "where the acquire left it";
    EXPECT_EQ(in.before.stages, VkPipelineStageFlags(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT));
    EXPECT_EQ(in.before.queueFamily, VK_QUEUE_FAMILY_IGNORED);
    EXPECT_EQ(in.after.layout, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL) << "where the release starts";
    EXPECT_EQ(in.after.stages, VkPipelineStageFlags(VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT));
    EXPECT_EQ(in.after.access, 0u);
    const ImageOutput& out = seen.imageOutputs[0].second;
    EXPECT_EQ(out.before.layout, VK_IMAGE_LAYOUT_UNDEFINED) << "discarded contents, no acquire";
    EXPECT_EQ(out.before.stages, VkPipelineStageFlags(VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT)) << "the graphics stage is not this queue's";
    EXPECT_EQ(out.after.layout, VK_IMAGE_LAYOUT_GENERAL);
    EXPECT_EQ(out.after.queueFamily, VK_QUEUE_FAMILY_IGNORED);
    const BufferOutput& buf = seen.bufferOutputs[0].second;
    EXPECT_EQ(buf.before.stages, VkPipelineStageFlags(VK_PIPELINE_STAGE_TRANSFER_BIT));
    EXPECT_EQ(buf.before.access, VkAccessFlags(VK_ACCESS_TRANSFER_WRITE_BIT));
    EXPECT_EQ(buf.after.stages, VkPipelineStageFlags(VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT));
    // States of the session's own family, or IGNORED, are left as they are.
    RecordIO own;
    own.imageInputs = {{"input", sceneInput(VK_QUEUE_FAMILY_IGNORED)}};
    const RecordIO same = interop::onSessionQueue(own, kCompute);
    EXPECT_EQ(same.imageInputs[0].second.before.layout, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    EXPECT_EQ(same.imageInputs[0].second.before.stages,
              VkPipelineStageFlags(VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT));
}

}  // namespace
}  // namespace vkinfer
