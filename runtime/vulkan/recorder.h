// A session's command buffer, recorded once from a WorkList (backend.h) and
// replayed by every run:
//   copy inputs (staging → arenas) → dispatches → copy outputs (→ staging).
#pragma once

#include "runtime/vulkan/memory.h"
#include "runtime/vulkan/pipeline.h"

namespace mgrt {
namespace vk {

// The backend's recording handle (backend.h).
struct Recording : mgrt::Recording {
  VkDescriptorPool descriptorPool = VK_NULL_HANDLE;
  VkCommandPool commandPool = VK_NULL_HANDLE;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkQueryPool timestamps = VK_NULL_HANDLE;  // 2 queries around the dispatches
  bool completed = false;                   // a submission finished since the last submit: queries hold results
};

mgrt_status recordWork(Device* d, const WorkList& work, Recording* out);
void destroyRecording(Device* d, Recording* r);
// One replay: submit, then wait. Each reports timeout and device loss.
mgrt_status submitRecording(Device* d, Recording* r, const char* what);
mgrt_status waitRecording(Device* d, Recording* r, const char* what);
// Dispatch time of the last completed run from timestamps, or -1.
double recordedMilliseconds(Device* d, Recording* r);

}  // namespace vk
}  // namespace mgrt
