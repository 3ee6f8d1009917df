// Buffers with dedicated memory, one-shot submissions and uploads.
#pragma once

#include <functional>
#include <vector>

#include "runtime/vulkan/device.h"

namespace mgrt {
namespace vk {

struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;  // host-visible buffers stay mapped
  VkDeviceSize size = 0;
};

enum class MemoryUse {
  DeviceLocal,  // arenas, params: preferred device-local
  HostStaging   // host-visible + coherent (cached if offered), mapped
};

mgrt_status createBuffer(Device* d, VkDeviceSize size, VkBufferUsageFlags usage, MemoryUse use,
                         const char* what, Buffer* out);
void destroyBuffer(Device* d, Buffer* b);

// Records commands with `record` into a fresh command buffer, submits it,
// and waits. For load-time work (uploads, clears), never per run.
mgrt_status runOnce(Device* d, const std::function<void(VkCommandBuffer)>& record,
                    const char* what);

// Submits cmd with fence and waits; maps timeout and device loss to errors.
mgrt_status submitAndWait(Device* d, VkCommandBuffer cmd, VkFence fence, const char* what);

struct Upload {
  const Buffer* dst;
  VkDeviceSize dstOffset;
  const void* data;
  VkDeviceSize size;
};

// Copies host data into device-local buffers through one staging buffer and
// makes it visible to compute shaders and transfers.
mgrt_status uploadBuffers(Device* d, const std::vector<Upload>& uploads, const char* what);

// Fills whole buffers with zeros (session arenas start defined).
mgrt_status zeroBuffers(Device* d, const std::vector<const Buffer*>& buffers, const char* what);

}  // namespace vk
}  // namespace mgrt
