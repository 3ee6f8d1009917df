#include "runtime/vulkan/timeline.h"

#include "runtime/core/status.h"

namespace mgrt {
namespace vk {

mgrt_status createTimeline(Device* d, const char* what, Timeline* out) {
  if (!d->caps.timelines)
    return fail(MGRT_UNSUPPORTED, "%s: timeline semaphores are not enabled on %s", what, d->caps.name.c_str());
  VkSemaphoreTypeCreateInfo type{};
  type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  type.initialValue = 0;
  VkSemaphoreCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  info.pNext = &type;
  const VkResult r = d->fn.vkCreateSemaphore(d->device, &info, nullptr, &out->semaphore);
  if (r != VK_SUCCESS) {
    out->semaphore = VK_NULL_HANDLE;
    return vkFail(d, r, what);
  }
  return MGRT_OK;
}

void destroyTimeline(Device* d, Timeline* t) {
  if (t->semaphore && !t->external) d->fn.vkDestroySemaphore(d->device, t->semaphore, nullptr);
  t->semaphore = VK_NULL_HANDLE;
}

}  // namespace vk
}  // namespace mgrt
