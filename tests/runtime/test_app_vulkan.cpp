// mgrt_context_create_vulkan: the app creates the instance (with the
// validation layer and its own messenger, which counts every message mgrt's
// work causes), the device and the queue; mgrt runs a bundle on them, and
// the app's objects outlive the context and still work after it. Then the
// session calls of mgrt_vulkan.h: fences, timeline semaphores chained with
// the app's own submissions, device-resident I/O (and a failed re-bind).
#include <catch2/catch.hpp>
#include <volk.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "runtime/core/objects.h"
#include "runtime/core/status.h"
#include "runtime/include/mgrt_vulkan.h"
#include "tests/runtime/test_bundles.h"

namespace {

using namespace rt_test;

int gMessages = 0;
VKAPI_ATTR VkBool32 VKAPI_CALL onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                                         const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
  ++gMessages;
  UNSCOPED_INFO("validation: " << data->pMessage);
  return VK_FALSE;
}

bool hasLayer(const char* name) {
  uint32_t n = 0;
  vkEnumerateInstanceLayerProperties(&n, nullptr);
  std::vector<VkLayerProperties> layers(n);
  vkEnumerateInstanceLayerProperties(&n, layers.data());
  for (const VkLayerProperties& l : layers)
    if (std::strcmp(l.layerName, name) == 0) return true;
  return false;
}

// What a renderer would have: instance (+ validation), device, one queue.
struct AppVulkan {
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t family = 0, computeless = UINT32_MAX;

  bool timelines = false;  // timelineSemaphore enabled on `device`

  explicit AppVulkan(bool wantTimelines = false) {
    REQUIRE(volkInitialize() == VK_SUCCESS);
    const char* layer = "VK_LAYER_KHRONOS_validation";
    const bool validation = hasLayer(layer);
    const char* ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ci.pApplicationInfo = &app;
    ci.enabledLayerCount = validation ? 1 : 0;
    ci.ppEnabledLayerNames = &layer;
    ci.enabledExtensionCount = validation ? 1 : 0;
    ci.ppEnabledExtensionNames = &ext;
    REQUIRE(vkCreateInstance(&ci, nullptr, &instance) == VK_SUCCESS);
    volkLoadInstanceOnly(instance);
    if (validation) {
      VkDebugUtilsMessengerCreateInfoEXT mi{};
      mi.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
      mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
      mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
      mi.pfnUserCallback = onMessage;
      REQUIRE(vkCreateDebugUtilsMessengerEXT(instance, &mi, nullptr, &messenger) == VK_SUCCESS);
    }
    uint32_t n = 1;
    REQUIRE(vkEnumeratePhysicalDevices(instance, &n, &physical) >= 0);
    REQUIRE(n == 1);
    uint32_t families = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
    std::vector<VkQueueFamilyProperties> props(families);
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, props.data());
    family = UINT32_MAX;
    for (uint32_t i = 0; i < families; ++i) {
      if (props[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
        if (family == UINT32_MAX) family = i;
      } else if (computeless == UINT32_MAX) {
        computeless = i;
      }
    }
    REQUIRE(family != UINT32_MAX);
    const float priority = 1;
    VkDeviceQueueCreateInfo qi{};
    qi.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qi.queueFamilyIndex = family;
    qi.queueCount = 1;
    qi.pQueuePriorities = &priority;
    VkPhysicalDeviceFeatures features{};
    VkPhysicalDeviceFeatures supported{};
    vkGetPhysicalDeviceFeatures(physical, &supported);
    features.robustBufferAccess = supported.robustBufferAccess;
    VkDeviceCreateInfo di{};
    di.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    di.queueCreateInfoCount = 1;
    di.pQueueCreateInfos = &qi;
    di.pEnabledFeatures = &features;
    VkPhysicalDeviceVulkan12Features v12{};
    v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    VkPhysicalDeviceFeatures2 features2{};
    features2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    features2.pNext = &v12;
    if (wantTimelines) {  // as a renderer would: Vulkan 1.2's timelineSemaphore, if the device has it
      vkGetPhysicalDeviceFeatures2(physical, &features2);
      timelines = v12.timelineSemaphore;
      v12 = VkPhysicalDeviceVulkan12Features{};
      v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
      v12.timelineSemaphore = timelines;
      features2.features = features;
      di.pEnabledFeatures = nullptr;
      di.pNext = &features2;
    }
    REQUIRE(vkCreateDevice(physical, &di, nullptr, &device) == VK_SUCCESS);
    volkLoadDevice(device);  // the test's own calls; libmgrt keeps a table per device
    vkGetDeviceQueue(device, family, 0, &queue);
  }
  ~AppVulkan() {
    vkDestroyDevice(device, nullptr);
    if (messenger) vkDestroyDebugUtilsMessengerEXT(instance, messenger, nullptr);
    vkDestroyInstance(instance, nullptr);
  }
  mgrt_vulkan_device handles(uint32_t features = 0) const {
    return {instance, physical, device, queue, family, VK_API_VERSION_1_2, features};
  }
};

