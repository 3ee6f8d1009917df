#include "runtime/vulkan/memory.h"

#include <cstdlib>
#include <cstring>

#include "runtime/core/status.h"

namespace mgrt {
namespace vk {
namespace {

int findMemoryType(const VkPhysicalDeviceMemoryProperties& mp, uint32_t typeBits,
                   VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) {
  int fallback = -1;
  for (uint32_t i = 0; i < mp.memoryTypeCount; ++i) {
    if (!(typeBits & (1u << i))) continue;
    const VkMemoryPropertyFlags f = mp.memoryTypes[i].propertyFlags;
    if ((f & required) != required) continue;
    if ((f & preferred) == preferred) return int(i);
    if (fallback < 0) fallback = int(i);
  }
  return fallback;
}

// How long a run may take before we call the device hung. Generous because
// a CPU implementation (lavapipe) runs big models slowly; env overrides.
uint64_t fenceTimeoutNs() {
  const char* env = std::getenv("MGRT_TIMEOUT_S");
  const long s = env ? std::strtol(env, nullptr, 10) : 0;
  return uint64_t(s > 0 ? s : 300) * 1000000000ull;
}

// Full memory dependency from transfers to everything a later command
// (transfer or compute shader) does with the same memory.
void transferToAllBarrier(Device* d, VkCommandBuffer cmd) {
  VkMemoryBarrier b{};
  b.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  d->fn.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                             VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                             0, 1, &b, 0, nullptr, 0, nullptr);
}

}  // namespace

mgrt_status createBuffer(Device* d, VkDeviceSize size, VkBufferUsageFlags usage, MemoryUse use,
                         const char* what, Buffer* out) {
  if (size == 0) size = 16;  // Vulkan forbids empty buffers
  if (size > d->caps.limits.maxAllocationSize)
    return fail(MGRT_OUT_OF_MEMORY, "%s: %llu bytes exceed the device's largest allocation (%llu)",
                what, (unsigned long long)size, (unsigned long long)d->caps.limits.maxAllocationSize);
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = size;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult r = d->fn.vkCreateBuffer(d->device, &info, nullptr, &out->buffer);
  if (r != VK_SUCCESS) {
    out->buffer = VK_NULL_HANDLE;
    return vkFail(d, r, what);
  }
  out->size = size;

  VkMemoryRequirements req;
  d->fn.vkGetBufferMemoryRequirements(d->device, out->buffer, &req);
  constexpr VkMemoryPropertyFlags kHost = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const int type = use == MemoryUse::DeviceLocal
                       ? findMemoryType(d->memProps, req.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)
                       : findMemoryType(d->memProps, req.memoryTypeBits, kHost, VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  if (type < 0) return fail(MGRT_UNSUPPORTED, "%s: no suitable memory type", what);

  VkMemoryAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc.allocationSize = req.size;
  // HostUpload: device memory the host maps first, where offered; `type`
  // if that is refused (a small BAR heap full).
  const int bar = use == MemoryUse::HostUpload
                      ? findMemoryType(d->memProps, req.memoryTypeBits, kHost | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0)
                      : -1;
  alloc.memoryTypeIndex = uint32_t(bar >= 0 ? bar : type);
  r = d->fn.vkAllocateMemory(d->device, &alloc, nullptr, &out->memory);
  if (r != VK_SUCCESS && bar >= 0 && bar != type) {
    alloc.memoryTypeIndex = uint32_t(type);
    r = d->fn.vkAllocateMemory(d->device, &alloc, nullptr, &out->memory);
  }
  if (r != VK_SUCCESS) {
    out->memory = VK_NULL_HANDLE;
    return vkFail(d, r, what);
  }
  r = d->fn.vkBindBufferMemory(d->device, out->buffer, out->memory, 0);
  if (r != VK_SUCCESS) return vkFail(d, r, what);
  if (use != MemoryUse::DeviceLocal) {
    r = d->fn.vkMapMemory(d->device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped);
    if (r != VK_SUCCESS) {
      out->mapped = nullptr;
      return vkFail(d, r, what);
    }
    std::memset(out->mapped, 0, size_t(size));
  }
  return MGRT_OK;
}

void destroyBuffer(Device* d, Buffer* b) {
  if (b->external) {
    *b = Buffer();
    return;
  }
  if (b->buffer) d->fn.vkDestroyBuffer(d->device, b->buffer, nullptr);
  if (b->memory) d->fn.vkFreeMemory(d->device, b->memory, nullptr);  // also unmaps
  *b = Buffer();
}

mgrt_status queueSubmit(Device* d, const VkSubmitInfo& submit, VkFence fence, const char* what) {
  if (d->lost) return fail(MGRT_DEVICE_ERROR, "%s: the GPU device was lost earlier", what);
  VkResult r = d->fn.vkResetFences(d->device, 1, &fence);
  if (r != VK_SUCCESS) return vkFail(d, r, what);
  {
    std::lock_guard<std::mutex> lock(d->queueMutex);
    r = d->fn.vkQueueSubmit(d->queue, 1, &submit, fence);
  }
  if (r != VK_SUCCESS) return vkFail(d, r, what);
  return MGRT_OK;
}

mgrt_status submitCommands(Device* d, VkCommandBuffer cmd, VkFence fence, const char* what) {
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  return queueSubmit(d, submit, fence, what);
}

mgrt_status waitFence(Device* d, VkFence fence, const char* what) {
  if (d->lost) return fail(MGRT_DEVICE_ERROR, "%s: the GPU device was lost earlier", what);
  const VkResult r = d->fn.vkWaitForFences(d->device, 1, &fence, VK_TRUE, fenceTimeoutNs());
  if (r == VK_TIMEOUT) {
    d->lost = true;  // work is still in flight; nothing on this device is safe to reuse
    return fail(MGRT_DEVICE_ERROR, "%s: the GPU did not finish within %llu s (MGRT_TIMEOUT_S)",
                what, (unsigned long long)(fenceTimeoutNs() / 1000000000ull));
  }
  if (r != VK_SUCCESS) return vkFail(d, r, what);
  return MGRT_OK;
}

mgrt_status submitAndWait(Device* d, VkCommandBuffer cmd, VkFence fence, const char* what) {
  MGRT_TRY(submitCommands(d, cmd, fence, what));
  return waitFence(d, fence, what);
}

mgrt_status runOnce(Device* d, const std::function<void(VkCommandBuffer)>& record,
                    const char* what) {
  VkCommandPool pool = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  mgrt_status s = MGRT_OK;
  VkResult r;
  do {
    VkCommandPoolCreateInfo poolInfo{};
    poolInfo.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    poolInfo.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    poolInfo.queueFamilyIndex = d->queueFamily;
    if ((r = d->fn.vkCreateCommandPool(d->device, &poolInfo, nullptr, &pool)) != VK_SUCCESS) {
      pool = VK_NULL_HANDLE;
      s = vkFail(d, r, what);
      break;
    }
    VkCommandBufferAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    alloc.commandPool = pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    if ((r = d->fn.vkAllocateCommandBuffers(d->device, &alloc, &cmd)) != VK_SUCCESS) {
      s = vkFail(d, r, what);
      break;
    }
    VkFenceCreateInfo fenceInfo{};
    fenceInfo.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    if ((r = d->fn.vkCreateFence(d->device, &fenceInfo, nullptr, &fence)) != VK_SUCCESS) {
      fence = VK_NULL_HANDLE;
      s = vkFail(d, r, what);
      break;
    }
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    if ((r = d->fn.vkBeginCommandBuffer(cmd, &begin)) != VK_SUCCESS) {
      s = vkFail(d, r, what);
      break;
    }
    record(cmd);
    if ((r = d->fn.vkEndCommandBuffer(cmd)) != VK_SUCCESS) {
      s = vkFail(d, r, what);
      break;
    }
    s = submitAndWait(d, cmd, fence, what);
  } while (false);
  // After a timeout the work may still run: leak rather than free in-use objects.
  if (d->lost) return s;
  if (fence) d->fn.vkDestroyFence(d->device, fence, nullptr);
  if (pool) d->fn.vkDestroyCommandPool(d->device, pool, nullptr);
  return s;
}

mgrt_status uploadBuffers(Device* d, const std::vector<Upload>& uploads, const char* what) {
  VkDeviceSize total = 0;
  for (const Upload& u : uploads) total += (u.size + 15) / 16 * 16;
  if (total == 0) return MGRT_OK;
  Buffer staging;
  mgrt_status s = createBuffer(d, total, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryUse::HostStaging,
                               what, &staging);
  if (s == MGRT_OK) {
    VkDeviceSize at = 0;
    std::vector<VkDeviceSize> offsets;
    for (const Upload& u : uploads) {
      std::memcpy(static_cast<uint8_t*>(staging.mapped) + at, u.data, size_t(u.size));
      offsets.push_back(at);
      at += (u.size + 15) / 16 * 16;
    }
    s = runOnce(d, [&](VkCommandBuffer cmd) {
      for (size_t i = 0; i < uploads.size(); ++i) {
        if (uploads[i].size == 0) continue;
        const VkBufferCopy region{offsets[i], uploads[i].dstOffset, uploads[i].size};
        d->fn.vkCmdCopyBuffer(cmd, staging.buffer, cast(uploads[i].dst)->buffer, 1, &region);
      }
      transferToAllBarrier(d, cmd);
    }, what);
  }
  if (!d->lost) destroyBuffer(d, &staging);
  return s;
}

mgrt_status zeroBuffers(Device* d, const std::vector<mgrt::Buffer*>& buffers, const char* what) {
  if (buffers.empty()) return MGRT_OK;
  return runOnce(d, [&](VkCommandBuffer cmd) {
    for (mgrt::Buffer* b : buffers) d->fn.vkCmdFillBuffer(cmd, cast(b)->buffer, 0, VK_WHOLE_SIZE, 0);
    transferToAllBarrier(d, cmd);
  }, what);
}

}  // namespace vk
}  // namespace mgrt
