#include "runtime/vulkan/download.h"

#include <cstring>

namespace mgrt {
namespace vk {

mgrt_status downloadBuffers(Device* d, const std::vector<Download>& downloads, const char* what) {
  VkDeviceSize total = 0;
  for (const Download& x : downloads) total += (x.size + 15) / 16 * 16;
  if (total == 0) return MGRT_OK;
  Buffer staging;
  mgrt_status s = createBuffer(d, total, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::HostStaging, what, &staging);
  if (s != MGRT_OK) return s;
  std::vector<VkDeviceSize> offsets;
  VkDeviceSize at = 0;
  for (const Download& x : downloads) {
    offsets.push_back(at);
    at += (x.size + 15) / 16 * 16;
  }
  s = runOnce(d, [&](VkCommandBuffer cmd) {
    VkMemoryBarrier before{};
    before.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    before.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    before.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    d->fn.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before,
                               0, nullptr, 0, nullptr);
    for (size_t i = 0; i < downloads.size(); ++i) {
      if (downloads[i].size == 0) continue;
      const VkBufferCopy region{downloads[i].srcOffset, offsets[i], downloads[i].size};
      d->fn.vkCmdCopyBuffer(cmd, cast(downloads[i].src)->buffer, staging.buffer, 1, &region);
    }
    VkMemoryBarrier after{};
    after.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    after.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    after.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    d->fn.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &after, 0,
                               nullptr, 0, nullptr);
  }, what);
  if (s == MGRT_OK)
    for (size_t i = 0; i < downloads.size(); ++i)
      std::memcpy(downloads[i].data, static_cast<const uint8_t*>(staging.mapped) + offsets[i], size_t(downloads[i].size));
  if (!d->lost) destroyBuffer(d, &staging);
  return s;
}

}  // namespace vk
}  // namespace mgrt