std::vector<float> runAdd(mgrt_context* ctx, uint32_t n) {
  const std::vector<uint8_t> bytes = mgb::writeBundle(addSpec(n));
  mgrt_model* m = nullptr;
  REQUIRE(mgrt_model_load(ctx, bytes.data(), bytes.size(), &m) == MGRT_OK);
  mgrt_session* s = nullptr;
  REQUIRE(mgrt_session_create(m, "infer", &s) == MGRT_OK);
  std::vector<float> a(n), y2(n);
  for (uint32_t i = 0; i < n; ++i) a[i] = float(i % 7) - 3.0f;
  REQUIRE(mgrt_session_set_input(s, "a", a.data(), n * 4) == MGRT_OK);
  const mgrt_status run = mgrt_session_run(s);
  INFO(mgrt_last_error());
  REQUIRE(run == MGRT_OK);
  REQUIRE(mgrt_session_get_output(s, "y2", y2.data(), n * 4) == MGRT_OK);
  mgrt_session_destroy(s);
  mgrt_model_destroy(m);
  return y2;
}

}  // namespace

TEST_CASE("a context on the app's Vulkan device runs bundles like mgrt's own", "[runtime][app-vulkan]") {
  AppVulkan app;
  gMessages = 0;
  const mgrt_vulkan_device dev = app.handles();
  const uint32_t n = 1000;
  std::vector<float> got;
  for (int round = 0; round < 2; ++round) {  // the app's device outlives a context, and serves the next
    mgrt_context* ctx = nullptr;
    const mgrt_status st = mgrt_context_create_vulkan(&dev, &ctx);
    INFO(mgrt_last_error());
    REQUIRE(st == MGRT_OK);
    CHECK(mgrt_context_features(ctx) == 0);  // the app enabled none: portable kernels only
    got = runAdd(ctx, n);
    mgrt_context_destroy(ctx);
  }
  CHECK(got == runAdd(context(), n));  // the same bits as on mgrt's own device
  CHECK(gMessages == 0);
  // The app's device still works after the contexts are gone.
  CHECK(vkDeviceWaitIdle(app.device) == VK_SUCCESS);
}

TEST_CASE("mgrt_context_create_vulkan refuses what it cannot use, naming it", "[runtime][app-vulkan]") {
  AppVulkan app;
  mgrt_context* ctx = nullptr;
  mgrt_vulkan_device dev = app.handles();
  dev.device = VK_NULL_HANDLE;
  CHECK(mgrt_context_create_vulkan(&dev, &ctx) == MGRT_INVALID_ARGUMENT);
  CHECK_THAT(mgrt_last_error(), Catch::Contains("device is null"));
  CHECK(mgrt_context_create_vulkan(nullptr, &ctx) == MGRT_INVALID_ARGUMENT);
  dev = app.handles();
  dev.queue_family = 999;
  CHECK(mgrt_context_create_vulkan(&dev, &ctx) == MGRT_INVALID_ARGUMENT);
  CHECK_THAT(mgrt_last_error(), Catch::Contains("queue_family 999"));
  if (app.computeless != UINT32_MAX) {
    dev.queue_family = app.computeless;
    CHECK(mgrt_context_create_vulkan(&dev, &ctx) == MGRT_INVALID_ARGUMENT);
    CHECK_THAT(mgrt_last_error(), Catch::Contains("has no compute"));
  }
  dev = app.handles(MGRT_FEATURE_COOPERATIVE_MATRIX_KHR);  // never enabled by libmgrt: never "supported"
  CHECK(mgrt_context_create_vulkan(&dev, &ctx) == MGRT_UNSUPPORTED);
  CHECK_THAT(mgrt_last_error(), Catch::Contains("does not have"));
  CHECK(ctx == nullptr);
}

