// recordInference: pre-processing, inference and post-processing recorded into the host's
// command buffer (interleaved execution), with the barriers and image layout transitions at
// the boundaries the host declared.
#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "interop/barriers.h"
#include "interop/queue_transfer.h"
#include "interop/recording.h"
#include "kernels/families/image_to_tensor.h"
#include "kernels/families/tensor_to_image.h"
#include "runtime/device_guard.h"
#include "runtime/model_data.h"
#include "runtime/session_impl.h"
#include "vk/check.h"
#include "vk/names.h"
#include "vkinfer/interop.h"

namespace vkinfer {

namespace {

using rt::FrameSlot;
using rt::PreparedPlan;

std::string formatName(VkFormat f) { return vk::formatName(f); }

// What an image's texels hold: UNORM ones are clamped on write; sRGB ones are decoded by the
// sampler and re-encoded by image_to_tensor (SRGB_ENCODE); RGBA8/RGBA16F are the formats a
// storage image is declared with where writes without a format are not enabled.
bool isSrgb(VkFormat f) { return f == VK_FORMAT_R8G8B8A8_SRGB || f == VK_FORMAT_B8G8R8A8_SRGB; }
bool isUnorm(VkFormat f) { return f == VK_FORMAT_R8G8B8A8_UNORM || f == VK_FORMAT_B8G8R8A8_UNORM || isSrgb(f); }
bool hasFormatQualifier(VkFormat f) { return f == VK_FORMAT_R8G8B8A8_UNORM || f == VK_FORMAT_R16G16B16A16_SFLOAT; }

void requireFormat(const detail::ContextImpl& ctx, const std::string& who, VkFormat f, VkFormatFeatureFlags need,
                   const char* needName) {
    const auto& formats = sharedImageFormats();
    if (std::find(formats.begin(), formats.end(), f) == formats.end())
        fail(ErrorCode::Unsupported, "{}: image format {} is not supported (R8G8B8A8_UNORM/_SRGB, B8G8R8A8_UNORM/_SRGB, "
                                     "R16G16B16A16_SFLOAT, R16_SFLOAT, R32_SFLOAT)",
             who, vk::formatName(f));
    VkFormatProperties props;
    vkGetPhysicalDeviceFormatProperties(ctx.device->physical(), f, &props);
    if (!(props.optimalTilingFeatures & need) && !(props.linearTilingFeatures & need))
        fail(ErrorCode::Unsupported, "{}: device '{}' does not support {} images as {}", who, ctx.info.name,
             formatName(f), needName);
}

size_t indexOf(const std::vector<TensorDesc>& descs, const std::string& name, const char* what) {
    for (size_t i = 0; i < descs.size(); ++i)
        if (descs[i].name == name) return i;
    std::string names;
    for (const auto& d : descs) names += (names.empty() ? "'" : ", '") + d.name + "'";
    fail(ErrorCode::InvalidArgument, "the model has no {} named '{}' (its {}s: {})", what, name, what, names);
}

// A descriptor set of the slot's bridge pool for `key`, with the layout of `pipeline`.
VkDescriptorSet bridgeSet(detail::ContextImpl& ctx, FrameSlot& slot, const std::string& key, const vk::Pipeline& pipeline) {
    auto it = slot.bridgeSets.find(key);
    if (it != slot.bridgeSets.end()) return it->second;
    VkDevice dev = ctx.device->handle();
    if (!slot.bridgePool) {
        VkDescriptorPoolSize sizes[] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 32},
                                        {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 32},
                                        {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 32}};
        VkDescriptorPoolCreateInfo pi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
        pi.maxSets = 64;
        pi.poolSizeCount = 3;
        pi.pPoolSizes = sizes;
        VK_CHECK(vkCreateDescriptorPool(dev, &pi, nullptr, &slot.bridgePool));
    }
    VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = slot.bridgePool;
    ai.descriptorSetCount = 1;
    ai.pSetLayouts = &pipeline.setLayout;
    VkDescriptorSet set;
    VK_CHECK(vkAllocateDescriptorSets(dev, &ai, &set));
    slot.bridgeSets[key] = set;
    return set;
}

