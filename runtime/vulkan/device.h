// The Vulkan instance + logical device behind an mgrt_context.
// Vulkan is loaded at run time (volk), so libmgrt starts without a loader.
#pragma once

#include <volk.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/core/api.h"
#include "runtime/core/backend.h"

namespace mgrt {
namespace vk {

struct Device {
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  PFN_vkDestroyDebugUtilsMessengerEXT destroyMessenger = nullptr;
  bool validation = false;

  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties props{};
  VkPhysicalDeviceMemoryProperties memProps{};
  uint32_t apiVersion = 0;  // what both the instance and the device support
  DeviceCaps caps;          // limits, name, the features enabled below
  uint32_t timestampValidBits = 0;  // 0: no timestamps on the compute queue

  VkDevice device = VK_NULL_HANDLE;
  VolkDeviceTable fn{};  // device-level entry points of this device
  uint32_t queueFamily = 0;
  VkQueue queue = VK_NULL_HANDLE;
  std::mutex queueMutex;  // vkQueueSubmit needs external synchronization

  // Validation-layer messages (warning or error) seen so far.
  std::atomic<int> validationMessages{0};
  std::mutex messageMutex;
  std::string lastValidationMessage;

  std::atomic<bool> lost{false};  // set on VK_ERROR_DEVICE_LOST

  // false: the app's instance and device (mgrt_context_create_vulkan),
  // never destroyed here.
  bool owned = true;
  uint32_t instanceApiVersion = 0;  // the instance's apiVersion (0: what the loader offers)
  // Env MGRT_PIPELINE_STATS=1 on a device with VK_KHR_pipeline_executable_
  // properties: each pipeline's compiler statistics go to stderr
  // (pipeline_stats.cpp).
  bool pipelineStats = false;
};

// Creates instance (with validation if asked), picks a device, creates the
// logical device and queue. On failure *d holds whatever must be destroyed.
mgrt_status createDevice(const mgrt_context_options& opts, Device* d);
void destroyDevice(Device* d);

// True when opts or env MGRT_VALIDATION=1 ask for the validation layer.
bool validationRequested(const mgrt_context_options& opts);
// Instance part (instance.cpp): loader, layers, debug messenger.
mgrt_status createInstance(bool validation, Device* d);
// Physical device choice (select.cpp): device_index, env MGRT_DEVICE, type
// order; fills props, memProps, apiVersion, caps.limits and caps.name.
mgrt_status selectPhysicalDevice(int deviceIndex, Device* d);
// The same facts for d->physical as given (an app's device).
void describePhysicalDevice(Device* d);
// Loads libvulkan once per process (volk); false when there is none.
bool loadVulkan();
// Adopts the app's instance, device and queue (external_device.cpp).
struct AppDevice {
  VkInstance instance;
  VkPhysicalDevice physical;
  VkDevice device;
  VkQueue queue;
  uint32_t queueFamily, apiVersion, enabledFeatures;
};
mgrt_status adoptDevice(const AppDevice& app, Device* d);

// The optional features kernels may use (features.cpp): every one the
// device supports is enabled at device creation and reported in caps. The
// chain is linked in place, so it is filled where it lives.
struct FeatureChain {
  VkPhysicalDeviceFeatures2 features2{};  // head of pNext: core 1.0 features
  VkPhysicalDeviceVulkan11Features v11{};
  VkPhysicalDeviceVulkan12Features v12{};
  VkPhysicalDeviceVulkan13Features v13{};
  VkPhysicalDeviceCooperativeMatrixFeaturesNV coopNV{};
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomicFloat{};
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executableInfo{};
  std::vector<const char*> extensions;  // device extensions to enable
  FeatureChain() = default;
  FeatureChain(const FeatureChain&) = delete;
  FeatureChain& operator=(const FeatureChain&) = delete;
};
void queryFeatures(Device* d, uint32_t disabled, FeatureChain* enable);

// Maps a failed VkResult to a status with a message "<what>: <result>".
mgrt_status vkFail(Device* d, VkResult r, const char* what);
const char* resultName(VkResult r);

// Number of validation messages now; used to turn new messages into errors.
inline int validationCount(const Device* d) { return d->validationMessages.load(); }
// MGRT_DEVICE_ERROR naming the last validation message if the count moved.
mgrt_status checkValidation(Device* d, int before, const char* during);

}  // namespace vk
}  // namespace mgrt