TEST_CASE("asynchronous runs: submit, the app waits on the fence, then mgrt_session_wait", "[runtime][app-vulkan]") {
  AppVulkan app;
  gMessages = 0;
  const mgrt_vulkan_device dev = app.handles();
  mgrt_context* ctx = nullptr;
  REQUIRE(mgrt_context_create_vulkan(&dev, &ctx) == MGRT_OK);
  const uint32_t n = 1000;
  const std::vector<uint8_t> bytes = mgb::writeBundle(addSpec(n));
  mgrt_model* m = nullptr;
  REQUIRE(mgrt_model_load(ctx, bytes.data(), bytes.size(), &m) == MGRT_OK);
  mgrt_session *s1 = nullptr, *s2 = nullptr, *s3 = nullptr;
  REQUIRE(mgrt_session_create(m, "infer", &s1) == MGRT_OK);
  REQUIRE(mgrt_session_create(m, "infer", &s2) == MGRT_OK);
  REQUIRE(mgrt_session_create(m, "infer", &s3) == MGRT_OK);
  std::vector<float> a1(n, 1.0f), a2(n, -2.0f), y(n);
  REQUIRE(mgrt_session_set_input(s1, "a", a1.data(), n * 4) == MGRT_OK);
  REQUIRE(mgrt_session_set_input(s2, "a", a2.data(), n * 4) == MGRT_OK);
  REQUIRE(mgrt_session_set_input(s3, "a", a2.data(), n * 4) == MGRT_OK);
  CHECK(mgrt_session_wait(s1) == MGRT_INVALID_ARGUMENT);  // nothing submitted
  REQUIRE(mgrt_session_submit(s1) == MGRT_OK);
  REQUIRE(mgrt_session_submit(s2) == MGRT_OK);  // two in flight at once
  REQUIRE(mgrt_session_submit(s3) == MGRT_OK);
  // In flight: its memory is the GPU's.
  CHECK(mgrt_session_set_input(s1, "a", a2.data(), n * 4) == MGRT_INVALID_ARGUMENT);
  CHECK_THAT(mgrt_last_error(), Catch::Contains("in flight"));
  CHECK(mgrt_session_get_output(s1, "y2", y.data(), n * 4) == MGRT_INVALID_ARGUMENT);
  CHECK(mgrt_session_submit(s1) == MGRT_INVALID_ARGUMENT);
  // The app waits on the fences with its own Vulkan calls.
  VkFence fences[2] = {mgrt_session_vulkan_fence(s1), mgrt_session_vulkan_fence(s2)};
  REQUIRE(fences[0] != VK_NULL_HANDLE);
  CHECK(vkWaitForFences(app.device, 2, fences, VK_TRUE, UINT64_MAX) == VK_SUCCESS);
  for (auto [s, a] : {std::pair{s1, &a1}, std::pair{s2, &a2}}) {
    REQUIRE(mgrt_session_wait(s) == MGRT_OK);
    REQUIRE(mgrt_session_get_output(s, "y2", y.data(), n * 4) == MGRT_OK);
    for (uint32_t i = 0; i < n; ++i) {
      const float b = 0.25f * float(i);
      REQUIRE(y[i] == ((*a)[i] + b + 0.5f) + b + 1.0f);
    }
  }
  mgrt_session_destroy(s3);  // still in flight: destroy waits for it
  mgrt_session_destroy(s2);
  mgrt_session_destroy(s1);
  mgrt_model_destroy(m);
  mgrt_context_destroy(ctx);
  CHECK(gMessages == 0);
}

namespace {

// A host-visible buffer of the app, mapped (so the test can fill and read it).
struct AppBuffer {
  const AppVulkan& app;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
  AppBuffer(const AppVulkan& a, VkDeviceSize size) : app(a) {
    VkBufferCreateInfo bi{};
    bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bi.size = size;
    bi.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    REQUIRE(vkCreateBuffer(app.device, &bi, nullptr, &buffer) == VK_SUCCESS);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(app.device, buffer, &req);
    VkPhysicalDeviceMemoryProperties props;
    vkGetPhysicalDeviceMemoryProperties(app.physical, &props);
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < props.memoryTypeCount && type == UINT32_MAX; ++i)
      if ((req.memoryTypeBits & (1u << i)) && (props.memoryTypes[i].propertyFlags & want) == want) type = i;
    REQUIRE(type != UINT32_MAX);
    VkMemoryAllocateInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = type;
    REQUIRE(vkAllocateMemory(app.device, &ai, nullptr, &memory) == VK_SUCCESS);
    REQUIRE(vkBindBufferMemory(app.device, buffer, memory, 0) == VK_SUCCESS);
    REQUIRE(vkMapMemory(app.device, memory, 0, VK_WHOLE_SIZE, 0, &mapped) == VK_SUCCESS);
  }
  ~AppBuffer() {
    vkDestroyBuffer(app.device, buffer, nullptr);
    vkFreeMemory(app.device, memory, nullptr);  // also unmaps
  }
  float* floats(size_t byteOffset) { return reinterpret_cast<float*>(static_cast<uint8_t*>(mapped) + byteOffset); }
};

}  // namespace

