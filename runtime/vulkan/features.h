// Optional device features kernel variants may need (mgb::Feature bits):
// what the physical device has, and the structures that enable them.
#pragma once

#include <volk.h>

#include <vector>

#include "runtime/vulkan/device.h"

namespace mgrt {
namespace vk {

// The pNext chain of VkDeviceCreateInfo that enables the chosen features.
struct FeatureChain {
  VkPhysicalDeviceFeatures2 features2{};
  VkPhysicalDeviceVulkan11Features v11{};
  VkPhysicalDeviceVulkan12Features v12{};
  VkPhysicalDeviceCooperativeMatrixFeaturesNV coopNV{};
  bool useFeatures2 = false;  // Vulkan >= 1.2: chain features2; else pEnabledFeatures
  std::vector<const char*> extensions;
};

// Reads what the device supports, leaves out `disabled` (mgb::Feature
// bits), records the result in d->limits (features, subgroup size, shared
// memory, cooperative matrix shapes) and fills `chain` to enable exactly
// that. `base` holds the core features already chosen (robustBufferAccess).
void chooseFeatures(Device* d, uint32_t disabled, const VkPhysicalDeviceFeatures& base, FeatureChain* chain);

}  // namespace vk
}  // namespace mgrt
