// mgrt_context_create_vulkan (runtime/include/mgrt_vulkan.h): a context on
// the app's instance, device and queue (the session calls of that header
// are in session_vulkan.cpp). What mgrt would have chosen and
// enabled itself is checked instead: the queue family has compute, the
// features the app says it enabled exist on the device.
#include <memory>
#include <vector>

#include "runtime/core/objects.h"
#include "runtime/core/status.h"
#include "runtime/vulkan/device.h"
#include "runtime/vulkan/vulkan_api.h"

namespace mgrt {

mgrt_status createVulkanBackendOn(const vk::AppDevice& app, std::unique_ptr<Backend>* out);  // backend.cpp

namespace vk {

mgrt_status adoptDevice(const AppDevice& app, Device* d) {
  if (!loadVulkan()) return fail(MGRT_NO_DEVICE, "Vulkan loader (libvulkan.so.1) not found");
  d->owned = false;
  d->instance = app.instance;
  d->instanceApiVersion = app.apiVersion ? app.apiVersion : VK_API_VERSION_1_0;
  volkLoadInstanceOnly(d->instance);
  d->physical = app.physical;
  uint32_t n = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(d->physical, &n, nullptr);
  std::vector<VkQueueFamilyProperties> families(n);
  vkGetPhysicalDeviceQueueFamilyProperties(d->physical, &n, families.data());
  if (app.queueFamily >= n)
    return fail(MGRT_INVALID_ARGUMENT, "queue_family %u: the device has %u queue families", app.queueFamily, n);
  if (!(families[app.queueFamily].queueFlags & VK_QUEUE_COMPUTE_BIT))
    return fail(MGRT_INVALID_ARGUMENT, "queue_family %u has no compute (VK_QUEUE_COMPUTE_BIT)", app.queueFamily);
  d->queueFamily = app.queueFamily;
  d->timestampValidBits = families[app.queueFamily].timestampValidBits;
  describePhysicalDevice(d);
  // Every feature the device has, minus those the app did not enable.
  FeatureChain unused;
  queryFeatures(d, ~app.enabledFeatures, &unused);
  const uint32_t missing = app.enabledFeatures & ~contextFeatures(d->caps);
  if (missing)
    return fail(MGRT_UNSUPPORTED, "enabled_features 0x%x names features %s does not have (0x%x)", app.enabledFeatures,
                d->props.deviceName, missing);
  d->device = app.device;
  volkLoadDeviceTable(&d->fn, d->device);
  d->queue = app.queue;
  return MGRT_OK;
}

}  // namespace vk
}  // namespace mgrt

mgrt_status mgrt_context_create_vulkan(const mgrt_vulkan_device* dev, mgrt_context** out) {
  using namespace mgrt;
  MGRT_API_GUARD({
    if (!out) return fail(MGRT_INVALID_ARGUMENT, "mgrt_context_create_vulkan: out is null");
    *out = nullptr;
    if (!dev) return fail(MGRT_INVALID_ARGUMENT, "mgrt_context_create_vulkan: device is null");
    const char* missing = !dev->instance ? "instance" : !dev->physical_device ? "physical_device"
                          : !dev->device ? "device" : !dev->queue ? "queue" : nullptr;
    if (missing) return fail(MGRT_INVALID_ARGUMENT, "mgrt_context_create_vulkan: %s is null", missing);
    const vk::AppDevice app{dev->instance, dev->physical_device, dev->device,    dev->queue,
                            dev->queue_family, dev->api_version,  dev->enabled_features};
    std::unique_ptr<mgrt_context> ctx(new mgrt_context());
    MGRT_TRY(createVulkanBackendOn(app, &ctx->backend));
    *out = ctx.release();
    return MGRT_OK;
  })
}
