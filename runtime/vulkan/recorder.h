// A session's command buffer, recorded once from a WorkList (backend.h) and
// replayed by every run:
//   copy inputs (staging → arenas) → dispatches → copy outputs (→ staging).
#pragma once

#include <chrono>
#include <cstdint>

#include "runtime/vulkan/memory.h"
#include "runtime/vulkan/pipeline.h"
#include "runtime/vulkan/timeline.h"

namespace mgrt {
namespace vk {

// The backend's recording handle (backend.h).
struct Recording : mgrt::Recording {
  VkDescriptorPool descriptorPool = VK_NULL_HANDLE;
  VkCommandPool commandPool = VK_NULL_HANDLE;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  // Queries around the dispatches: 2 (before the first, after the last),
  // or, profiling, dispatches + 1 (before the first, after each).
  VkQueryPool timestamps = VK_NULL_HANDLE;
  uint32_t queryCount = 0;
  // In-stream waits (WorkList::streamSlots): the counters, zeroed by every
  // run, their descriptor set (set 1 of stream kernels) and the host's copy
  // of the timeout flag, read after each run.
  Buffer streamCounters, streamFlag;
  VkDescriptorSet streamSet = VK_NULL_HANDLE;
  uint32_t streamSlots = 0;
  bool timeEachDispatch = false;
  bool completed = false;                   // a submission finished since the last submit: queries hold results
  // Paced waiting (waitRecording): when the last run was submitted, and how
  // long it took from submit to its fence seen signaled (0: not known yet).
  std::chrono::steady_clock::time_point submittedAt{};
  int64_t lastRunNs = 0;
};

mgrt_status recordWork(Device* d, const WorkList& work, Recording* out);
void destroyRecording(Device* d, Recording* r);
// One replay: submit, then wait. Each reports timeout and device loss.
// The submission waits on / signals the timelines `sync` names (backend.h).
mgrt_status submitRecording(Device* d, Recording* r, const SubmitSync& sync, const char* what);
mgrt_status waitRecording(Device* d, Recording* r, const char* what);
// Dispatch time of the last completed run from timestamps, or -1.
double recordedMilliseconds(Device* d, Recording* r);
// Profiling: every timestamp of the last completed run in ns since the
// first (WorkList::timeEachDispatch).
mgrt_status recordedDispatchTimes(Device* d, Recording* r, std::vector<uint64_t>* ns);

}  // namespace vk
}  // namespace mgrt
