// One compute pipeline per kernel, created once per model. Kernel ABI:
// set 0, binding 0 = params (storage buffer of uint words), bindings 1..n =
// tensor storage buffers; no push or specialization constants.
#pragma once

#include <cstdint>
#include <vector>

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

// MGRT_PIPELINE_STATS=1 (Device::pipelineStats): one line per executable of
// `pipeline` on stderr with the driver's statistics (on NVIDIA: registers,
// shared memory, ...), e.g. "mgrt: pipeline stats: kernel 3
// ('attention_tiled24') [subgroup]: Register Count=128, ..."
// (pipeline_stats.cpp). Where it says how a kernel is built, not how it runs.
void printPipelineStats(Device* d, VkPipeline pipeline, const char* what, const char* variant);
// Turns the statistics on when the env asks and the device can (`offered`:
// it lists VK_KHR_pipeline_executable_properties): enables the extension on
// `enable` (features.cpp's chain).
void enablePipelineStats(Device* d, bool offered, FeatureChain* enable);

}  // namespace vk
}  // namespace mgrt