TEST_CASE("device-resident I/O: an input read from and an output written to the app's buffers",
          "[runtime][app-vulkan]") {
  AppVulkan app;
  gMessages = 0;
  {
    const mgrt_vulkan_device dev = app.handles();
    mgrt_context* ctx = nullptr;
    REQUIRE(mgrt_context_create_vulkan(&dev, &ctx) == MGRT_OK);
    const uint32_t n = 1000;
    const std::vector<uint8_t> bytes = mgb::writeBundle(addSpec(n));
    mgrt_model* m = nullptr;
    REQUIRE(mgrt_model_load(ctx, bytes.data(), bytes.size(), &m) == MGRT_OK);
    mgrt_session* s = nullptr;
    REQUIRE(mgrt_session_create(m, "infer", &s) == MGRT_OK);
    AppBuffer in(app, n * 4), out(app, 256 + n * 4);
    for (uint32_t i = 0; i < n; ++i) in.floats(0)[i] = float(i % 5) - 2.0f;
    CHECK(mgrt_session_bind_vulkan_buffer(s, "a", in.buffer, 0, n * 4 - 4) == MGRT_INVALID_ARGUMENT);  // size
    CHECK(mgrt_session_bind_vulkan_buffer(s, "nope", in.buffer, 0, n * 4) == MGRT_INVALID_ARGUMENT);
    REQUIRE(mgrt_session_bind_vulkan_buffer(s, "a", in.buffer, 0, n * 4) == MGRT_OK);
    REQUIRE(mgrt_session_bind_vulkan_buffer(s, "y2", out.buffer, 256, n * 4) == MGRT_OK);
    std::vector<float> host(n);
    CHECK(mgrt_session_set_input(s, "a", host.data(), n * 4) == MGRT_INVALID_ARGUMENT);
    CHECK_THAT(mgrt_last_error(), Catch::Contains("bound to a device buffer"));
    for (int round = 0; round < 2; ++round) {  // the app changes its buffer between runs
      for (uint32_t i = 0; i < n; ++i) in.floats(0)[i] = float((i + round) % 5) - 2.0f;
      REQUIRE(mgrt_session_run(s) == MGRT_OK);
      for (uint32_t i = 0; i < n; ++i) {
        const float b = 0.25f * float(i), a = in.floats(0)[i];
        REQUIRE(out.floats(256)[i] == (a + b + 0.5f) + b + 1.0f);
      }
      CHECK(mgrt_session_get_output(s, "y2", host.data(), n * 4) == MGRT_INVALID_ARGUMENT);
      REQUIRE(mgrt_session_get_output(s, "y1", host.data(), n * 4) == MGRT_OK);  // unbound: host as before
      CHECK(host[3] == in.floats(0)[3] + 0.75f + 0.5f);
    }
    // Unbound again: host memory as before.
    REQUIRE(mgrt_session_bind_vulkan_buffer(s, "a", VK_NULL_HANDLE, 0, 0) == MGRT_OK);
    for (uint32_t i = 0; i < n; ++i) host[i] = 1.0f;
    REQUIRE(mgrt_session_set_input(s, "a", host.data(), n * 4) == MGRT_OK);
    REQUIRE(mgrt_session_run(s) == MGRT_OK);
    CHECK(out.floats(256)[2] == (1.0f + 0.5f + 0.5f) + 0.5f + 1.0f);
    mgrt_session_destroy(s);
    mgrt_model_destroy(m);
    mgrt_context_destroy(ctx);
  }
  CHECK(gMessages == 0);
}

