// Optional features for kernel variants. Only Vulkan >= 1.2 devices get
// them (their feature structs are core there); older devices run the
// portable variants. The runtime enables exactly what a variant may use, so
// a kernel using anything more is refused by the SPIR-V checks, not left to
// the driver. BFloat16 and KHR cooperative matrices need newer headers than
// Debian 12's Vulkan 1.3.239 and are never enabled yet.
#include "runtime/vulkan/features.h"

#include <cstring>

#include "formats/mgb_generated.h"

namespace mgrt {
namespace vk {
namespace {

bool hasExtension(VkPhysicalDevice p, const char* name) {
  uint32_t n = 0;
  if (vkEnumerateDeviceExtensionProperties(p, nullptr, &n, nullptr) != VK_SUCCESS) return false;
  std::vector<VkExtensionProperties> exts(n);
  if (vkEnumerateDeviceExtensionProperties(p, nullptr, &n, exts.data()) < 0) return false;
  for (uint32_t i = 0; i < n; ++i)
    if (std::strcmp(exts[i].extensionName, name) == 0) return true;
  return false;
}

constexpr uint32_t bit(mgb::Feature f) { return uint32_t(f); }

// Cooperative matrix shapes with fp16 A and B (fp16 or fp32 accumulators).
void readCoopShapes(Device* d) {
  if (!vkGetPhysicalDeviceCooperativeMatrixPropertiesNV) return;
  uint32_t n = 0;
  if (vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(d->physical, &n, nullptr) != VK_SUCCESS) return;
  std::vector<VkCooperativeMatrixPropertiesNV> props(n);
  for (auto& p : props) p.sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV;
  if (vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(d->physical, &n, props.data()) < 0) return;
  DeviceLimits& l = d->limits;
  for (uint32_t i = 0; i < n && l.coopShapeCount < DeviceLimits::kMaxCoopShapes; ++i) {
    const VkCooperativeMatrixPropertiesNV& p = props[i];
    if (p.AType != VK_COMPONENT_TYPE_FLOAT16_NV || p.BType != VK_COMPONENT_TYPE_FLOAT16_NV) continue;
    bool seen = false;
    for (uint32_t k = 0; k < l.coopShapeCount; ++k)
      seen |= l.coopShapes[k][0] == p.MSize && l.coopShapes[k][1] == p.NSize && l.coopShapes[k][2] == p.KSize;
    if (seen) continue;
    l.coopShapes[l.coopShapeCount][0] = p.MSize;
    l.coopShapes[l.coopShapeCount][1] = p.NSize;
    l.coopShapes[l.coopShapeCount][2] = p.KSize;
    ++l.coopShapeCount;
  }
}

}  // namespace

void chooseFeatures(Device* d, uint32_t disabled, const VkPhysicalDeviceFeatures& base, FeatureChain* chain) {
  DeviceLimits& l = d->limits;
  l.maxSharedMemory = d->props.limits.maxComputeSharedMemorySize;
  l.features = 0;
  chain->features2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  chain->features2.features = base;
  const uint32_t api = std::min(d->props.apiVersion, volkGetInstanceVersion());
  if (api < VK_API_VERSION_1_2 || !vkGetPhysicalDeviceFeatures2 || !vkGetPhysicalDeviceProperties2) return;
  chain->useFeatures2 = true;

  // What the device has.
  VkPhysicalDeviceVulkan11Features has11{};
  has11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  VkPhysicalDeviceVulkan12Features has12{};
  has12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  has11.pNext = &has12;
  VkPhysicalDeviceCooperativeMatrixFeaturesNV hasCoop{};
  hasCoop.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV;
  const bool coopExt = hasExtension(d->physical, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  if (coopExt) has12.pNext = &hasCoop;
  VkPhysicalDeviceFeatures2 has{};
  has.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  has.pNext = &has11;
  vkGetPhysicalDeviceFeatures2(d->physical, &has);

  VkPhysicalDeviceSubgroupProperties sub{};
  sub.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  VkPhysicalDeviceProperties2 props{};
  props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  props.pNext = &sub;
  vkGetPhysicalDeviceProperties2(d->physical, &props);
  l.subgroupSize = sub.subgroupSize;

  // What is enabled: what the device has, minus what the app turned off.
  auto want = [&](mgb::Feature f, bool supported) {
    const bool on = supported && !(disabled & bit(f));
    if (on) l.features |= bit(f);
    return VkBool32(on);
  };
  chain->v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  chain->v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  // SPIR-V 1.0 modules (glslc --target-env=vulkan1.0) put storage buffers
  // in the Uniform storage class, which needs the uniformAndStorage* half
  // too: Storage16/Storage8 stand for both.
  chain->v11.storageBuffer16BitAccess = chain->v11.uniformAndStorageBuffer16BitAccess =
      want(mgb::Feature::Storage16, has11.storageBuffer16BitAccess && has11.uniformAndStorageBuffer16BitAccess);
  chain->v12.storageBuffer8BitAccess = chain->v12.uniformAndStorageBuffer8BitAccess =
      want(mgb::Feature::Storage8, has12.storageBuffer8BitAccess && has12.uniformAndStorageBuffer8BitAccess);
  chain->v12.shaderFloat16 = want(mgb::Feature::Float16, has12.shaderFloat16);
  chain->v12.shaderInt8 = want(mgb::Feature::Int8, has12.shaderInt8);
  const VkSubgroupFeatureFlags ops = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_VOTE_BIT |
                                     VK_SUBGROUP_FEATURE_ARITHMETIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT |
                                     VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
  want(mgb::Feature::Subgroup,
       (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) && (sub.supportedOperations & ops) == ops);
  chain->v11.pNext = &chain->v12;
  chain->features2.pNext = &chain->v11;
  if (coopExt && want(mgb::Feature::CooperativeMatrixNV, hasCoop.cooperativeMatrix)) {
    chain->coopNV.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV;
    chain->coopNV.cooperativeMatrix = VK_TRUE;
    chain->v12.pNext = &chain->coopNV;
    chain->extensions.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
    readCoopShapes(d);
  }
}

}  // namespace vk
}  // namespace mgrt
