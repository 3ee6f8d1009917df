#include "runtime/vulkan/pipeline.h"

#include <string>
#include <vector>

#include "runtime/core/status.h"

namespace mgrt {
namespace vk {

mgrt_status createKernelPipeline(Device* d, VkPipelineCache cache, const uint32_t* spirv, size_t words,
                                 uint32_t numBindings, bool stream, const char* what, KernelPipeline* out) {
  const std::string ctx = std::string(what);
  out->numBindings = numBindings;

  VkShaderModuleCreateInfo moduleInfo{};
  moduleInfo.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  moduleInfo.codeSize = words * sizeof(uint32_t);
  moduleInfo.pCode = spirv;
  VkResult r = d->fn.vkCreateShaderModule(d->device, &moduleInfo, nullptr, &out->module);
  if (r != VK_SUCCESS) {
    out->module = VK_NULL_HANDLE;
    return vkFail(d, r, (ctx + ": vkCreateShaderModule").c_str());
  }

  std::vector<VkDescriptorSetLayoutBinding> bindings(numBindings + 1);
  for (uint32_t i = 0; i <= numBindings; ++i) {
    bindings[i] = VkDescriptorSetLayoutBinding{};
    bindings[i].binding = i;
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo setInfo{};
  setInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  setInfo.bindingCount = uint32_t(bindings.size());
  setInfo.pBindings = bindings.data();
  r = d->fn.vkCreateDescriptorSetLayout(d->device, &setInfo, nullptr, &out->setLayout);
  if (r != VK_SUCCESS) {
    out->setLayout = VK_NULL_HANDLE;
    return vkFail(d, r, (ctx + ": vkCreateDescriptorSetLayout").c_str());
  }

  // A stream kernel: set 1 = the counters, and the push constants.
  const VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, 16};
  if (stream) {
    setInfo.bindingCount = 1;
    setInfo.pBindings = bindings.data();  // binding 0, a storage buffer
    r = d->fn.vkCreateDescriptorSetLayout(d->device, &setInfo, nullptr, &out->streamSetLayout);
    if (r != VK_SUCCESS) {
      out->streamSetLayout = VK_NULL_HANDLE;
      return vkFail(d, r, (ctx + ": vkCreateDescriptorSetLayout (stream counters)").c_str());
    }
  }
  const VkDescriptorSetLayout setLayouts[2] = {out->setLayout, out->streamSetLayout};
  VkPipelineLayoutCreateInfo layoutInfo{};
  layoutInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layoutInfo.setLayoutCount = stream ? 2 : 1;
  layoutInfo.pSetLayouts = setLayouts;
  layoutInfo.pushConstantRangeCount = stream ? 1 : 0;
  layoutInfo.pPushConstantRanges = &push;
  r = d->fn.vkCreatePipelineLayout(d->device, &layoutInfo, nullptr, &out->layout);
  if (r != VK_SUCCESS) {
    out->layout = VK_NULL_HANDLE;
    return vkFail(d, r, (ctx + ": vkCreatePipelineLayout").c_str());
  }

  VkComputePipelineCreateInfo pipeInfo{};
  pipeInfo.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  pipeInfo.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipeInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipeInfo.stage.module = out->module;
  pipeInfo.stage.pName = "main";
  pipeInfo.layout = out->layout;
  if (d->pipelineStats) pipeInfo.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  r = d->fn.vkCreateComputePipelines(d->device, cache, 1, &pipeInfo, nullptr,
                                     &out->pipeline);
  if (r != VK_SUCCESS) {
    out->pipeline = VK_NULL_HANDLE;
    return vkFail(d, r, (ctx + ": vkCreateComputePipelines").c_str());
  }
  return MGRT_OK;
}

void destroyKernelPipeline(Device* d, KernelPipeline* k) {
  if (k->pipeline) d->fn.vkDestroyPipeline(d->device, k->pipeline, nullptr);
  if (k->layout) d->fn.vkDestroyPipelineLayout(d->device, k->layout, nullptr);
  if (k->setLayout) d->fn.vkDestroyDescriptorSetLayout(d->device, k->setLayout, nullptr);
  if (k->streamSetLayout) d->fn.vkDestroyDescriptorSetLayout(d->device, k->streamSetLayout, nullptr);
  if (k->module) d->fn.vkDestroyShaderModule(d->device, k->module, nullptr);
  *k = KernelPipeline();
}

}  // namespace vk
}  // namespace mgrt
