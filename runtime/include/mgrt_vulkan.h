/* libmgrt on a Vulkan device the app owns (a renderer sharing its GPU with
 * the model): include after, or instead of, mgrt.h in code that has the
 * Vulkan headers. Everything else (models, sessions, state) is mgrt.h's.
 *
 *   mgrt_vulkan_device dev = {instance, physical, device, queue, family,
 *                             VK_API_VERSION_1_2, MGRT_FEATURE_STORAGE16};
 *   mgrt_context* ctx;
 *   mgrt_context_create_vulkan(&dev, &ctx);
 *
 * The app keeps every handle alive until mgrt_context_destroy returns;
 * mgrt destroys none of them. mgrt submits to `queue` (a queue of
 * `queue_family`, which must have compute) from inside mgrt_session_run and
 * the state calls: Vulkan requires that no two threads submit to one queue
 * at the same time, so the app does not submit to that queue while an mgrt
 * call runs on another thread (or gives mgrt a queue of its own). mgrt
 * cannot query what the app enabled on its device: `enabled_features` says
 * which MGRT_FEATURE_* the app enabled (kernels may use those; 0 keeps every
 * kernel on its portable variant), and the app should enable
 * robustBufferAccess where the device has it (mgrt does on its own
 * devices: kernels index with values from the bundle). Validation-layer
 * messages go to the app's own messenger, if any: the context counts none.
 */
#ifndef MGRT_VULKAN_H
#define MGRT_VULKAN_H

#include <vulkan/vulkan.h>

#include "mgrt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mgrt_vulkan_device {
  VkInstance instance;
  VkPhysicalDevice physical_device;
  VkDevice device;
  VkQueue queue;
  uint32_t queue_family;      /* the family `queue` belongs to; must have VK_QUEUE_COMPUTE_BIT */
  uint32_t api_version;       /* VkApplicationInfo.apiVersion of `instance` (0: Vulkan 1.0) */
  uint32_t enabled_features;  /* MGRT_FEATURE_* the app enabled on `device` */
} mgrt_vulkan_device;

/* MGRT_INVALID_ARGUMENT for a null handle or a queue family without
 * compute, MGRT_UNSUPPORTED when enabled_features names a feature the
 * device does not have (the message lists them). */
mgrt_status mgrt_context_create_vulkan(const mgrt_vulkan_device* device, mgrt_context** out);

/* The fence the session's last submission (mgrt_session_submit or _run)
 * signals, for vkWaitForFences / vkGetFenceStatus next to the app's own
 * work; VK_NULL_HANDLE for a null session. Owned by the session: do not
 * reset or destroy it. Valid until the session is destroyed or profiling
 * is switched (which records the work anew); still call mgrt_session_wait
 * before reading outputs. */
VkFence mgrt_session_vulkan_fence(const mgrt_session* session);

/* Device-resident I/O: the input or output `name` is read from / written to
 * [offset, offset + size) of the app's `buffer` on the GPU, with no host
 * copy (a camera frame in, a render target out). The buffer needs
 * VK_BUFFER_USAGE_TRANSFER_SRC_BIT (input) or _DST_BIT (output) and memory
 * bound; `size` must equal the tensor's bytes on the device, and the
 * tensor's dtype must be stored as is on the device (f32, f16 with 16-bit
 * storage, i32, ...: MGRT_UNSUPPORTED otherwise, e.g. i64, which the device
 * holds as i32). Each run then copies from / to the buffer: work the app
 * submitted earlier on the same queue is finished before, and work it
 * submits later sees the result (other queues: the app's semaphores or
 * mgrt_session_vulkan_fence). set_input / get_output of a bound tensor are
 * refused. VK_NULL_HANDLE unbinds (back to host memory). The session
 * re-records its work; not while a run is in flight. The app keeps the
 * buffer alive while it is bound. */
mgrt_status mgrt_session_bind_vulkan_buffer(mgrt_session* session, const char* name, VkBuffer buffer,
                                            VkDeviceSize offset, VkDeviceSize size);

#ifdef __cplusplus
}
#endif

#endif /* MGRT_VULKAN_H */
