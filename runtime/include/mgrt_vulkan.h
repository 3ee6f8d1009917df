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
 * kernel on its portable variant; MGRT_FEATURE_TIMELINE_SEMAPHORE: the
 * app enabled Vulkan 1.2's timelineSemaphore, which
 * mgrt_session_vulkan_timeline / _wait need), and the app should enable
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
 * reset or destroy it. Valid until the session is destroyed, profiling is
 * switched or a buffer bound (which record the work anew); still call mgrt_session_wait
 * before reading outputs. Works on every device. */
VkFence mgrt_session_vulkan_fence(const mgrt_session* session);

/* GPU-side chaining with the app's work, through timeline semaphores
 * (MGRT_FEATURE_TIMELINE_SEMAPHORE in mgrt_context_features; otherwise
 * both calls are MGRT_UNSUPPORTED, saying why, and the fence above is the
 * way to wait).
 *
 * mgrt_session_vulkan_timeline: the session's own timeline semaphore and
 * the value its last submission (mgrt_session_submit or _run) signals when
 * it has finished; 0 before the first submission (the semaphore starts at
 * 0, so a wait for 0 is already satisfied). Every submission signals the
 * next value (1, 2, 3, ...), also across re-recording (binding buffers,
 * profiling). An app submission that waits for (semaphore, value), on any
 * queue of the device, starts after the run and sees all it wrote (e.g. a
 * bound output buffer) with no CPU wait. The semaphore is the session's:
 * wait on it, never signal or destroy it; it lives until
 * mgrt_session_destroy, by which time the app's submissions waiting on it
 * must have finished (as for any semaphore Vulkan destroys). Still call
 * mgrt_session_wait before the session's next submit or host reads.
 *
 * mgrt_session_vulkan_wait: the session's next submission (that one only)
 * starts on the GPU once the app's timeline semaphore `semaphore` reaches
 * `value`, and sees what the app's work before that signal wrote (e.g. a
 * bound input buffer). The call returns at once; a later call replaces the
 * wait, VK_NULL_HANDLE cancels it. The app keeps the semaphore alive until
 * that submission has finished, and must signal `value` eventually:
 * mgrt_session_run, which waits for the run on the CPU, and
 * mgrt_session_wait give up after MGRT_TIMEOUT_S as with any hung run.
 *
 * Threads: like every session call, one thread at a time per session;
 * the app may wait on the semaphore from any thread or queue. */
mgrt_status mgrt_session_vulkan_timeline(const mgrt_session* session, VkSemaphore* semaphore, uint64_t* value);
mgrt_status mgrt_session_vulkan_wait(mgrt_session* session, VkSemaphore semaphore, uint64_t value);

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
 * buffer alive while it is bound. On any error the session is unchanged:
 * the previous binding and recorded work stay, and runs work as before. */
mgrt_status mgrt_session_bind_vulkan_buffer(mgrt_session* session, const char* name, VkBuffer buffer,
                                            VkDeviceSize offset, VkDeviceSize size);

#ifdef __cplusplus
}
#endif

#endif /* MGRT_VULKAN_H */
