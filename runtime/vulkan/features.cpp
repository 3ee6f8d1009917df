// The optional features kernel variants may use (mgb::Feature bits in
// caps.limits.features): each one the device supports, and the app did not
// turn off (mgrt_context_options.disable_features), is enabled on the
// logical device, so a feature bit means "a kernel may use it". Queried
// through the Vulkan 1.2/1.3 feature structs only: an older device reports
// none and runs the portable kernels. The runtime's SPIR-V checks allow a
// variant exactly the capabilities its declared features stand for.
// Timeline semaphores (caps.timelines) are enabled the same way, for the
// runtime's own use rather than kernels'.
//
// Not enabled yet: KHR cooperative matrices and bfloat16. Debian 12's
// Vulkan headers and validation layer (1.3.239) do not know their feature
// structs (the layer reports them as invalid pNext entries, seen on the
// H200), and the KHR matrices need the Vulkan memory model, which changes
// the rules for the atomics existing kernels use. No kernel needs them yet;
// NV cooperative matrices (known to these headers) stand in.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "formats/mgb_generated.h"
#include "runtime/vulkan/device.h"
#include "runtime/vulkan/pipeline.h"

namespace mgrt {
namespace vk {
namespace {

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
void link(FeatureChain* c, bool v13, bool coopNV, bool atomicFloat) {
  c->features2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  c->v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  c->v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  c->v13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
  c->coopNV.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV;
  c->atomicFloat.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT;
  void** next = &c->features2.pNext;
  *next = &c->v11;
  next = &c->v11.pNext;
  *next = &c->v12;
  next = &c->v12.pNext;
  if (v13) {
    *next = &c->v13;
    next = &c->v13.pNext;
  }
  if (coopNV) {
    *next = &c->coopNV;
    next = &c->coopNV.pNext;
  }
  if (atomicFloat) *next = &c->atomicFloat;
}

// Subgroup sizes (Vulkan 1.1 default size; 1.3 range when a kernel may ask
// for one), whether compute shaders have the subgroup operations kernels
// use, and the shared-memory limit.
bool querySubgroups(Device* d, bool sizeControl) {
  DeviceCaps& caps = d->caps;
  caps.limits.maxSharedMemory = d->props.limits.maxComputeSharedMemorySize;
  if (d->apiVersion < VK_API_VERSION_1_1) return false;
  VkPhysicalDeviceSubgroupProperties sub{};
  sub.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  VkPhysicalDeviceVulkan13Properties p13{};
  p13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES;
  if (d->apiVersion >= VK_API_VERSION_1_3) sub.pNext = &p13;
  VkPhysicalDeviceProperties2 p2{};
  p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  p2.pNext = &sub;
  vkGetPhysicalDeviceProperties2(d->physical, &p2);
  caps.limits.subgroupSize = caps.minSubgroupSize = caps.maxSubgroupSize = sub.subgroupSize;
  if (sizeControl && (p13.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT)) {
    caps.minSubgroupSize = p13.minSubgroupSize;
    caps.maxSubgroupSize = p13.maxSubgroupSize;
  }
  const VkSubgroupFeatureFlags ops = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_VOTE_BIT |
                                     VK_SUBGROUP_FEATURE_ARITHMETIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT |
                                     VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
  return (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) && (sub.supportedOperations & ops) == ops;
}

// Cooperative matrix shapes (M, N, K) with fp16 A and B and f32 C and
// result (what the kernels' variants multiply: matmul_coop.glsl), in
// subgroup scope, from VK_NV_cooperative_matrix (Debian's headers lack the
// KHR query).
void readCoopShapes(Device* d) {
  if (!vkGetPhysicalDeviceCooperativeMatrixPropertiesNV) return;
  uint32_t n = 0;
  if (vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(d->physical, &n, nullptr) != VK_SUCCESS) return;
  std::vector<VkCooperativeMatrixPropertiesNV> props(n);
  for (auto& p : props) p.sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV;
  if (vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(d->physical, &n, props.data()) < 0) return;
  DeviceLimits& l = d->caps.limits;
  for (uint32_t i = 0; i < n && l.coopShapeCount < DeviceLimits::kMaxCoopShapes; ++i) {
    const VkCooperativeMatrixPropertiesNV& p = props[i];
    if (p.AType != VK_COMPONENT_TYPE_FLOAT16_NV || p.BType != VK_COMPONENT_TYPE_FLOAT16_NV ||
        p.CType != VK_COMPONENT_TYPE_FLOAT32_NV || p.DType != VK_COMPONENT_TYPE_FLOAT32_NV ||
        p.scope != VK_SCOPE_SUBGROUP_NV)
      continue;
    bool seen = false;
    for (uint32_t k = 0; k < l.coopShapeCount; ++k)
      seen |= l.coopShapes[k][0] == p.MSize && l.coopShapes[k][1] == p.NSize && l.coopShapes[k][2] == p.KSize;
    if (seen) continue;
    const uint32_t shape[3] = {p.MSize, p.NSize, p.KSize};
    std::memcpy(l.coopShapes[l.coopShapeCount++], shape, sizeof shape);
  }
}

// Env NAME=N (a positive integer) lowers *limit to at most N.
void capFromEnv(const char* name, uint32_t* limit) {
  const char* env = std::getenv(name);
  if (!env || !*env) return;
  char* end = nullptr;
  const unsigned long v = std::strtoul(env, &end, 10);
  if (!*end && v >= 1) *limit = uint32_t(std::min<unsigned long>(v, *limit));
}

// MGRT_MAX_INVOCATIONS / MGRT_MAX_SHARED_BYTES=N: choose kernel variants as
// if the device allowed at most N invocations per workgroup / N bytes of
// workgroup memory (the portable builds of the 512-invocation and 48 KiB
// variants on a big GPU: their tests, A/B runs).
void capVariantLimitsFromEnv(DeviceLimits& l) {
  capFromEnv("MGRT_MAX_INVOCATIONS", &l.maxWorkGroupInvocations);
  capFromEnv("MGRT_MAX_SHARED_BYTES", &l.maxSharedMemory);
}

}  // namespace

void queryFeatures(Device* d, uint32_t disabled, FeatureChain* enable) {
  VkPhysicalDeviceFeatures supported1{};
  vkGetPhysicalDeviceFeatures(d->physical, &supported1);
  // Bounds-checked buffer access where offered: kernels index with values
  // from the (untrusted) bundle, so a wrong index must not fault the GPU.
  enable->features2.features.robustBufferAccess = supported1.robustBufferAccess;
  DeviceCaps& caps = d->caps;
  uint32_t& features = caps.limits.features;
  features = 0;
  caps.timestamps = d->timestampValidBits > 0 && d->props.limits.timestampPeriod > 0;
  caps.timelines = false;
  enable->features2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  if (d->apiVersion < VK_API_VERSION_1_2) {  // 1.0/1.1: the core features only (no KHR timeline semaphores, no stream waits)
    querySubgroups(d, false);
    capVariantLimitsFromEnv(caps.limits);
    return;
  }
  const std::vector<VkExtensionProperties> exts = deviceExtensions(d->physical);
  const bool v13 = d->apiVersion >= VK_API_VERSION_1_3;
  const bool coopNV = hasExtension(exts, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  const bool atomicFloat = hasExtension(exts, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
  FeatureChain has;
  link(&has, v13, coopNV, atomicFloat);
  vkGetPhysicalDeviceFeatures2(d->physical, &has.features2);

  // On when the device has it and the app did not turn it off.
  auto want = [&](mgb::Feature f, bool supported) {
    const bool on = supported && !(disabled & uint32_t(f));
    if (on) features |= uint32_t(f);
    return VkBool32(on);
  };
  // SPIR-V 1.0 modules (glslc --target-env=vulkan1.0) keep storage buffers
  // in the Uniform storage class, which needs the uniformAndStorage* half
  // too: Storage16 and Storage8 stand for both.
  enable->v11.storageBuffer16BitAccess = enable->v11.uniformAndStorageBuffer16BitAccess = want(
      mgb::Feature::Storage16, has.v11.storageBuffer16BitAccess && has.v11.uniformAndStorageBuffer16BitAccess);
  enable->v12.storageBuffer8BitAccess = enable->v12.uniformAndStorageBuffer8BitAccess = want(
      mgb::Feature::Storage8, has.v12.storageBuffer8BitAccess && has.v12.uniformAndStorageBuffer8BitAccess);
  enable->v12.shaderFloat16 = want(mgb::Feature::Float16, has.v12.shaderFloat16);
  enable->v12.shaderInt8 = want(mgb::Feature::Int8, has.v12.shaderInt8);
  // Not a kernel feature: the sessions' timeline semaphores (mgrt_vulkan.h).
  caps.timelines = has.v12.timelineSemaphore && !(disabled & MGRT_FEATURE_TIMELINE_SEMAPHORE);
  enable->v12.timelineSemaphore = caps.timelines;
  // A kernel variant may require a subgroup size, and all lanes active.
  const bool sizeControl = v13 && has.v13.subgroupSizeControl && has.v13.computeFullSubgroups;
  enable->v13.subgroupSizeControl = enable->v13.computeFullSubgroups = sizeControl;
  // The cooperative matrix kernels use the Vulkan memory model (GLSL's
  // gl_Scope* needs it), so that feature comes with them.
  enable->coopNV.cooperativeMatrix = want(mgb::Feature::CooperativeMatrixNV,
                                          coopNV && has.coopNV.cooperativeMatrix && has.v12.vulkanMemoryModel);
  enable->v12.vulkanMemoryModel = enable->coopNV.cooperativeMatrix;
  if (enable->coopNV.cooperativeMatrix) enable->extensions.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  // Float adds into storage buffers (the split-K kernels' partial sums;
  // their portable variants add by compare-and-swap).
  enable->atomicFloat.shaderBufferFloat32AtomicAdd =
      want(mgb::Feature::AtomicFloat32Add, atomicFloat && has.atomicFloat.shaderBufferFloat32AtomicAdd);
  if (enable->atomicFloat.shaderBufferFloat32AtomicAdd)
    enable->extensions.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
  link(enable, v13, enable->coopNV.cooperativeMatrix, enable->atomicFloat.shaderBufferFloat32AtomicAdd);
  want(mgb::Feature::Subgroup, querySubgroups(d, sizeControl));
  // In-stream waits need a queue that starts dispatches in order and keeps
  // the started ones running (a later dispatch's workgroups spin on an
  // earlier one's counters). Vulkan promises neither; NVIDIA's GPUs do both
  // (bench/stream_probe, H100), and lavapipe runs each dispatch to its end
  // before the next. Other devices keep their barriers, and so does a
  // validated device: the layer's synchronization validation cannot see
  // the waits and would report each dropped barrier as a hazard (the
  // sanitized test run, without the layer, runs the waits on lavapipe).
  want(mgb::Feature::StreamSync,
       !d->validation && (d->props.vendorID == 0x10DE || d->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU));
  if (enable->coopNV.cooperativeMatrix) readCoopShapes(d);
  enablePipelineStats(d, hasExtension(exts, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME), enable);  // MGRT_PIPELINE_STATS=1 (pipeline_stats.cpp)
  capVariantLimitsFromEnv(caps.limits);
}

}  // namespace vk
}  // namespace mgrt