namespace {

// y2 of addSpec for input a at element i.
float addY2(float a, uint32_t i) {
  const float b = 0.25f * float(i);
  return (a + b + 0.5f) + b + 1.0f;
}

VkSemaphore makeTimeline(const AppVulkan& app) {
  VkSemaphoreTypeCreateInfo type{};
  type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo ci{};
  ci.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  ci.pNext = &type;
  VkSemaphore semaphore = VK_NULL_HANDLE;
  REQUIRE(vkCreateSemaphore(app.device, &ci, nullptr, &semaphore) == VK_SUCCESS);
  return semaphore;
}

// The app's own submission: one command buffer and the fence it signals.
struct AppCommands {
  const AppVulkan& app;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  explicit AppCommands(const AppVulkan& a) : app(a) {
    VkCommandPoolCreateInfo pi{};
    pi.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pi.queueFamilyIndex = app.family;
    REQUIRE(vkCreateCommandPool(app.device, &pi, nullptr, &pool) == VK_SUCCESS);
    VkCommandBufferAllocateInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    REQUIRE(vkAllocateCommandBuffers(app.device, &ai, &cmd) == VK_SUCCESS);
    VkFenceCreateInfo fi{};
    fi.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    REQUIRE(vkCreateFence(app.device, &fi, nullptr, &fence) == VK_SUCCESS);
  }
  ~AppCommands() {
    vkDestroyFence(app.device, fence, nullptr);
    vkDestroyCommandPool(app.device, pool, nullptr);
  }
  // Submits a copy of `bytes` from src to dst (for the host to read after
  // the fence) that starts once `semaphore` reaches `value`.
  void copyAfter(VkBuffer src, VkBuffer dst, VkDeviceSize bytes, VkSemaphore semaphore, uint64_t value) {
    REQUIRE(vkResetFences(app.device, 1, &fence) == VK_SUCCESS);
    REQUIRE(vkResetCommandBuffer(cmd, 0) == VK_SUCCESS);
    VkCommandBufferBeginInfo bi{};
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    REQUIRE(vkBeginCommandBuffer(cmd, &bi) == VK_SUCCESS);
    const VkBufferCopy region{0, 0, bytes};
    vkCmdCopyBuffer(cmd, src, dst, 1, &region);
    VkMemoryBarrier toHost{};
    toHost.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    toHost.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0, nullptr, 0,
                         nullptr);
    REQUIRE(vkEndCommandBuffer(cmd) == VK_SUCCESS);
    VkTimelineSemaphoreSubmitInfo values{};
    values.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
    values.waitSemaphoreValueCount = 1;
    values.pWaitSemaphoreValues = &value;
    const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
    VkSubmitInfo si{};
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si.pNext = &values;
    si.waitSemaphoreCount = 1;
    si.pWaitSemaphores = &semaphore;
    si.pWaitDstStageMask = &stage;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    REQUIRE(vkQueueSubmit(app.queue, 1, &si, fence) == VK_SUCCESS);
  }
};

uint64_t timelineValue(const mgrt_session* s, VkSemaphore expected) {
  VkSemaphore semaphore = VK_NULL_HANDLE;
  uint64_t value = ~0ull;
  const mgrt_status st = mgrt_session_vulkan_timeline(s, &semaphore, &value);
  INFO(mgrt_last_error());
  REQUIRE(st == MGRT_OK);
  CHECK(semaphore == expected);  // one semaphore for the session's life
  return value;
}

}  // namespace

