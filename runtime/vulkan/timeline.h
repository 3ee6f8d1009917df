// Timeline semaphores (backend.h's Timeline): a session's own, signalled
// by each of its submissions with an increasing value, or an app's that a
// submission waits on (mgrt_vulkan.h). Need caps.timelines (Vulkan 1.2
// timelineSemaphore, enabled in features.cpp).
#pragma once

#include "runtime/vulkan/device.h"

namespace mgrt {
namespace vk {

struct Timeline : mgrt::Timeline {
  VkSemaphore semaphore = VK_NULL_HANDLE;
  bool external = false;  // the app's (mgrt_session_vulkan_wait): never destroyed here
};

// A timeline semaphore at value 0.
mgrt_status createTimeline(Device* d, const char* what, Timeline* out);
// Destroys the semaphore unless it is external; the struct stays for delete.
void destroyTimeline(Device* d, Timeline* t);

}  // namespace vk
}  // namespace mgrt
