// Loader + VkInstance: validation layer, debug messenger, portability.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "runtime/core/status.h"
#include "runtime/vulkan/device.h"

namespace mgrt {
namespace vk {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

std::once_flag gLoaderOnce;
VkResult gLoaderResult = VK_ERROR_INITIALIZATION_FAILED;
std::mutex gVolkMutex;  // volk keeps instance entry points in globals

VKAPI_ATTR VkBool32 VKAPI_CALL onDebugMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                              VkDebugUtilsMessageTypeFlagsEXT types,
                                              const VkDebugUtilsMessengerCallbackDataEXT* data,
                                              void* user) {
  if (severity < VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) return VK_FALSE;
  const char* msg = data && data->pMessage ? data->pMessage : "(no message)";
  const bool error = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  std::fprintf(stderr, "mgrt: vulkan %s: %s\n", error ? "error" : "warning", msg);
  // Loader chatter (GENERAL) is printed but not counted: the count is about
  // what this library does wrong, which the validation layer reports.
  if (types & (VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT)) {
    Device* d = static_cast<Device*>(user);
    std::lock_guard<std::mutex> lock(d->messageMutex);
    d->lastValidationMessage = msg;
    d->validationMessages.fetch_add(1);
  }
  return VK_FALSE;
}

bool hasLayer(const char* name) {
  uint32_t n = 0;
  if (vkEnumerateInstanceLayerProperties(&n, nullptr) != VK_SUCCESS) return false;
  std::vector<VkLayerProperties> layers(n);
  if (vkEnumerateInstanceLayerProperties(&n, layers.data()) < 0) return false;
  for (uint32_t i = 0; i < n; ++i)
    if (std::strcmp(layers[i].layerName, name) == 0) return true;
  return false;
}

bool hasExtension(const char* layer, const char* name) {
  uint32_t n = 0;
  if (vkEnumerateInstanceExtensionProperties(layer, &n, nullptr) != VK_SUCCESS) return false;
  std::vector<VkExtensionProperties> exts(n);
  if (vkEnumerateInstanceExtensionProperties(layer, &n, exts.data()) < 0) return false;
  for (uint32_t i = 0; i < n; ++i)
    if (std::strcmp(exts[i].extensionName, name) == 0) return true;
  return false;
}

VkDebugUtilsMessengerCreateInfoEXT messengerInfo(Device* d) {
  VkDebugUtilsMessengerCreateInfoEXT info{};
  info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
  info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  info.pfnUserCallback = onDebugMessage;
  info.pUserData = d;
  return info;
}

}  // namespace

bool loadVulkan() {
  std::call_once(gLoaderOnce, [] { gLoaderResult = volkInitialize(); });
  return gLoaderResult == VK_SUCCESS;
}

mgrt_status createInstance(bool validation, Device* d) {
  if (!loadVulkan())
    return fail(MGRT_NO_DEVICE, "Vulkan loader (libvulkan.so.1) not found");

  uint32_t apiVersion = volkGetInstanceVersion();
  if (apiVersion == 0) apiVersion = VK_API_VERSION_1_0;
  if (apiVersion > VK_API_VERSION_1_3) apiVersion = VK_API_VERSION_1_3;

  std::vector<const char*> layers, extensions;
  bool debugUtils = false, syncValidation = false;
  if (validation) {
    if (!hasLayer(kValidationLayer))
      return fail(MGRT_UNSUPPORTED,
                  "validation requested but %s is not installed (Debian: vulkan-validationlayers)",
                  kValidationLayer);
    layers.push_back(kValidationLayer);
    debugUtils = hasExtension(nullptr, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) ||
                 hasExtension(kValidationLayer, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (!debugUtils)
      return fail(MGRT_UNSUPPORTED, "validation requested but %s is not available",
                  VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    syncValidation = hasExtension(kValidationLayer, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
    if (syncValidation) extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
  }
  VkInstanceCreateFlags flags = 0;
  if (hasExtension(nullptr, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
    // Lets the loader list MoltenVK-style drivers; harmless elsewhere.
    extensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
    flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  }

  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pEngineName = "mgrt";
  app.apiVersion = apiVersion;

  VkDebugUtilsMessengerCreateInfoEXT dbg = messengerInfo(d);
  // Synchronization validation checks our barriers, which core checks do not.
  const VkValidationFeatureEnableEXT enables[] = {
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT features{};
  features.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = enables;
  if (syncValidation) features.pNext = &dbg;

  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pNext = syncValidation ? static_cast<const void*>(&features)
               : debugUtils   ? static_cast<const void*>(&dbg)
                              : nullptr;
  info.flags = flags;
  info.pApplicationInfo = &app;
  info.enabledLayerCount = uint32_t(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();

  VkResult r = vkCreateInstance(&info, nullptr, &d->instance);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
    return fail(MGRT_NO_DEVICE, "no Vulkan driver found (vkCreateInstance: %s)", resultName(r));
  if (r != VK_SUCCESS) {
    d->instance = VK_NULL_HANDLE;
    return vkFail(d, r, "vkCreateInstance");
  }
  {
    // The loader hands out the same trampolines for every instance, so the
    // globals stay valid when several contexts exist.
    std::lock_guard<std::mutex> lock(gVolkMutex);
    volkLoadInstanceOnly(d->instance);
  }
  d->validation = validation;
  if (debugUtils) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(d->instance, "vkCreateDebugUtilsMessengerEXT"));
    d->destroyMessenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(d->instance, "vkDestroyDebugUtilsMessengerEXT"));
    if (!create || !d->destroyMessenger)
      return fail(MGRT_UNSUPPORTED, "vkCreateDebugUtilsMessengerEXT is not available");
    r = create(d->instance, &dbg, nullptr, &d->messenger);
    if (r != VK_SUCCESS) return vkFail(d, r, "vkCreateDebugUtilsMessengerEXT");
  }
  return MGRT_OK;
}

bool validationRequested(const mgrt_context_options& opts) {
  if (opts.enable_validation) return true;
  const char* env = std::getenv("MGRT_VALIDATION");
  return env && std::strcmp(env, "1") == 0;
}

}  // namespace vk
}  // namespace mgrt
