// mgrt_context_create_vulkan: the app creates the instance (with the
// validation layer and its own messenger, which counts every message mgrt's
// work causes), the device and the queue; mgrt runs a bundle on them, and
// the app's objects outlive the context and still work after it.
#include <catch2/catch.hpp>
#include <volk.h>

#include <cstring>
#include <vector>

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

  AppVulkan() {
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
