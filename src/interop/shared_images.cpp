// Shared images: what a device can share (per format, tiling, usage and handle type), images
// whose memory vkinfer exports or imports, DRM format modifier choice, and the copy of a
// renderer's optimal-tiling image into a linear one.
#include <unistd.h>

#include <algorithm>
#include <vulkan/vulkan.hpp>  // vk::to_string for messages

#include "core/error.h"
#include "interop/barriers.h"
#include "interop/capabilities.h"
#include "runtime/context_impl.h"
#include "runtime/device_guard.h"
#include "vk/check.h"
#include "vk/instance.h"
#include "vk/names.h"
#include "vkinfer/interop.h"

namespace vkinfer {

namespace {

constexpr VkImageSubresourceRange kColor{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};

VkExternalMemoryHandleTypeFlagBits vkHandleType(MemoryHandleType t) {
    return t == MemoryHandleType::DmaBuf ? VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT
                                         : VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
}

std::string describe(const SharedImageDesc& d) {
    return fmt::format("{} image, {} tiling, usage {}, as {}", vk::formatName(d.format),
                       ::vk::to_string(static_cast<::vk::ImageTiling>(d.tiling)),
                       ::vk::to_string(static_cast<::vk::ImageUsageFlags>(d.usage)),
                       d.handleType == MemoryHandleType::DmaBuf ? "dma-buf fd" : "opaque fd");
}

// The extension a handle type needs on the device, when it is not enabled there.
const char* missingExtension(const vk::Device& dev, MemoryHandleType type) {
    if (!dev.enabled().externalMemoryFd) return VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
    if (type == MemoryHandleType::DmaBuf && !dev.enabled().dmaBuf) return VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME;
    return nullptr;
}

bool isShared(VkFormat f) {
    const auto& all = sharedImageFormats();
    return std::find(all.begin(), all.end(), f) != all.end();
}

void checkDesc(const SharedImageDesc& d, const char* what) {
    if (!isShared(d.format))
        fail(ErrorCode::Unsupported, "{}: {} is not a shared image format (sharedImageFormats())", what,
             vk::formatName(d.format));
    if (d.width == 0 || d.height == 0)
        fail(ErrorCode::InvalidArgument, "{}: the image is {}x{}; give its width and height", what, d.width, d.height);
    if (d.tiling != VK_IMAGE_TILING_OPTIMAL && d.tiling != VK_IMAGE_TILING_LINEAR)
        fail(ErrorCode::Unsupported, "{}: only OPTIMAL and LINEAR tiling are shared (DRM format modifiers: "
                                     "chooseDrmFormatModifier)",
             what);
}

VkImage createImage(VkDevice dev, const SharedImageDesc& d) {
    VkExternalMemoryImageCreateInfo ext{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO};
    ext.handleTypes = vkHandleType(d.handleType);
    VkImageCreateInfo ci{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ci.pNext = &ext;
    ci.imageType = VK_IMAGE_TYPE_2D;
    ci.format = d.format;
    ci.extent = {d.width, d.height, 1};
    ci.mipLevels = 1;
    ci.arrayLayers = 1;
    ci.samples = VK_SAMPLE_COUNT_1_BIT;
    ci.tiling = d.tiling;
    ci.usage = d.usage;
    ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkImage image;
    VK_CHECK(vkCreateImage(dev, &ci, nullptr, &image));
    return image;
}

}  // namespace

const std::vector<VkFormat>& sharedImageFormats() {
    static const std::vector<VkFormat> formats = {
        VK_FORMAT_R8G8B8A8_UNORM,      VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_B8G8R8A8_SRGB,
        VK_FORMAT_R16G16B16A16_SFLOAT, VK_FORMAT_R16_SFLOAT,    VK_FORMAT_R32_SFLOAT,
    };
    return formats;
}

// The format features `usage` needs.
VkFormatFeatureFlags featuresFor(VkImageUsageFlags usage) {
    VkFormatFeatureFlags f = 0;
    if (usage & VK_IMAGE_USAGE_SAMPLED_BIT) f |= VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
    if (usage & VK_IMAGE_USAGE_STORAGE_BIT) f |= VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT;
    if (usage & VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT) f |= VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT;
    if (usage & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) f |= VK_FORMAT_FEATURE_TRANSFER_SRC_BIT;
    if (usage & VK_IMAGE_USAGE_TRANSFER_DST_BIT) f |= VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
    return f;
}

ImageSharingSupport describeImageSharing(const SharedImageDesc& desc, VkResult formatResult,
                                         VkExternalMemoryFeatureFlags features, VkExtent3D maxExtent,
                                         VkFormatFeatureFlags tilingFeatures) {
    ImageSharingSupport s;
    s.desc = desc;
    if (formatResult == VK_SUCCESS) {
        s.exportable = (features & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) != 0;
        s.importable = (features & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT) != 0;
        s.dedicatedOnly = (features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT) != 0;
        s.maxWidth = maxExtent.width;
        s.maxHeight = maxExtent.height;
    }
    if (formatResult != VK_SUCCESS)
        s.refusal = fmt::format("the device does not support a {} ({})", describe(desc),
                                formatResult == VK_ERROR_FORMAT_NOT_SUPPORTED
                                    ? "vkGetPhysicalDeviceImageFormatProperties2: VK_ERROR_FORMAT_NOT_SUPPORTED"
                                    : vk::resultName(formatResult));
    else if (const VkFormatFeatureFlags missing = featuresFor(desc.usage) & ~tilingFeatures) {
        s.refusal = fmt::format("the device's format features for a {} lack {} (vkGetPhysicalDeviceFormatProperties)",
                                describe(desc), ::vk::to_string(static_cast<::vk::FormatFeatureFlags>(missing)));
        s.exportable = s.importable = false;
    } else if (!s.exportable && !s.importable)
        s.refusal = fmt::format("the device can neither export nor import a {}", describe(desc));
    else if ((desc.width > s.maxWidth || desc.height > s.maxHeight)) {
        s.refusal = fmt::format("a {} is at most {}x{}; {}x{} asked", describe(desc), s.maxWidth, s.maxHeight,
                                desc.width, desc.height);
        s.exportable = s.importable = false;
    }
    return s;
}

ImageSharingSupport queryImageSharing(const Context& context, const SharedImageDesc& desc) {
    const vk::Device& dev = *context.impl()->device;
    if (const char* ext = missingExtension(dev, desc.handleType)) {
        ImageSharingSupport s;
        s.desc = desc;
        s.refusal = fmt::format("cannot share a {}: {} is not enabled on device '{}'", describe(desc), ext, dev.info().name);
        return s;
    }
    VkPhysicalDeviceExternalImageFormatInfo ext{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO};
    ext.handleType = vkHandleType(desc.handleType);
    VkPhysicalDeviceImageFormatInfo2 info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2};
    info.pNext = &ext;
    info.format = desc.format;
    info.type = VK_IMAGE_TYPE_2D;
    info.tiling = desc.tiling;
    info.usage = desc.usage;
    VkExternalImageFormatProperties extProps{VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES};
    VkImageFormatProperties2 props{VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2};
    props.pNext = &extProps;
    VkResult r = vkGetPhysicalDeviceImageFormatProperties2(dev.physical(), &info, &props);
    VkFormatProperties formatProps{};
    vkGetPhysicalDeviceFormatProperties(dev.physical(), desc.format, &formatProps);
    const VkFormatFeatureFlags tilingFeatures = desc.tiling == VK_IMAGE_TILING_LINEAR    ? formatProps.linearTilingFeatures
                                                : desc.tiling == VK_IMAGE_TILING_OPTIMAL ? formatProps.optimalTilingFeatures
                                                                                         : ~VkFormatFeatureFlags{0};
    return describeImageSharing(desc, r, extProps.externalMemoryProperties.externalMemoryFeatures,
                                props.imageFormatProperties.maxExtent, tilingFeatures);
}

namespace interop {

std::vector<ImageSharingSupport> imageSharingTable(const Context& context) {
    constexpr VkImageUsageFlags kCopy = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    const vk::Device& dev = *context.impl()->device;
    std::vector<ImageSharingSupport> table;
    for (MemoryHandleType type : {MemoryHandleType::OpaqueFd, MemoryHandleType::DmaBuf}) {
        if (missingExtension(dev, type)) continue;
        for (VkFormat format : sharedImageFormats())
            for (VkImageTiling tiling : {VK_IMAGE_TILING_OPTIMAL, VK_IMAGE_TILING_LINEAR})
                for (VkImageUsageFlags usage : {VK_IMAGE_USAGE_SAMPLED_BIT | kCopy, VK_IMAGE_USAGE_STORAGE_BIT | kCopy}) {
                    SharedImageDesc d;
                    d.format = format;
                    d.tiling = tiling;
                    d.usage = usage;
                    d.handleType = type;
                    table.push_back(queryImageSharing(context, d));
                }
    }
    return table;
}

}  // namespace interop

// --- DRM format modifiers ------------------------------------------------------------------

std::optional<uint64_t> chooseDrmFormatModifier(const std::vector<DrmModifierDescription>& exporter,
                                                const std::vector<DrmModifierDescription>& importer,
                                                VkFormatFeatureFlags needed) {
    constexpr uint64_t kLinear = 0;  // DRM_FORMAT_MOD_LINEAR
    auto usable = [&](const DrmModifierDescription& m) {
        if (m.planeCount != 1 || (m.features & needed) != needed) return false;
        if (importer.empty()) return true;
        return std::any_of(importer.begin(), importer.end(), [&](const DrmModifierDescription& i) {
            return i.modifier == m.modifier && i.planeCount == 1 && (i.features & needed) == needed;
        });
    };
    for (const auto& m : exporter)
        if (m.modifier != kLinear && usable(m)) return m.modifier;
    for (const auto& m : exporter)
        if (m.modifier == kLinear && usable(m)) return m.modifier;
    return std::nullopt;
}

Result<std::vector<DrmModifierDescription>> queryDrmFormatModifiers(const Context& context, VkFormat format) {
    return guardResult<std::vector<DrmModifierDescription>>([&] {
        const vk::Device& dev = *context.impl()->device;
        if (!vk::hasDeviceExtension(dev.physical(), VK_EXT_IMAGE_DRM_FORMAT_MODIFIER_EXTENSION_NAME))
            fail(ErrorCode::Unsupported, "device '{}' does not offer {}: share linear images (opaque fd) instead",
                 dev.info().name, VK_EXT_IMAGE_DRM_FORMAT_MODIFIER_EXTENSION_NAME);
        VkDrmFormatModifierPropertiesListEXT list{VK_STRUCTURE_TYPE_DRM_FORMAT_MODIFIER_PROPERTIES_LIST_EXT};
        VkFormatProperties2 props{VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_2};
        props.pNext = &list;
        vkGetPhysicalDeviceFormatProperties2(dev.physical(), format, &props);
        std::vector<VkDrmFormatModifierPropertiesEXT> mods(list.drmFormatModifierCount);
        list.pDrmFormatModifierProperties = mods.data();
        vkGetPhysicalDeviceFormatProperties2(dev.physical(), format, &props);
        std::vector<DrmModifierDescription> out;
        for (uint32_t i = 0; i < list.drmFormatModifierCount; ++i)
            out.push_back({mods[i].drmFormatModifier, mods[i].drmFormatModifierPlaneCount,
                           mods[i].drmFormatModifierTilingFeatures});
        return out;
    });
}

// --- SharedImage -------------------------------------------------------------------------------

struct SharedImage::Impl {
    explicit Impl(Context c) : context(std::move(c)) {}
    Context context;  // keeps the device alive
    SharedImageDesc desc;
    VkImage image = VK_NULL_HANDLE;
    VkImageView view = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize allocationSize = 0;
    uint32_t memoryTypeIndex = 0;
    VkSubresourceLayout layout{};

