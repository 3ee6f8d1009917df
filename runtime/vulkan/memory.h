// Buffers with dedicated memory, one-shot submissions and uploads.
#pragma once

#include <functional>
#include <vector>

#include "runtime/vulkan/device.h"

namespace mgrt {
namespace vk {

// The backend's buffer handle (backend.h): one VkBuffer with its own memory.
struct Buffer : mgrt::Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;  // host-visible buffers stay mapped
  VkDeviceSize size = 0;
  bool external = false;   // an app's buffer (mgrt_session_bind_vulkan_buffer): never destroyed here
};

inline Buffer* cast(mgrt::Buffer* b) { return static_cast<Buffer*>(b); }

// MemoryUse::DeviceLocal: preferred device-local; HostStaging: host-visible +
// coherent (cached if offered), mapped; HostUpload: host-visible + coherent
// + device-local where offered and the allocation succeeds (a small BAR
// heap may refuse it), else as HostStaging; mapped.
mgrt_status createBuffer(Device* d, VkDeviceSize size, VkBufferUsageFlags usage, MemoryUse use,
                         const char* what, Buffer* out);
void destroyBuffer(Device* d, Buffer* b);

// Records commands with `record` into a fresh command buffer, submits it,
// and waits. For load-time work (uploads, clears), never per run.
mgrt_status runOnce(Device* d, const std::function<void(VkCommandBuffer)>& record,
                    const char* what);

// Submits cmd, signalling fence (reset first); then waits for the fence.
// Map timeout and device loss to errors; submitAndWait does both.
// queueSubmit is submitCommands for a prepared VkSubmitInfo (semaphores).
mgrt_status queueSubmit(Device* d, const VkSubmitInfo& submit, VkFence fence, const char* what);
mgrt_status submitCommands(Device* d, VkCommandBuffer cmd, VkFence fence, const char* what);
mgrt_status waitFence(Device* d, VkFence fence, const char* what);
mgrt_status submitAndWait(Device* d, VkCommandBuffer cmd, VkFence fence, const char* what);

// Copies host data into device-local buffers through one staging buffer and
// makes it visible to compute shaders and transfers.
mgrt_status uploadBuffers(Device* d, const std::vector<Upload>& uploads, const char* what);

// Fills whole buffers with zeros (session arenas start defined).
mgrt_status zeroBuffers(Device* d, const std::vector<mgrt::Buffer*>& buffers, const char* what);

}  // namespace vk
}  // namespace mgrt