// Binds `set` with (tensor buffer at `tensorBinding`, image at the other binding) and dispatches
// 16 x 16 invocations per workgroup over push.W x push.H; `push` is the kernel's block
// (kernels::image_to_tensor::Push or kernels::tensor_to_image::Push).
template <class Push>
void dispatchBridge(VkCommandBuffer cmd, detail::ContextImpl& ctx, const vk::Pipeline& p, VkDescriptorSet set,
                    uint32_t tensorBinding, VkBuffer tensor, VkDeviceSize tensorBytes, VkDescriptorType imageType,
                    VkImageView view, VkImageLayout layout, const Push& push) {
    VkDescriptorBufferInfo bi{tensor, 0, std::max<VkDeviceSize>(tensorBytes, 4)};
    VkDescriptorImageInfo ii{VK_NULL_HANDLE, view, layout};
    VkWriteDescriptorSet w[2] = {{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}, {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}};
    w[0].dstSet = set;
    w[0].dstBinding = tensorBinding;
    w[0].descriptorCount = 1;
    w[0].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    w[0].pBufferInfo = &bi;
    w[1].dstSet = set;
    w[1].dstBinding = 1 - tensorBinding;
    w[1].descriptorCount = 1;
    w[1].descriptorType = imageType;
    w[1].pImageInfo = &ii;
    vkUpdateDescriptorSets(ctx.device->handle(), 2, w, 0, nullptr);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &set, 0, nullptr);
    vkCmdPushConstants(cmd, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
    vkCmdDispatch(cmd, (push.W + 15) / 16, (push.H + 15) / 16, 1);
}

// The input shape an image gives: [1, C, H, W] with the model's channel count (3 if dynamic).
std::vector<int64_t> imageInputShape(const TensorDesc& d, const HostImage& img) {
    if (d.rankKnown && d.shape.size() != 4)
        fail(ErrorCode::InvalidArgument, "input '{}' has rank {}; an image feeds a [1, C, H, W] input", d.name,
             d.shape.size());
    int64_t c = d.rankKnown && d.shape[1] > 0 ? d.shape[1] : 3;
    if (c > 4) fail(ErrorCode::InvalidArgument, "input '{}' has {} channels; an image gives at most 4", d.name, c);
    return {1, c, static_cast<int64_t>(img.height), static_cast<int64_t>(img.width)};
}

}  // namespace