    ~Impl() {
        VkDevice dev = context.impl()->device->handle();
        if (view) vkDestroyImageView(dev, view, nullptr);
        if (image) vkDestroyImage(dev, image, nullptr);
        if (memory) vkFreeMemory(dev, memory, nullptr);  // closes an imported fd
    }

    // Binds the memory at `offset`, creates the view and reads the linear layout.
    void finish(VkDeviceSize offset) {
        VkDevice dev = context.impl()->device->handle();
        VK_CHECK(vkBindImageMemory(dev, image, memory, offset));
        VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
        // The view only for what vkinfer does with it (the shaders read and write it as a
        // storage or sampled image): a view inherits the image's whole usage otherwise, and a
        // renderer's COLOR_ATTACHMENT on a linear image whose format lacks that feature for
        // linear tiling (R8G8B8A8 and R32 on NVIDIA's driver) makes the view invalid
        // (VUID-VkImageViewCreateInfo-usage-02276).
        VkImageViewUsageCreateInfo viewUsage{VK_STRUCTURE_TYPE_IMAGE_VIEW_USAGE_CREATE_INFO};
        viewUsage.usage = desc.usage & (VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT);
        if (viewUsage.usage != 0) vi.pNext = &viewUsage;
        vi.image = image;
        vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
        vi.format = desc.format;
        vi.subresourceRange = kColor;
        VK_CHECK(vkCreateImageView(dev, &vi, nullptr, &view));
        if (desc.tiling == VK_IMAGE_TILING_LINEAR) {
            VkImageSubresource sub{VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
            vkGetImageSubresourceLayout(dev, image, &sub, &layout);
        }
    }
};

SharedImage::SharedImage() = default;
SharedImage::~SharedImage() = default;
SharedImage::SharedImage(SharedImage&&) noexcept = default;
SharedImage& SharedImage::operator=(SharedImage&&) noexcept = default;
SharedImage::SharedImage(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HostImage SharedImage::image() const {
    if (!impl_) return {};
    return {impl_->image, impl_->view, impl_->desc.format, impl_->desc.width, impl_->desc.height};
}
const SharedImageDesc& SharedImage::desc() const {
    static const SharedImageDesc empty{};
    return impl_ ? impl_->desc : empty;
}
VkSubresourceLayout SharedImage::linearLayout() const { return impl_ ? impl_->layout : VkSubresourceLayout{}; }

Result<SharedImage> createSharedImage(const Context& context, const SharedImageDesc& desc) {
    return detail::guardDeviceResult<SharedImage>(*context.impl(), "createSharedImage", [&] {
        checkDesc(desc, "createSharedImage");
        ImageSharingSupport support = queryImageSharing(context, desc);
        if (!support.exportable)
            fail(ErrorCode::Unsupported, "createSharedImage: {}",
                 support.refusal.empty() ? "the device cannot export a " + describe(desc) : support.refusal);
        const vk::Device& dev = *context.impl()->device;
        auto impl = std::make_unique<SharedImage::Impl>(context);
        impl->desc = desc;
        impl->image = createImage(dev.handle(), desc);
        VkMemoryRequirements req;
        vkGetImageMemoryRequirements(dev.handle(), impl->image, &req);
        VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
        dedicated.image = impl->image;
        VkExportMemoryAllocateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
        exportInfo.pNext = &dedicated;
        exportInfo.handleTypes = vkHandleType(desc.handleType);
        VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        ai.pNext = &exportInfo;
        ai.allocationSize = req.size;
        ai.memoryTypeIndex = dev.findMemoryType(req.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        VK_CHECK(vkAllocateMemory(dev.handle(), &ai, nullptr, &impl->memory));
        impl->allocationSize = req.size;
        impl->memoryTypeIndex = ai.memoryTypeIndex;
        impl->finish(0);
        return SharedImage(std::move(impl));
    });
}

Result<ExportedMemory> exportImageMemory(const SharedImage& image) {
    if (!image.impl()) return Status(ErrorCode::InvalidArgument, "exportImageMemory: the image is empty");
    const SharedImage::Impl& im = *image.impl();
    return detail::guardDeviceResult<ExportedMemory>(*im.context.impl(), "exportImageMemory", [&] {
        const vk::Device& dev = *im.context.impl()->device;
        auto getFd = reinterpret_cast<PFN_vkGetMemoryFdKHR>(vkGetDeviceProcAddr(dev.handle(), "vkGetMemoryFdKHR"));
        if (!getFd) fail(ErrorCode::Unsupported, "vkGetMemoryFdKHR is not available");
        VkMemoryGetFdInfoKHR gi{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
        gi.memory = im.memory;
        gi.handleType = vkHandleType(im.desc.handleType);
        ExportedMemory m;
        VK_CHECK(getFd(dev.handle(), &gi, &m.fd));
        m.type = im.desc.handleType;
        m.allocationSize = im.allocationSize;
        m.offset = 0;
        m.bytes = im.allocationSize;
        VkMemoryRequirements req;
        vkGetImageMemoryRequirements(dev.handle(), im.image, &req);
        m.memoryTypeBits = req.memoryTypeBits;
        m.dedicated = true;
        m.deviceUuid = im.context.impl()->info.deviceUuid;
        m.memoryTypeIndex = im.memoryTypeIndex;
        return m;
    });
}

Result<SharedImage> importSharedImage(const Context& context, const SharedImageDesc& desc, const ImportedMemory& memory) {
    return detail::guardDeviceResult<SharedImage>(*context.impl(), "importSharedImage", [&] {
        checkDesc(desc, "importSharedImage");
        if (memory.type != desc.handleType)
            fail(ErrorCode::InvalidArgument, "importSharedImage: the memory is a {} but the image is described as a {}",
                 memory.type == MemoryHandleType::DmaBuf ? "dma-buf" : "opaque fd",
                 desc.handleType == MemoryHandleType::DmaBuf ? "dma-buf" : "opaque fd");
        ImageSharingSupport support = queryImageSharing(context, desc);
        if (!support.importable)
            fail(ErrorCode::Unsupported, "importSharedImage: {}",
                 support.refusal.empty() ? "the device cannot import a " + describe(desc) : support.refusal);
        if (support.dedicatedOnly && !memory.dedicated)
            fail(ErrorCode::InvalidArgument, "importSharedImage: a {} can only be shared as a dedicated allocation",
                 describe(desc));
        if (memory.fd < 0) fail(ErrorCode::InvalidArgument, "importSharedImage: invalid fd {}", memory.fd);
        const vk::Device& dev = *context.impl()->device;
        auto impl = std::make_unique<SharedImage::Impl>(context);
        impl->desc = desc;
        impl->image = createImage(dev.handle(), desc);
        VkMemoryRequirements req;
        vkGetImageMemoryRequirements(dev.handle(), impl->image, &req);
        if (memory.offset + req.size > memory.allocationSize || memory.offset % req.alignment)
            fail(ErrorCode::InvalidArgument,
                 "importSharedImage: the image needs {} bytes at an offset aligned to {}; the memory has {} bytes and "
                 "the image is at {}",
                 req.size, req.alignment, memory.allocationSize, memory.offset);
        uint32_t typeIndex;
        if (memory.memoryTypeIndex >= 0) {
            if (memory.memoryTypeIndex >= 32 || !(req.memoryTypeBits & (1u << memory.memoryTypeIndex)))
                fail(ErrorCode::InvalidArgument, "importSharedImage: memory type {} is not among the image's (bits {:#x})",
                     memory.memoryTypeIndex, req.memoryTypeBits);
            typeIndex = static_cast<uint32_t>(memory.memoryTypeIndex);
        } else {
            typeIndex = dev.findMemoryType(req.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        }
        VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
        dedicated.image = impl->image;
        VkImportMemoryFdInfoKHR import{VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR};
        import.pNext = memory.dedicated ? &dedicated : nullptr;
        import.handleType = vkHandleType(memory.type);
        import.fd = memory.fd;
        VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        ai.pNext = &import;
        ai.allocationSize = memory.allocationSize;
        ai.memoryTypeIndex = typeIndex;
        VK_CHECK(vkAllocateMemory(dev.handle(), &ai, nullptr, &impl->memory));  // on failure the fd is the caller's
        impl->allocationSize = memory.allocationSize;
        impl->memoryTypeIndex = typeIndex;
        // The fd is Vulkan's from here; a failure below frees the memory, which closes it.
        impl->finish(memory.offset);
        return SharedImage(std::move(impl));
    });
}

// --- optimal -> linear ------------------------------------------------------------------------

Status recordCopyToLinear(VkCommandBuffer cmd, uint32_t queueFamily, const LinearCopy& c) {
    return guardStatus([&] {
        if (!cmd) fail(ErrorCode::InvalidArgument, "recordCopyToLinear: the command buffer is null");
        if (!c.source.image || !c.linear.image) fail(ErrorCode::InvalidArgument, "recordCopyToLinear: an image is null");
        if (c.source.format != c.linear.format || c.source.width != c.linear.width ||
            c.source.height != c.linear.height)
            fail(ErrorCode::InvalidArgument, "recordCopyToLinear: the source is a {}x{} {}, the linear image a {}x{} {}",
                 c.source.width, c.source.height, vk::formatName(c.source.format), c.linear.width, c.linear.height,
                 vk::formatName(c.linear.format));
        if (c.sourceBefore.layout == VK_IMAGE_LAYOUT_UNDEFINED)
            fail(ErrorCode::InvalidArgument, "recordCopyToLinear: the source's 'before' layout is UNDEFINED, so its "
                                             "contents would be discarded");
        // The renderer's writes before the copy's reads; the linear image's old contents are
        // discarded (UNDEFINED), after its last use on this queue (`linearBefore`; the previous
        // frame's inference on another device is ordered by the host's semaphore or fence).
        interop::recordImageBarrier(cmd, c.source.image, c.sourceBefore.layout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                    interop::stagesOr(c.sourceBefore.stages, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT),
                                    c.sourceBefore.access, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
        interop::recordImageBarrier(cmd, c.linear.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                    interop::stagesOr(c.linearBefore.stages, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT),
                                    c.linearBefore.access, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
        VkImageCopy region{};
        region.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.extent = {c.source.width, c.source.height, 1};
        vkCmdCopyImage(cmd, c.source.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, c.linear.image,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
        VkImageLayout sourceAfter =
            c.sourceAfter.layout == VK_IMAGE_LAYOUT_UNDEFINED ? VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL : c.sourceAfter.layout;
        interop::recordImageBarrier(cmd, c.source.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, sourceAfter,
                                    VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                                    interop::stagesOr(c.sourceAfter.stages, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT),
                                    c.sourceAfter.access);
        // The linear image: to its layout for the consumer, released to its family when named
        // (the consumer acquires it: ImageState::before's queueFamily on its side).
        const bool release = c.linearAfter.queueFamily != VK_QUEUE_FAMILY_IGNORED && c.linearAfter.queueFamily != queueFamily;
        VkImageLayout linearAfter =
            c.linearAfter.layout == VK_IMAGE_LAYOUT_UNDEFINED ? VK_IMAGE_LAYOUT_GENERAL : c.linearAfter.layout;
        interop::recordImageBarrier(cmd, c.linear.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, linearAfter,
                                    VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                                    release ? VkPipelineStageFlags(VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT)
                                            : interop::stagesOr(c.linearAfter.stages, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT),
                                    release ? 0 : c.linearAfter.access,
                                    release ? queueFamily : uint32_t(VK_QUEUE_FAMILY_IGNORED),
                                    release ? c.linearAfter.queueFamily : uint32_t(VK_QUEUE_FAMILY_IGNORED));
    });
}

}  // namespace vkinfer
