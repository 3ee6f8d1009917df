// The session calls of mgrt_vulkan.h: the fence and timeline semaphore of
// a session's submissions, a wait on the app's timeline, and device-resident
// inputs and outputs (the app's buffers, copied from / to on the GPU).
#include "runtime/core/objects.h"
#include "runtime/core/status.h"
#include "runtime/vulkan/recorder.h"
#include "runtime/vulkan/vulkan_api.h"

using namespace mgrt;

namespace {

mgrt_status noTimelines(const mgrt_session* s, const char* call) {
  return fail(MGRT_UNSUPPORTED,
              "%s: timeline semaphores are not enabled on %s (they need Vulkan 1.2's timelineSemaphore: libmgrt "
              "enables it on its own device where offered, unless disable_features names "
              "MGRT_FEATURE_TIMELINE_SEMAPHORE; an app's device declares it in enabled_features); "
              "mgrt_session_vulkan_fence works without them",
              call, s->model->backend->caps().name.c_str());
}

const TensorPlan* findIo(const mgrt_session* s, const char* name, bool* input) {
  for (const TensorPlan& t : s->plan.inputs)
    if (t.name == name) {
      *input = true;
      return &t;
    }
  for (const TensorPlan& t : s->plan.outputs)
    if (t.name == name) {
      *input = false;
      return &t;
    }
  return nullptr;
}

}  // namespace

VkFence mgrt_session_vulkan_fence(const mgrt_session* s) {
  if (!s || !s->recording) return VK_NULL_HANDLE;
  return static_cast<const vk::Recording*>(s->recording)->fence;
}

mgrt_status mgrt_session_vulkan_timeline(const mgrt_session* s, VkSemaphore* semaphore, uint64_t* value) {
  MGRT_API_GUARD({
    if (!s || !semaphore || !value) return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_vulkan_timeline: null argument");
    *semaphore = VK_NULL_HANDLE;
    *value = 0;
    if (!s->timeline) return noTimelines(s, "mgrt_session_vulkan_timeline");
    *semaphore = static_cast<const vk::Timeline*>(s->timeline)->semaphore;
    *value = s->timelineValue;
    return MGRT_OK;
  })
}

mgrt_status mgrt_session_vulkan_wait(mgrt_session* s, VkSemaphore semaphore, uint64_t value) {
  MGRT_API_GUARD({
    if (!s) return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_vulkan_wait: session is null");
    Backend* be = s->model->backend;
    if (!be->caps().timelines) return noTimelines(s, "mgrt_session_vulkan_wait");
    vk::Timeline* wait = nullptr;
    if (semaphore != VK_NULL_HANDLE) {
      wait = new vk::Timeline();
      wait->semaphore = semaphore;
      wait->external = true;
    }
    be->destroyTimeline(s->waitFor);  // a wrapper: the app's semaphore stays
    s->waitFor = wait;
    s->waitValue = value;
    return MGRT_OK;
  })
}

mgrt_status mgrt_session_bind_vulkan_buffer(mgrt_session* s, const char* name, VkBuffer buffer, VkDeviceSize offset,
                                            VkDeviceSize size) {
  MGRT_API_GUARD({
    if (!s || !name) return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_bind_vulkan_buffer: null argument");
    if (s->inFlight)
      return fail(MGRT_INVALID_ARGUMENT,
                  "mgrt_session_bind_vulkan_buffer: a run is in flight; call mgrt_session_wait first");
    bool input = false;
    const TensorPlan* io = findIo(s, name, &input);
    if (!io) return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_bind_vulkan_buffer: no input or output '%s'", name);
    const char* kind = input ? "input" : "output";
    Backend* be = s->model->backend;
    auto old = s->bound.find(io->name);
    const bool wasBound = old != s->bound.end();
    const mgrt_session::BoundBuffer previous = wasBound ? old->second : mgrt_session::BoundBuffer{};
    mgrt_session::BoundBuffer next{};
    if (buffer == VK_NULL_HANDLE) {
      if (!wasBound) return MGRT_OK;
      s->bound.erase(old);
    } else {
      if (io->deviceDtype != io->dtype)
        return fail(MGRT_UNSUPPORTED,
                    "%s '%s' is %s on the device but %s outside: only tensors stored as they are can be bound", kind, name, mgb::EnumNameDType(io->deviceDtype), mgb::EnumNameDType(io->dtype));
      if (size != io->size)
        return fail(MGRT_INVALID_ARGUMENT, "%s '%s' is %llu bytes on the device, the binding gives %llu", kind, name,
                    (unsigned long long)io->size, (unsigned long long)size);
      vk::Buffer* wrapper = new vk::Buffer();
      wrapper->buffer = buffer;
      wrapper->size = offset + size;
      wrapper->external = true;
      next = {wrapper, offset};
      s->bound[io->name] = next;
    }
    const int before = be->validationMessages();
    const mgrt_status recorded = recordSession(s);
    if (recorded != MGRT_OK) {  // the old recording stays in place, and so does the binding it names
      if (wasBound)
        s->bound[io->name] = previous;
      else
        s->bound.erase(io->name);
      be->destroyBuffer(next.buffer);  // a wrapper: the app's buffer stays
      return recorded;
    }
    be->destroyBuffer(previous.buffer);  // the new recording no longer names it
    return be->checkValidation(before, "mgrt_session_bind_vulkan_buffer");
  })
}