TEST_CASE("timeline semaphores: the app's copy waits for a run, a run waits for the app", "[runtime][app-vulkan]") {
  AppVulkan app(true);
  if (!app.timelines) {
    WARN("the device has no timelineSemaphore: nothing to test");
    return;
  }
  gMessages = 0;
  {
    const mgrt_vulkan_device dev = app.handles(MGRT_FEATURE_TIMELINE_SEMAPHORE);
    mgrt_context* ctx = nullptr;
    const mgrt_status created = mgrt_context_create_vulkan(&dev, &ctx);
    INFO(mgrt_last_error());
    REQUIRE(created == MGRT_OK);
    CHECK(mgrt_context_features(ctx) == MGRT_FEATURE_TIMELINE_SEMAPHORE);
    const uint32_t n = 1000;
    const std::vector<uint8_t> bytes = mgb::writeBundle(addSpec(n));
    mgrt_model* m = nullptr;
    REQUIRE(mgrt_model_load(ctx, bytes.data(), bytes.size(), &m) == MGRT_OK);
    mgrt_session* s = nullptr;
    REQUIRE(mgrt_session_create(m, "infer", &s) == MGRT_OK);
    AppBuffer in(app, n * 4), out(app, n * 4), copy(app, n * 4);
    REQUIRE(mgrt_session_bind_vulkan_buffer(s, "a", in.buffer, 0, n * 4) == MGRT_OK);
    REQUIRE(mgrt_session_bind_vulkan_buffer(s, "y2", out.buffer, 0, n * 4) == MGRT_OK);

    VkSemaphore timeline = VK_NULL_HANDLE;
    uint64_t value = ~0ull;
    REQUIRE(mgrt_session_vulkan_timeline(s, &timeline, &value) == MGRT_OK);
    REQUIRE(timeline != VK_NULL_HANDLE);
    CHECK(value == 0);  // nothing submitted yet
    CHECK(mgrt_session_vulkan_timeline(s, nullptr, &value) == MGRT_INVALID_ARGUMENT);

    const VkSemaphore appTimeline = makeTimeline(app);
    AppCommands commands(app);
    for (uint64_t round = 1; round <= 3; ++round) {
      for (uint32_t i = 0; i < n; ++i) in.floats(0)[i] = float((i + round) % 5) - 2.0f;
      REQUIRE(mgrt_session_vulkan_wait(s, appTimeline, round) == MGRT_OK);  // the run starts when the app says so
      REQUIRE(mgrt_session_submit(s) == MGRT_OK);
      const uint64_t v = timelineValue(s, timeline);
      CHECK(v == round);  // one value per submission
      commands.copyAfter(out.buffer, copy.buffer, n * 4, timeline, v);  // chained on the GPU, no CPU wait
      if (round == 1) {  // both held back until the app signals its timeline
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        CHECK(vkGetFenceStatus(app.device, mgrt_session_vulkan_fence(s)) == VK_NOT_READY);
        CHECK(vkGetFenceStatus(app.device, commands.fence) == VK_NOT_READY);
      }
      VkSemaphoreSignalInfo signal{};
      signal.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
      signal.semaphore = appTimeline;
      signal.value = round;
      REQUIRE(vkSignalSemaphore(app.device, &signal) == VK_SUCCESS);
      const uint64_t tenSeconds = 10000000000ull;  // a failure, not a hang
      REQUIRE(vkWaitForFences(app.device, 1, &commands.fence, VK_TRUE, tenSeconds) == VK_SUCCESS);
      for (uint32_t i = 0; i < n; ++i) {  // this round's result, copied by the app after the run wrote it
        INFO("round " << round << " i " << i);
        REQUIRE(copy.floats(0)[i] == addY2(in.floats(0)[i], i));
      }
      REQUIRE(mgrt_session_wait(s) == MGRT_OK);
    }
    // The wait was for one submission each: this run needs no signal.
    REQUIRE(mgrt_session_run(s) == MGRT_OK);
    CHECK(timelineValue(s, timeline) == 4);
    // Cancelled before a submission: none waits.
    REQUIRE(mgrt_session_vulkan_wait(s, appTimeline, 100) == MGRT_OK);
    REQUIRE(mgrt_session_vulkan_wait(s, VK_NULL_HANDLE, 0) == MGRT_OK);
    REQUIRE(mgrt_session_run(s) == MGRT_OK);
    // Re-recording (an unbind) keeps the semaphore and its count.
    REQUIRE(mgrt_session_bind_vulkan_buffer(s, "y2", VK_NULL_HANDLE, 0, 0) == MGRT_OK);
    REQUIRE(mgrt_session_run(s) == MGRT_OK);
    CHECK(timelineValue(s, timeline) == 6);
    mgrt_session_destroy(s);
    vkDestroySemaphore(app.device, appTimeline, nullptr);
    mgrt_model_destroy(m);
    mgrt_context_destroy(ctx);
  }
  CHECK(gMessages == 0);
}

