#include "passes.h"

#include "vk_util.h"

namespace demo {

namespace {
// One triangle covering the viewport (vertices 0..2, no vertex buffer).
const uint32_t kFullscreenVert[] =
#include "fullscreen.vert.inc"
    ;
}  // namespace

PipelineBase::PipelineBase(const VulkanHost& host, VkShaderStageFlags stage,
                           const std::vector<VkDescriptorType>& bindings, uint32_t pushBytes, uint32_t maxSets)
    : host_(host), stage_(stage), bindings_(bindings), pushBytes_(pushBytes) {
    VkDevice dev = host.device;
    std::vector<VkDescriptorSetLayoutBinding> b;
    for (uint32_t i = 0; i < bindings.size(); ++i) b.push_back({i, bindings[i], 1, stage, nullptr});
    VkDescriptorSetLayoutCreateInfo sl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    sl.bindingCount = static_cast<uint32_t>(b.size());
    sl.pBindings = b.data();
    DEMO_VK(vkCreateDescriptorSetLayout(dev, &sl, nullptr, &setLayout_));
    VkPushConstantRange push{stage, 0, pushBytes};
    VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pl.setLayoutCount = 1;
    pl.pSetLayouts = &setLayout_;
    pl.pushConstantRangeCount = pushBytes ? 1 : 0;
    pl.pPushConstantRanges = &push;
    DEMO_VK(vkCreatePipelineLayout(dev, &pl, nullptr, &layout_));
    if (!bindings.empty()) {
        std::vector<VkDescriptorPoolSize> sizes;
        for (VkDescriptorType t : bindings) sizes.push_back({t, maxSets});
        VkDescriptorPoolCreateInfo dp{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
        dp.maxSets = maxSets;
        dp.poolSizeCount = static_cast<uint32_t>(sizes.size());
        dp.pPoolSizes = sizes.data();
        DEMO_VK(vkCreateDescriptorPool(dev, &dp, nullptr, &descriptorPool_));
        VkSamplerCreateInfo si{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
        si.magFilter = si.minFilter = VK_FILTER_NEAREST;
        si.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
        si.addressModeU = si.addressModeV = si.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
        DEMO_VK(vkCreateSampler(dev, &si, nullptr, &sampler_));
    }
}

PipelineBase::~PipelineBase() {
    VkDevice dev = host_.device;
    if (pipeline_) vkDestroyPipeline(dev, pipeline_, nullptr);
    if (sampler_) vkDestroySampler(dev, sampler_, nullptr);
    if (descriptorPool_) vkDestroyDescriptorPool(dev, descriptorPool_, nullptr);
    vkDestroyPipelineLayout(dev, layout_, nullptr);
    vkDestroyDescriptorSetLayout(dev, setLayout_, nullptr);
}

VkDescriptorSet PipelineBase::createSet(const std::vector<PassBinding>& resources) {
    if (resources.size() != bindings_.size()) throw DemoError("createSet: one resource per binding is needed");
    VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = descriptorPool_;
    ai.descriptorSetCount = 1;
    ai.pSetLayouts = &setLayout_;
    VkDescriptorSet set = VK_NULL_HANDLE;
    DEMO_VK(vkAllocateDescriptorSets(host_.device, &ai, &set));
    std::vector<VkDescriptorImageInfo> images(resources.size());
    std::vector<VkDescriptorBufferInfo> buffers(resources.size());
    std::vector<VkWriteDescriptorSet> writes;
    for (uint32_t i = 0; i < resources.size(); ++i) {
        VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w.dstSet = set;
        w.dstBinding = i;
        w.descriptorCount = 1;
        w.descriptorType = bindings_[i];
        if (bindings_[i] == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER) {
            images[i] = {sampler_, resources[i].view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
            w.pImageInfo = &images[i];
        } else {
            buffers[i] = {resources[i].buffer, 0, VK_WHOLE_SIZE};
            w.pBufferInfo = &buffers[i];
        }
        writes.push_back(w);
    }
    vkUpdateDescriptorSets(host_.device, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
    return set;
}

FullscreenPass::FullscreenPass(const VulkanHost& host, const uint32_t* frag, size_t fragBytes,
                               const std::vector<VkDescriptorType>& bindings, uint32_t pushBytes, uint32_t maxSets)
    : PipelineBase(host, VK_SHADER_STAGE_FRAGMENT_BIT, bindings, pushBytes, maxSets) {
    VkDevice dev = host.device;
    VkAttachmentDescription att{};
    att.format = VK_FORMAT_R8G8B8A8_UNORM;
    att.samples = VK_SAMPLE_COUNT_1_BIT;
    att.loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;  // the triangle covers every pixel
    att.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    att.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    att.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    att.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    att.finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription sub{};
    sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    sub.colorAttachmentCount = 1;
    sub.pColorAttachments = &ref;
    // The previous frame in this slot read the target (sampled, copied out) or wrote it:
    // those accesses come before this pass's layout transition and writes.
    VkSubpassDependency dep{};
    dep.srcSubpass = VK_SUBPASS_EXTERNAL;
    dep.dstSubpass = 0;
    dep.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT |
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    dep.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    dep.dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    dep.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_READ_BIT;
    VkRenderPassCreateInfo rp{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    rp.attachmentCount = 1;
    rp.pAttachments = &att;
    rp.subpassCount = 1;
    rp.pSubpasses = &sub;
    rp.dependencyCount = 1;
    rp.pDependencies = &dep;
    DEMO_VK(vkCreateRenderPass(dev, &rp, nullptr, &renderPass_));

    VkShaderModule vert = host.shaderModule(kFullscreenVert, sizeof(kFullscreenVert));
    VkShaderModule fragModule = host.shaderModule(frag, fragBytes);
    VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                                 {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
    stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
    stages[0].module = vert;
    stages[0].pName = "main";
    stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
    stages[1].module = fragModule;
    stages[1].pName = "main";
    VkPipelineVertexInputStateCreateInfo vin{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo ia{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    ia.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    VkPipelineViewportStateCreateInfo vp{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    vp.viewportCount = 1;
    vp.scissorCount = 1;
    VkPipelineRasterizationStateCreateInfo rs{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    rs.polygonMode = VK_POLYGON_MODE_FILL;
    rs.cullMode = VK_CULL_MODE_NONE;
    rs.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
    rs.lineWidth = 1.0f;
    VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    VkPipelineColorBlendAttachmentState blend{};
    blend.colorWriteMask =
        VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
    VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    cb.attachmentCount = 1;
    cb.pAttachments = &blend;
    VkDynamicState dyn[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo ds{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
    ds.dynamicStateCount = 2;
    ds.pDynamicStates = dyn;
    VkGraphicsPipelineCreateInfo gp{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
    gp.stageCount = 2;
    gp.pStages = stages;
    gp.pVertexInputState = &vin;
    gp.pInputAssemblyState = &ia;
    gp.pViewportState = &vp;
    gp.pRasterizationState = &rs;
    gp.pMultisampleState = &ms;
    gp.pColorBlendState = &cb;
    gp.pDynamicState = &ds;
    gp.layout = layout_;
    gp.renderPass = renderPass_;
    VkResult r = vkCreateGraphicsPipelines(dev, VK_NULL_HANDLE, 1, &gp, nullptr, &pipeline_);
    vkDestroyShaderModule(dev, vert, nullptr);
    vkDestroyShaderModule(dev, fragModule, nullptr);
    if (r != VK_SUCCESS) throwVk("vkCreateGraphicsPipelines", r);
}

FullscreenPass::~FullscreenPass() {
    for (auto& [view, fb] : framebuffers_) vkDestroyFramebuffer(host_.device, fb, nullptr);
    vkDestroyRenderPass(host_.device, renderPass_, nullptr);
}

void FullscreenPass::record(VkCommandBuffer cmd, const GpuImage& target, const void* push, VkDescriptorSet set) {
    VkFramebuffer& fb = framebuffers_[target.view];
    if (!fb) {
        VkFramebufferCreateInfo fi{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
        fi.renderPass = renderPass_;
        fi.attachmentCount = 1;
        fi.pAttachments = &target.view;
        fi.width = target.width;
        fi.height = target.height;
        fi.layers = 1;
        DEMO_VK(vkCreateFramebuffer(host_.device, &fi, nullptr, &fb));
    }
    VkRenderPassBeginInfo bi{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    bi.renderPass = renderPass_;
    bi.framebuffer = fb;
    bi.renderArea = {{0, 0}, {target.width, target.height}};
    vkCmdBeginRenderPass(cmd, &bi, VK_SUBPASS_CONTENTS_INLINE);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_);
    VkViewport viewport{0, 0, static_cast<float>(target.width), static_cast<float>(target.height), 0, 1};
    VkRect2D scissor{{0, 0}, {target.width, target.height}};
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &scissor);
    if (pushBytes_) vkCmdPushConstants(cmd, layout_, stage_, 0, pushBytes_, push);
    if (set) vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, layout_, 0, 1, &set, 0, nullptr);
    vkCmdDraw(cmd, 3, 1, 0, 0);
    vkCmdEndRenderPass(cmd);
}

ComputePass::ComputePass(const VulkanHost& host, const uint32_t* comp, size_t compBytes,
                         const std::vector<VkDescriptorType>& bindings, uint32_t pushBytes, uint32_t maxSets)
    : PipelineBase(host, VK_SHADER_STAGE_COMPUTE_BIT, bindings, pushBytes, maxSets) {
    VkShaderModule module = host.shaderModule(comp, compBytes);
    VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    ci.stage.module = module;
    ci.stage.pName = "main";
    ci.layout = layout_;
    VkResult r = vkCreateComputePipelines(host.device, VK_NULL_HANDLE, 1, &ci, nullptr, &pipeline_);
    vkDestroyShaderModule(host.device, module, nullptr);
    if (r != VK_SUCCESS) throwVk("vkCreateComputePipelines", r);
}

void ComputePass::record(VkCommandBuffer cmd, uint32_t groupsX, uint32_t groupsY, const void* push,
                         VkDescriptorSet set) {
    // Binds its own compute state: after vkinfer's recordInference the compute bindings are
    // vkinfer's (interop.h), so a host dispatch always rebinds.
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
    if (pushBytes_) vkCmdPushConstants(cmd, layout_, stage_, 0, pushBytes_, push);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set, 0, nullptr);
    vkCmdDispatch(cmd, groupsX, groupsY, 1);
}

}  // namespace demo
