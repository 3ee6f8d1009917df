// DeviceCaps for kernel-variant choice: which optional shader features the
// device supports. Each supported one is also enabled on the logical device,
// so caps means "a kernel may use it". Queried through the Vulkan 1.2/1.3
// feature structs only: an older device reports none of them and runs the
// portable kernels.
#include <cstring>
#include <vector>

#include "runtime/vulkan/device.h"

namespace mgrt {
namespace vk {
namespace {

// Extensions newer than some headers we build against (Debian 12 ships
// 1.3.239): their names and structure types, from the Vulkan registry.
constexpr const char* kCooperativeMatrix = "VK_KHR_cooperative_matrix";
constexpr const char* kBfloat16 = "VK_KHR_shader_bfloat16";
constexpr VkStructureType kCooperativeMatrixFeatures = VkStructureType(1000506000);
constexpr VkStructureType kBfloat16Features = VkStructureType(1000141000);

bool hasExtension(const std::vector<VkExtensionProperties>& exts, const char* name) {
  for (const VkExtensionProperties& e : exts)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

std::vector<VkExtensionProperties> deviceExtensions(VkPhysicalDevice p) {
  uint32_t n = 0;
  if (vkEnumerateDeviceExtensionProperties(p, nullptr, &n, nullptr) != VK_SUCCESS) return {};
  std::vector<VkExtensionProperties> exts(n);
  if (vkEnumerateDeviceExtensionProperties(p, nullptr, &n, exts.data()) < 0) return {};
  exts.resize(n);
  return exts;
}

// Links the structs of `c` that apply, in order, behind c->features2.
void link(FeatureChain* c, bool v13, bool coop, bool bf16) {
  c->features2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  c->v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  c->v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  c->v13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
  c->coop.sType = kCooperativeMatrixFeatures;
  c->bf16.sType = kBfloat16Features;
  void** next = &c->features2.pNext;
  *next = &c->v11;
  next = &c->v11.pNext;
  *next = &c->v12;
  next = &c->v12.pNext;
  if (v13) {
    *next = &c->v13;
    next = &c->v13.pNext;
  }
  if (coop) {
    *next = &c->coop;
    next = &c->coop.pNext;
  }
  if (bf16) *next = &c->bf16;
}

// Subgroup sizes (Vulkan 1.1 default size; 1.3 range when a kernel may ask
// for one) and the shared-memory limit.
void querySubgroups(Device* d, bool sizeControl) {
  DeviceCaps& caps = d->caps;
  caps.maxSharedMemory = d->props.limits.maxComputeSharedMemorySize;
  if (d->apiVersion < VK_API_VERSION_1_1) return;
  VkPhysicalDeviceSubgroupProperties sub{};
  sub.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  VkPhysicalDeviceVulkan13Properties p13{};
  p13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES;
  if (d->apiVersion >= VK_API_VERSION_1_3) sub.pNext = &p13;
  VkPhysicalDeviceProperties2 p2{};
  p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  p2.pNext = &sub;
  vkGetPhysicalDeviceProperties2(d->physical, &p2);
  caps.subgroupSize = caps.minSubgroupSize = caps.maxSubgroupSize = sub.subgroupSize;
  if (sizeControl && (p13.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT)) {
    caps.minSubgroupSize = p13.minSubgroupSize;
    caps.maxSubgroupSize = p13.maxSubgroupSize;
  }
}

}  // namespace

void queryFeatures(Device* d, FeatureChain* enable) {
  VkPhysicalDeviceFeatures supported1{};
  vkGetPhysicalDeviceFeatures(d->physical, &supported1);
  // Bounds-checked buffer access where offered: kernels index with values
  // from the (untrusted) bundle, so a wrong index must not fault the GPU.
  enable->features2.features.robustBufferAccess = supported1.robustBufferAccess;
  DeviceCaps& caps = d->caps;
  caps.timestamps = d->timestampValidBits > 0 && d->props.limits.timestampPeriod > 0;
  enable->features2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  if (d->apiVersion < VK_API_VERSION_1_2) {  // 1.0/1.1: the core features only
    querySubgroups(d, false);
    return;
  }
  const std::vector<VkExtensionProperties> exts = deviceExtensions(d->physical);
  const bool v13 = d->apiVersion >= VK_API_VERSION_1_3;
  const bool coop = hasExtension(exts, kCooperativeMatrix);
  const bool bf16 = hasExtension(exts, kBfloat16);
  FeatureChain supported;
  link(&supported, v13, coop, bf16);
  vkGetPhysicalDeviceFeatures2(d->physical, &supported.features2);

  enable->v11.storageBuffer16BitAccess = supported.v11.storageBuffer16BitAccess;
  enable->v12.storageBuffer8BitAccess = supported.v12.storageBuffer8BitAccess;
  enable->v12.shaderFloat16 = supported.v12.shaderFloat16;
  enable->v12.shaderInt8 = supported.v12.shaderInt8;
  // A kernel variant may require a subgroup size, and all lanes active.
  const bool sizeControl = v13 && supported.v13.subgroupSizeControl && supported.v13.computeFullSubgroups;
  enable->v13.subgroupSizeControl = enable->v13.computeFullSubgroups = sizeControl;
  enable->coop.cooperativeMatrix = coop && supported.coop.cooperativeMatrix;
  enable->bf16.shaderBFloat16Type = bf16 && supported.bf16.shaderBFloat16Type;
  if (enable->coop.cooperativeMatrix) enable->extensions.push_back(kCooperativeMatrix);
  if (enable->bf16.shaderBFloat16Type) enable->extensions.push_back(kBfloat16);
  link(enable, v13, enable->coop.cooperativeMatrix, enable->bf16.shaderBFloat16Type);

  caps.storage16Bit = enable->v11.storageBuffer16BitAccess;
  caps.storage8Bit = enable->v12.storageBuffer8BitAccess;
  caps.fp16Arithmetic = enable->v12.shaderFloat16;
  caps.int8Arithmetic = enable->v12.shaderInt8;
  caps.cooperativeMatrix = enable->coop.cooperativeMatrix;
  caps.bf16Arithmetic = enable->bf16.shaderBFloat16Type;
  querySubgroups(d, sizeControl);
}

}  // namespace vk
}  // namespace mgrt