TEST_CASE("without timeline semaphores both calls say why, and the fence still works", "[runtime][app-vulkan]") {
  const uint32_t n = 64;
  const std::vector<uint8_t> bytes = mgb::writeBundle(addSpec(n));
  std::vector<float> a(n, 1.0f), y(n);
  auto check = [&](mgrt_context* ctx, bool timelines) {
    INFO("timelines " << timelines);
    CHECK(((mgrt_context_features(ctx) & MGRT_FEATURE_TIMELINE_SEMAPHORE) != 0) == timelines);
    mgrt_model* m = nullptr;
    REQUIRE(mgrt_model_load(ctx, bytes.data(), bytes.size(), &m) == MGRT_OK);
    mgrt_session* s = nullptr;
    REQUIRE(mgrt_session_create(m, "infer", &s) == MGRT_OK);
    REQUIRE(mgrt_session_set_input(s, "a", a.data(), n * 4) == MGRT_OK);
    for (int round = 0; round < 2; ++round) {
      REQUIRE(mgrt_session_submit(s) == MGRT_OK);
      VkFence fence = mgrt_session_vulkan_fence(s);
      REQUIRE(fence != VK_NULL_HANDLE);
      VkSemaphore semaphore = VK_NULL_HANDLE;
      uint64_t value = ~0ull;
      const mgrt_status st = mgrt_session_vulkan_timeline(s, &semaphore, &value);
      if (timelines) {
        CHECK(st == MGRT_OK);
        CHECK(value == uint64_t(round) + 1);
      } else {
        CHECK(st == MGRT_UNSUPPORTED);
        CHECK_THAT(mgrt_last_error(), Catch::Contains("timeline semaphores are not enabled"));
        CHECK(semaphore == VK_NULL_HANDLE);
        CHECK(value == 0);
        CHECK(mgrt_session_vulkan_wait(s, VK_NULL_HANDLE, 0) == MGRT_UNSUPPORTED);
      }
      REQUIRE(mgrt_session_wait(s) == MGRT_OK);
      REQUIRE(mgrt_session_get_output(s, "y2", y.data(), n * 4) == MGRT_OK);
      CHECK(y[5] == addY2(1.0f, 5));
    }
    mgrt_session_destroy(s);
    mgrt_model_destroy(m);
  };
  {
    AppVulkan app;  // the app did not enable timelineSemaphore
    gMessages = 0;
    const mgrt_vulkan_device dev = app.handles();
    mgrt_context* ctx = nullptr;
    REQUIRE(mgrt_context_create_vulkan(&dev, &ctx) == MGRT_OK);
    check(ctx, false);
    mgrt_context_destroy(ctx);
    CHECK(gMessages == 0);
  }
  // libmgrt's own device (validation on: a message fails the run): on
  // where the device has it, off when the options turn it off.
  check(context(), (mgrt_context_features(context()) & MGRT_FEATURE_TIMELINE_SEMAPHORE) != 0);
  mgrt_context_options opts{-1, 1, MGRT_FEATURE_TIMELINE_SEMAPHORE};
  mgrt_context* own = nullptr;
  REQUIRE(mgrt_context_create(&opts, &own) == MGRT_OK);
  check(own, false);
  mgrt_context_destroy(own);
}

namespace {

// A backend whose record() fails (as running out of device memory would),
// everything else passed through: the one step of a re-bind that only the
// device can fail, forced. Swapped in as the model's backend for a moment.
class FailingRecord final : public mgrt::Backend {
 public:
  explicit FailingRecord(mgrt::Backend* inner) : inner_(inner) {}
  const mgrt::DeviceCaps& caps() const override { return inner_->caps(); }
  bool lost() const override { return inner_->lost(); }
  int validationMessages() const override { return inner_->validationMessages(); }
  mgrt_status checkValidation(int before, const char* during) override {
    return inner_->checkValidation(before, during);
  }
  mgrt_status createBuffer(uint64_t size, mgrt::MemoryUse use, const char* what, mgrt::Buffer** out) override {
    return inner_->createBuffer(size, use, what, out);
  }
  void destroyBuffer(mgrt::Buffer* b) override { inner_->destroyBuffer(b); }
  void* mapped(mgrt::Buffer* b) override { return inner_->mapped(b); }
  mgrt_status upload(const std::vector<mgrt::Upload>& u, const char* what) override { return inner_->upload(u, what); }
  mgrt_status download(const std::vector<mgrt::Download>& d, const char* what) override {
    return inner_->download(d, what);
  }
  mgrt_status zero(const std::vector<mgrt::Buffer*>& b, const char* what) override { return inner_->zero(b, what); }
  mgrt_status createPipeline(const mgrt::KernelCode& code, const char* what, mgrt::Pipeline** out) override {
    return inner_->createPipeline(code, what, out);
  }
  void destroyPipeline(mgrt::Pipeline* p) override { inner_->destroyPipeline(p); }
  mgrt_status openPipelineCache(const char* path) override { return inner_->openPipelineCache(path); }
  void savePipelineCache() override { inner_->savePipelineCache(); }
  mgrt::PipelineCacheStatus pipelineCacheStatus() override { return inner_->pipelineCacheStatus(); }
  mgrt_status record(const mgrt::WorkList&, mgrt::Recording** out) override {
    *out = nullptr;
    ++records;
    return mgrt::fail(MGRT_OUT_OF_MEMORY, "recording: out of device memory (injected by the test)");
  }
  void destroyRecording(mgrt::Recording* r) override { inner_->destroyRecording(r); }
  mgrt_status createTimeline(const char* what, mgrt::Timeline** out) override {
    return inner_->createTimeline(what, out);
  }
  void destroyTimeline(mgrt::Timeline* t) override { inner_->destroyTimeline(t); }
  mgrt_status submit(mgrt::Recording* r, const mgrt::SubmitSync& sync, const char* what) override {
    return inner_->submit(r, sync, what);
  }
  mgrt_status wait(mgrt::Recording* r, const char* what) override { return inner_->wait(r, what); }
  double gpuMilliseconds(mgrt::Recording* r) override { return inner_->gpuMilliseconds(r); }
  mgrt_status dispatchTimes(mgrt::Recording* r, std::vector<uint64_t>* ns) override {
    return inner_->dispatchTimes(r, ns);
  }
  int records = 0;