namespace interop {

RecordingTarget resolveRecording(detail::SessionImpl& s, const RecordIO& io, const char* who) {
    const Model& model = s.model;
    if (io.frame >= s.options.framesInFlight)
        fail(ErrorCode::InvalidArgument, "{}: frame {} is out of range (framesInFlight = {})", who, io.frame,
             s.options.framesInFlight);

    // Shapes: images define theirs, then io.shapes, then staged tensors, then the declarations.
    InputShapes given = io.shapes;
    auto isGiven = [&](const std::string& name) {
        return std::any_of(given.begin(), given.end(), [&](const auto& g) { return g.first == name; });
    };
    for (const auto& [name, in] : io.imageInputs) {
        const TensorDesc& d = model.inputs()[indexOf(model.inputs(), name, "input")];
        given.erase(std::remove_if(given.begin(), given.end(), [&, &name = name](const auto& g) { return g.first == name; }),
                    given.end());
        given.emplace_back(name, imageInputShape(d, in.image));
    }
    std::vector<bool> defaulted(model.inputs().size());
    for (size_t i = 0; i < model.inputs().size(); ++i) {
        const TensorDesc& d = model.inputs()[i];
        if (isGiven(d.name)) continue;
        if (const auto& staged = s.staged[io.frame][i]) {
            given.emplace_back(d.name, staged->shape());
            continue;
        }
        // Staged earlier and still held by the slot's staging (see "Inputs" below).
        if (PreparedPlan* last = s.framePlan[io.frame]) {
            const plan::CompiledPlan& lp = last->plan();
            if (last->slot(io.frame).stagingHoldsInput[i]) {
                given.emplace_back(d.name, lp.graph.values[lp.graph.inputs[i].value].shape);
                continue;
            }
        }
        // Neither given nor staged: an input with a default takes it (planned as a constant),
        // unless the host feeds it from its buffer or from memory this slot imported.
        if (const Tensor* def = model.data()->defaultOf(i)) {
            bool hostFed = std::any_of(io.bufferInputs.begin(), io.bufferInputs.end(),
                                       [&](const auto& b) { return b.first == d.name; });
            hostFed = hostFed || s.importedInputPlan(io.frame, i) != nullptr;
            if (!hostFed) {
                defaulted[i] = true;
                given.emplace_back(d.name, def->shape());
                continue;
            }
        }
        bool dynamic = !d.rankKnown || std::any_of(d.shape.begin(), d.shape.end(), [](int64_t x) { return x < 0; });
        if (dynamic)
            fail(ErrorCode::InvalidArgument,
                 "{}: input '{}' has a dynamic shape ({}); give its shape in RecordIO::shapes, feed it "
                 "from an image (RecordIO::imageInputs), or stage a tensor for it (Session::stageInput)",
                 who, d.name, d.rankKnown ? shapeToString(d.shape) : std::string("rank unknown"));
    }
    PreparedPlan& plan = s.planFor(unwrap(model.resolveShapes(given)), nullptr, {}, defaulted);
    return {plan, plan.slot(io.frame)};
}

void recordInto(detail::SessionImpl& s, PreparedPlan& plan, FrameSlot& slot, VkCommandBuffer cmd,
                const RecordIO& hostIO, const RecordingStamps& stamps) {
    // Resources the host uses on another queue family (asynchronous compute): vkinfer's
    // halves of their ownership transfers, and the states as this queue sees them, which
    // everything below records its barriers from (interop/queue_transfer.h).
    const interop::OwnershipTransfers transfers = interop::ownershipTransfers(hostIO, s.queue().family);
    const RecordIO io = interop::onSessionQueue(hostIO, s.queue().family);
    detail::ContextImpl& ctx = s.ctx();
    const Model& model = s.model;
    const plan::CompiledPlan& cp = plan.plan();

    // Check everything before recording anything.
    for (const auto& [name, in] : io.imageInputs) {
        requireFormat(ctx, "image input '" + name + "'", in.image.format,
                      in.access == ImageAccess::Sampled ? VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT
                                                        : VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT,
                      in.access == ImageAccess::Sampled ? "sampled images" : "storage images");
        if (in.access == ImageAccess::Storage && !hasFormatQualifier(in.image.format))
            fail(ErrorCode::Unsupported, "image input '{}': read {} images as ImageAccess::Sampled", name,
                 formatName(in.image.format));
        if (in.before.layout == VK_IMAGE_LAYOUT_UNDEFINED)
            fail(ErrorCode::InvalidArgument, "image input '{}': 'before' layout is UNDEFINED, so its contents "
                                             "would be discarded; give the layout the host left it in",
                 name);
        if (!in.image.view) fail(ErrorCode::InvalidArgument, "image input '{}' has no image view", name);
    }
    for (const auto& [name, out] : io.imageOutputs) {
        size_t k = indexOf(model.outputs(), name, "output");
        const auto& v = cp.graph.values[cp.graph.outputs[k]];
        requireFormat(ctx, "image output '" + name + "'", out.image.format, VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT,
                      "storage images");
        if (v.shape.size() != 4 || v.shape[0] != 1 || v.shape[1] > 4 || v.shape[2] != out.image.height ||
            v.shape[3] != out.image.width)
            fail(ErrorCode::InvalidArgument, "image output '{}': the output is {} but the image is {}x{} (W x H); "
                                             "an image takes a [1, C<=4, H, W] output of its size",
                 name, shapeToString(v.shape), out.image.width, out.image.height);
        if (!hasFormatQualifier(out.image.format))
            ctx.device->require(vk::Feature::StorageImageWriteWithoutFormat,
                                "writing " + formatName(out.image.format) + " output images");
        if (!out.image.view) fail(ErrorCode::InvalidArgument, "image output '{}' has no image view", name);
    }
    for (const auto& [name, b] : io.bufferInputs) {
        indexOf(model.inputs(), name, "input");
        if (!b.buffer) fail(ErrorCode::InvalidArgument, "buffer input '{}' is null", name);
    }
    for (const auto& [name, b] : io.bufferOutputs) {
        indexOf(model.outputs(), name, "output");
        if (!b.buffer) fail(ErrorCode::InvalidArgument, "buffer output '{}' is null", name);
    }

    // Staged inputs must match this recording's plan. Checked here, before anything is
    // recorded: failing halfway would leave the weight upload (and barriers) in a command
    // buffer the host discards.
    std::vector<char> fedByHost(model.inputs().size(), 0);
    for (const auto& [name, in] : io.imageInputs) fedByHost[indexOf(model.inputs(), name, "input")] = 1;
    for (const auto& [name, b] : io.bufferInputs) fedByHost[indexOf(model.inputs(), name, "input")] = 1;
    for (size_t i = 0; i < model.inputs().size(); ++i) {
        const auto& staged = s.staged[io.frame][i];
        int alloc = cp.inputAlloc(static_cast<int>(i));
        if (staged && staged->byteSize() != static_cast<size_t>(cp.allocations[alloc].tensorBytes))
            fail(ErrorCode::InvalidArgument, "staged input '{}' has shape {} but this recording's plan expects {}",
                 model.inputs()[i].name, shapeToString(staged->shape()),
                 shapeToString(cp.graph.values[cp.graph.inputs[i].value].shape));
    }

    // Earlier work on this queue that used the frame's buffers (the host's previous frame
    // for this slot, another slot's weight upload, imported memory written by a transfer)
    // against everything below.
    rt::memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                          VK_ACCESS_TRANSFER_WRITE_BIT);
    plan.recordWeightUpload(cmd, slot);
    for (const auto& t : transfers.toSession) interop::recordAcquire(cmd, t);
    auto stamp = [&](uint32_t k, VkPipelineStageFlagBits stage) {
        if (stamps.phases) vkCmdWriteTimestamp(cmd, stage, stamps.phases, stamps.firstPhase + k);
    };
    stamp(0, VK_PIPELINE_STAGE_TRANSFER_BIT);

