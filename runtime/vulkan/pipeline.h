// One compute pipeline per kernel, created once per model. Kernel ABI:
// set 0, binding 0 = params (storage buffer of uint words), bindings 1..n =
// tensor storage buffers; no push or specialization constants.
#pragma once

#include <cstdint>

#include "runtime/vulkan/device.h"

namespace mgrt {
namespace vk {

// The backend's pipeline handle (backend.h).
struct KernelPipeline : mgrt::Pipeline {
  VkShaderModule module = VK_NULL_HANDLE;
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  uint32_t numBindings = 0;  // tensor bindings, not counting params
  // A stream kernel's set 1 (the recording's counters at binding 0); its
  // layout also has 16 bytes of push constants (backend.h KernelCode::stream).
  VkDescriptorSetLayout streamSetLayout = VK_NULL_HANDLE;
};

// `what` names the kernel in error messages, e.g. "kernel 2 ('conv2d')".
// `cache` (may be null) lets the driver reuse a pipeline compiled before.
mgrt_status createKernelPipeline(Device* d, VkPipelineCache cache, const uint32_t* spirv, size_t words,
                                 uint32_t numBindings, bool stream, const char* what, KernelPipeline* out);
void destroyKernelPipeline(Device* d, KernelPipeline* k);

}  // namespace vk
}  // namespace mgrt