 private:
  mgrt::Backend* inner_;
};

}  // namespace

TEST_CASE("a bind whose re-recording fails leaves the session as it was", "[runtime][app-vulkan]") {
  AppVulkan app;
  gMessages = 0;
  {
    const mgrt_vulkan_device dev = app.handles();
    mgrt_context* ctx = nullptr;
    REQUIRE(mgrt_context_create_vulkan(&dev, &ctx) == MGRT_OK);
    const uint32_t n = 256;
    const std::vector<uint8_t> bytes = mgb::writeBundle(addSpec(n));
    mgrt_model* m = nullptr;
    REQUIRE(mgrt_model_load(ctx, bytes.data(), bytes.size(), &m) == MGRT_OK);
    mgrt_session* s = nullptr;
    REQUIRE(mgrt_session_create(m, "infer", &s) == MGRT_OK);
    AppBuffer in(app, n * 4), out(app, n * 4), other(app, n * 4);
    REQUIRE(mgrt_session_bind_vulkan_buffer(s, "a", in.buffer, 0, n * 4) == MGRT_OK);
    REQUIRE(mgrt_session_bind_vulkan_buffer(s, "y2", out.buffer, 0, n * 4) == MGRT_OK);
    auto runAndCheck = [&](int round) {  // reads `in`, writes `out`
      for (uint32_t i = 0; i < n; ++i) in.floats(0)[i] = float((i + round) % 3);
      const mgrt_status st = mgrt_session_run(s);
      INFO(mgrt_last_error());
      REQUIRE(st == MGRT_OK);
      for (uint32_t i = 0; i < n; ++i) REQUIRE(out.floats(0)[i] == addY2(in.floats(0)[i], i));
    };
    runAndCheck(0);

    FailingRecord failing(m->backend);
    mgrt::Backend* real = m->backend;
    m->backend = &failing;
    CHECK(mgrt_session_bind_vulkan_buffer(s, "y2", other.buffer, 0, n * 4) == MGRT_OUT_OF_MEMORY);  // a re-bind
    CHECK_THAT(mgrt_last_error(), Catch::Contains("injected by the test"));
    CHECK(mgrt_session_bind_vulkan_buffer(s, "a", VK_NULL_HANDLE, 0, 0) == MGRT_OUT_OF_MEMORY);  // an unbind
    CHECK(mgrt_session_bind_vulkan_buffer(s, "y1", other.buffer, 0, n * 4) == MGRT_OUT_OF_MEMORY);  // a new one
    CHECK(mgrt_session_set_profiling(s, 1) != MGRT_OK);  // the other re-recording call
    CHECK(failing.records == 4);
    m->backend = real;

    // Every binding as before the failures: `a` from `in`, y2 to `out`
    // (not `other`), y1 to the host; profiling off.
    for (uint32_t i = 0; i < n; ++i) other.floats(0)[i] = -7.0f;
    runAndCheck(1);
    CHECK(other.floats(0)[0] == -7.0f);
    CHECK(other.floats(0)[n - 1] == -7.0f);
    std::vector<float> host(n);
    CHECK(mgrt_session_set_input(s, "a", host.data(), n * 4) == MGRT_INVALID_ARGUMENT);  // still bound
    REQUIRE(mgrt_session_get_output(s, "y1", host.data(), n * 4) == MGRT_OK);            // still on the host
    CHECK(host[3] == in.floats(0)[3] + 0.75f + 0.5f);
    CHECK(mgrt_session_profile_count(s) == 0);
    // And later binds work again.
    REQUIRE(mgrt_session_bind_vulkan_buffer(s, "y2", other.buffer, 0, n * 4) == MGRT_OK);
    REQUIRE(mgrt_session_run(s) == MGRT_OK);
    CHECK(other.floats(0)[3] == addY2(in.floats(0)[3], 3));
    mgrt_session_destroy(s);
    mgrt_model_destroy(m);
    mgrt_context_destroy(ctx);
  }
  CHECK(gMessages == 0);
}