    // Inputs. Staged data stays in the slot's staging and is copied by every recording of
    // the slot until replaced, so that a recording the host discards loses nothing. Into
    // imported memory it is copied once (later the host writes that memory itself).
    for (size_t i = 0; i < model.inputs().size(); ++i) {
        auto& staged = s.staged[io.frame][i];
        int alloc = cp.inputAlloc(static_cast<int>(i));  // size checked above
        bool fresh = static_cast<bool>(staged);
        if (fresh) {
            std::memcpy(slot.inputStaging[i].mapped(), staged->data(), staged->byteSize());
            staged.reset();
            slot.stagingHoldsInput[i] = !slot.imported[alloc];
        }
        if (fedByHost[i]) slot.stagingHoldsInput[i] = 0;
        if (!fresh && !slot.stagingHoldsInput[i]) continue;
        VkBufferCopy copy{0, 0, static_cast<VkDeviceSize>(cp.allocations[alloc].tensorBytes)};
        if (copy.size) vkCmdCopyBuffer(cmd, slot.inputStaging[i].handle(), plan.buffer(slot, alloc), 1, &copy);
    }
    for (const auto& [name, b] : io.bufferInputs) {
        size_t i = indexOf(model.inputs(), name, "input");
        int alloc = cp.inputAlloc(static_cast<int>(i));
        VkDeviceSize bytes = static_cast<VkDeviceSize>(cp.allocations[alloc].tensorBytes);
        recordBufferBarrier(cmd, b.buffer, b.offset, bytes, stagesOr(b.before.stages, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT),
                            b.before.access, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
        VkBufferCopy copy{b.offset, 0, bytes};
        if (bytes) vkCmdCopyBuffer(cmd, b.buffer, plan.buffer(slot, alloc), 1, &copy);
        // The host's next use of its buffer ("after") waits for this read. It was ignored,
        // leaving the write-after-read to barriers that happen to follow for other reasons
        // (they reach compute and transfer only, not e.g. a fragment-shader write).
        recordBufferBarrier(cmd, b.buffer, b.offset, bytes, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                            stagesOr(b.after.stages, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT), b.after.access);
    }
    for (const auto& [name, in] : io.imageInputs) {
        size_t i = indexOf(model.inputs(), name, "input");
        int alloc = cp.inputAlloc(static_cast<int>(i));
        bool sampled = in.access == ImageAccess::Sampled;
        VkImageLayout readLayout = sampled ? VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL : VK_IMAGE_LAYOUT_GENERAL;
        recordImageBarrier(cmd, in.image.image, in.before.layout, readLayout,
                           stagesOr(in.before.stages, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT), in.before.access,
                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
        using From = kernels::image_to_tensor::From;
        const kernels::KernelId kernel = kernels::image_to_tensor::variant(
            sampled                                            ? From::sampled
            : in.image.format == VK_FORMAT_R16G16B16A16_SFLOAT ? From::rgba16f
                                                               : From::rgba8);
        VkDescriptorType imageType =
            sampled ? VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER : VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
        // Specialization constants 3, 4, ...: no activation (3-5), then the kernel's own.
        std::vector<uint32_t> spec(kernels::image_to_tensor::kSrgbEncode - 2, 0);
        spec[kernels::image_to_tensor::kSrgbEncode - 3] = sampled && isSrgb(in.image.format) ? 1u : 0u;
        vk::Pipeline p =
            ctx.pipelines->get(kernel, {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, imageType}, {16, 16, 1}, spec);
        const auto& shape = cp.graph.values[cp.graph.inputs[i].value].shape;
        kernels::image_to_tensor::Push push{};
        push.W = in.image.width;
        push.H = in.image.height;
        push.C = static_cast<uint32_t>(shape[1]);
        std::copy(in.mean.begin(), in.mean.end(), push.mean);
        std::copy(in.scale.begin(), in.scale.end(), push.scale);
        dispatchBridge(cmd, ctx, p, bridgeSet(ctx, slot, "in:" + name + ":" + std::string(kernels::kernelName(kernel)), p), 0, plan.buffer(slot, alloc),
                       static_cast<VkDeviceSize>(cp.allocations[alloc].size), imageType, in.image.view, readLayout,
                       push);
    }

    // Inference.
    rt::memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      VK_ACCESS_SHADER_READ_BIT);
    stamp(1, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
    plan.recordDispatches(cmd, slot, stamps.perDispatch);
    stamp(2, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
    rt::memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT);

    // Outputs.
    std::vector<char> routed(model.outputs().size(), 0);
    for (const auto& [name, out] : io.imageOutputs) {
        size_t k = indexOf(model.outputs(), name, "output");
        routed[k] = 1;
        int alloc = cp.outputAlloc(static_cast<int>(k));
        recordImageBarrier(cmd, out.image.image, out.before.layout, VK_IMAGE_LAYOUT_GENERAL,
                           stagesOr(out.before.stages, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT), out.before.access,
                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
        using To = kernels::tensor_to_image::To;
        const kernels::KernelId kernel = kernels::tensor_to_image::variant(
            ctx.device->enabled().has(vk::Feature::StorageImageWriteWithoutFormat) ? To::none
            : out.image.format == VK_FORMAT_R16G16B16A16_SFLOAT                  ? To::rgba16f
                                                                                 : To::rgba8);
        // Specialization constants 3, 4, ...: no activation (3-5), then the kernel's own.
        std::vector<uint32_t> spec(kernels::tensor_to_image::kClampUnorm - 2, 0);
        spec[kernels::tensor_to_image::kClampUnorm - 3] = isUnorm(out.image.format) ? 1u : 0u;
        vk::Pipeline p = ctx.pipelines->get(kernel, {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER},
                                            {16, 16, 1}, spec);
        const auto& shape = cp.graph.values[cp.graph.outputs[k]].shape;
        kernels::tensor_to_image::Push push{};
        push.W = out.image.width;
        push.H = out.image.height;
        push.C = static_cast<uint32_t>(shape[1]);
        std::copy(out.scale.begin(), out.scale.end(), push.scale);
        std::copy(out.bias.begin(), out.bias.end(), push.bias);
        dispatchBridge(cmd, ctx, p, bridgeSet(ctx, slot, "out:" + name + ":" + std::string(kernels::kernelName(kernel)), p), 1, plan.buffer(slot, alloc),
                       static_cast<VkDeviceSize>(cp.allocations[alloc].size), VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                       out.image.view, VK_IMAGE_LAYOUT_GENERAL, push);
        // "after" UNDEFINED leaves the image in GENERAL, as for inputs (UNDEFINED is not a
        // valid newLayout).
        recordImageBarrier(cmd, out.image.image, VK_IMAGE_LAYOUT_GENERAL,
                           out.after.layout == VK_IMAGE_LAYOUT_UNDEFINED ? VK_IMAGE_LAYOUT_GENERAL : out.after.layout,
                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                           stagesOr(out.after.stages, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT), out.after.access);
    }
    for (const auto& [name, b] : io.bufferOutputs) {
        size_t k = indexOf(model.outputs(), name, "output");
        routed[k] = 1;
        int alloc = cp.outputAlloc(static_cast<int>(k));
        VkDeviceSize bytes = static_cast<VkDeviceSize>(cp.allocations[alloc].tensorBytes);
        recordBufferBarrier(cmd, b.buffer, b.offset, bytes, stagesOr(b.before.stages, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT),
                            b.before.access, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
        VkBufferCopy copy{0, b.offset, bytes};
        if (bytes) vkCmdCopyBuffer(cmd, plan.buffer(slot, alloc), b.buffer, 1, &copy);
        recordBufferBarrier(cmd, b.buffer, b.offset, bytes, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                            stagesOr(b.after.stages, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT), b.after.access);
    }
    bool readback = false;
    for (size_t k = 0; k < model.outputs().size(); ++k) {
        slot.outputStaged[k] = !routed[k];
        if (routed[k]) continue;
        int alloc = cp.outputAlloc(static_cast<int>(k));
        VkBufferCopy copy{0, 0, static_cast<VkDeviceSize>(cp.allocations[alloc].size)};
        if (copy.size) vkCmdCopyBuffer(cmd, plan.buffer(slot, alloc), slot.outputStaging[k].handle(), 1, &copy);
        readback = true;
    }
    stamp(3, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
    // The host reads the readback staging and the index-status slots (Session::checkFrame).
    if (readback || cp.statusAlloc >= 0)
        rt::memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                          VK_ACCESS_HOST_READ_BIT);
    // Input images go back to the state the host needs next.
    for (const auto& [name, in] : io.imageInputs) {
        VkImageLayout readLayout =
            in.access == ImageAccess::Sampled ? VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL : VK_IMAGE_LAYOUT_GENERAL;
        recordImageBarrier(cmd, in.image.image, readLayout,
                           in.after.layout == VK_IMAGE_LAYOUT_UNDEFINED ? readLayout : in.after.layout,
                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                           stagesOr(in.after.stages, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT), in.after.access);
    }
    for (const auto& t : transfers.fromSession) interop::recordRelease(cmd, t);
    s.framePlan[io.frame] = &plan;
    plan.pinned = true;  // the host may be executing this recording for a while
}

}  // namespace interop

Status recordInference(Session& session, VkCommandBuffer cmd, const RecordIO& io) {
    if (!session.impl()) return Status(ErrorCode::InvalidArgument, "recordInference: the session is empty");
    return detail::guardDevice(*session.impl()->context.impl(), "recordInference", [&] {
        detail::SessionImpl& s = *session.impl();
        if (!cmd) fail(ErrorCode::InvalidArgument, "recordInference: the command buffer is null");
        interop::RecordingTarget target = interop::resolveRecording(s, io, "recordInference");
        target.plan.waitIdle(target.slot);  // only the engine's own submissions; the host fences its own
        interop::recordInto(s, target.plan, target.slot, cmd, io, {io.timestampPool, io.firstTimestamp});
    });
}

}  // namespace vkinfer
