// A session's command buffer, recorded once and replayed by every run:
//   copy inputs (staging → arenas) → dispatches → copy outputs (→ staging).
#pragma once

#include <vector>

#include "runtime/vulkan/pipeline.h"

namespace mgrt {
namespace vk {

struct BufferSlice {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0, size = 0;
};

struct CopyPlan {
  BufferSlice src;
  VkBuffer dst = VK_NULL_HANDLE;
  VkDeviceSize dstOffset = 0;
};

struct DispatchPlan {
  const KernelPipeline* kernel = nullptr;
  BufferSlice params;                 // binding 0
  std::vector<BufferSlice> bindings;  // bindings 1..n
  uint32_t groups[3] = {1, 1, 1};
  bool barrier = true;                // compute → compute barrier before it
};

struct SessionPlan {
  std::vector<CopyPlan> inputCopies;
  std::vector<DispatchPlan> dispatches;
  std::vector<CopyPlan> outputCopies;
};

struct Recording {
  VkDescriptorPool descriptorPool = VK_NULL_HANDLE;
  VkCommandPool commandPool = VK_NULL_HANDLE;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkQueryPool timestamps = VK_NULL_HANDLE;  // 2 queries around the dispatches
};

mgrt_status recordSession(Device* d, const SessionPlan& plan, Recording* out);
void destroyRecording(Device* d, Recording* r);
// Submits and waits; *gpuMs = dispatch time from timestamps or -1.
mgrt_status replay(Device* d, Recording* r, double* gpuMs);

}  // namespace vk
}  // namespace mgrt
