// Logical device creation/destruction and VkResult → mgrt_status mapping.
#include "runtime/vulkan/device.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "formats/features.h"
#include "runtime/core/status.h"

namespace mgrt {
namespace vk {
namespace {

bool hasDeviceExtension(VkPhysicalDevice p, const char* name) {
  uint32_t n = 0;
  if (vkEnumerateDeviceExtensionProperties(p, nullptr, &n, nullptr) != VK_SUCCESS) return false;
  std::vector<VkExtensionProperties> exts(n);
  if (vkEnumerateDeviceExtensionProperties(p, nullptr, &n, exts.data()) < 0) return false;
  for (uint32_t i = 0; i < n; ++i)
    if (std::strcmp(exts[i].extensionName, name) == 0) return true;
  return false;
}

}  // namespace

const char* resultName(VkResult r) {
  switch (r) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_OUT_OF_POOL_MEMORY: return "VK_ERROR_OUT_OF_POOL_MEMORY";
    case VK_ERROR_INVALID_SHADER_NV: return "VK_ERROR_INVALID_SHADER_NV";
    default: return "VkResult error";
  }
}

mgrt_status vkFail(Device* d, VkResult r, const char* what) {
  if (r == VK_ERROR_DEVICE_LOST) {
    if (d) d->lost = true;
    return fail(MGRT_DEVICE_ERROR, "%s: the GPU device was lost (VK_ERROR_DEVICE_LOST)", what);
  }
  if (r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY)
    return fail(MGRT_OUT_OF_MEMORY, "%s: %s", what, resultName(r));
  return fail(MGRT_DEVICE_ERROR, "%s failed: %s (%d)", what, resultName(r), int(r));
}

mgrt_status checkValidation(Device* d, int before, const char* during) {
  const int now = d->validationMessages.load();
  if (now == before) return MGRT_OK;
  std::lock_guard<std::mutex> lock(d->messageMutex);
  return fail(MGRT_DEVICE_ERROR, "validation layer reported %d message(s) during %s; last: %s",
              now - before, during, d->lastValidationMessage.c_str());
}

namespace {

// MGRT_DISABLE_FEATURES=Name[,Name..] (formats/features.h's names): kernel
// features not to enable even where the device has them, added to the
// options' disable_features (A/B runs of a variant against its fallback).
mgrt_status featuresDisabledByEnv(uint32_t* bits) {
  *bits = 0;
  const char* env = std::getenv("MGRT_DISABLE_FEATURES");
  if (!env) return MGRT_OK;
  const std::string list = env;
  for (size_t at = 0; at <= list.size();) {
    size_t end = list.find(',', at);
    if (end == std::string::npos) end = list.size();
    const std::string name = list.substr(at, end - at);
    at = end + 1;
    if (name.empty()) continue;
    uint32_t bit = 0;
    for (uint32_t i = 0; i < sizeof(mgb::kFeatureNames) / sizeof(mgb::kFeatureNames[0]); ++i)
      if (name == mgb::kFeatureNames[i]) bit = 1u << i;
    if (!bit)
      return failMessage(MGRT_INVALID_ARGUMENT, "MGRT_DISABLE_FEATURES: unknown feature '" + name + "' (known: " +
                                                    mgb::featureNames(mgb::kKnownFeatures) + ")");
    *bits |= bit;
  }
  return MGRT_OK;
}

}  // namespace

mgrt_status createDevice(const mgrt_context_options& opts, Device* d) {
  uint32_t envDisabled = 0;
  MGRT_TRY(featuresDisabledByEnv(&envDisabled));
  MGRT_TRY(createInstance(validationRequested(opts), d));
  MGRT_TRY(selectPhysicalDevice(opts.device_index, d));

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{};
  queue.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue.queueFamilyIndex = d->queueFamily;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;

  FeatureChain features;
  queryFeatures(d, opts.disable_features | envDisabled, &features);
  std::vector<const char*>& extensions = features.extensions;
  if (hasDeviceExtension(d->physical, "VK_KHR_portability_subset"))
    extensions.push_back("VK_KHR_portability_subset");  // required where offered

  VkDeviceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue;
  // VkPhysicalDeviceFeatures2 in pNext needs Vulkan 1.1.
  if (d->apiVersion >= VK_API_VERSION_1_1)
    info.pNext = &features.features2;
  else
    info.pEnabledFeatures = &features.features2.features;
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  const VkResult r = vkCreateDevice(d->physical, &info, nullptr, &d->device);
  if (r != VK_SUCCESS) {
    d->device = VK_NULL_HANDLE;
    return vkFail(d, r, "vkCreateDevice");
  }
  volkLoadDeviceTable(&d->fn, d->device);
  d->fn.vkGetDeviceQueue(d->device, d->queueFamily, 0, &d->queue);
  return MGRT_OK;
}

void destroyDevice(Device* d) {
  if (!d->owned) {  // the app's: wait for mgrt's own submissions, destroy nothing
    if (d->queue && !d->lost) {
      std::lock_guard<std::mutex> lock(d->queueMutex);
      d->fn.vkQueueWaitIdle(d->queue);
    }
    d->device = VK_NULL_HANDLE;
    d->instance = VK_NULL_HANDLE;
    return;
  }
  if (d->device) {
    d->fn.vkDeviceWaitIdle(d->device);
    d->fn.vkDestroyDevice(d->device, nullptr);
    d->device = VK_NULL_HANDLE;
  }
  if (d->messenger) {
    d->destroyMessenger(d->instance, d->messenger, nullptr);
    d->messenger = VK_NULL_HANDLE;
  }
  if (d->instance) {
    vkDestroyInstance(d->instance, nullptr);
    d->instance = VK_NULL_HANDLE;
  }
}

}  // namespace vk
}  // namespace mgrt
