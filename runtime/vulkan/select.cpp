// Physical device choice and the limits the bundle verifier checks against.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "runtime/core/status.h"
#include "runtime/vulkan/device.h"

namespace mgrt {
namespace vk {
namespace {

// Lower is better: discrete, integrated, virtual, CPU, other.
int typeRank(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
  }
}

// First queue family with compute, or -1. Returns its timestamp bits too.
int computeFamily(VkPhysicalDevice p, uint32_t* timestampBits) {
  uint32_t n = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(p, &n, nullptr);
  std::vector<VkQueueFamilyProperties> families(n);
  vkGetPhysicalDeviceQueueFamilyProperties(p, &n, families.data());
  for (uint32_t i = 0; i < n; ++i) {
    if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && families[i].queueCount > 0) {
      *timestampBits = families[i].timestampValidBits;
      return int(i);
    }
  }
  return -1;
}

// Reads env MGRT_DEVICE; -1 when unset. False when set but not a number.
bool envDeviceIndex(int* out) {
  *out = -1;
  const char* env = std::getenv("MGRT_DEVICE");
  if (!env || !*env) return true;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(env, &end, 10);
  if (errno || *end || v < 0 || v > 1000000) return false;
  *out = int(v);
  return true;
}

void fillLimitsAndName(Device* d) {
  vkGetPhysicalDeviceProperties(d->physical, &d->props);
  vkGetPhysicalDeviceMemoryProperties(d->physical, &d->memProps);
  const VkPhysicalDeviceLimits& l = d->props.limits;
  DeviceLimits& m = d->caps.limits;
  m.minStorageBufferOffsetAlignment = l.minStorageBufferOffsetAlignment;
  m.maxStorageBufferRange = l.maxStorageBufferRange;
  for (int i = 0; i < 3; ++i) {
    m.maxWorkGroupCount[i] = l.maxComputeWorkGroupCount[i];
    m.maxWorkGroupSize[i] = l.maxComputeWorkGroupSize[i];
  }
  m.maxWorkGroupInvocations = l.maxComputeWorkGroupInvocations;
  m.maxStorageBuffersPerStage =
      std::min(l.maxPerStageDescriptorStorageBuffers, l.maxDescriptorSetStorageBuffers);

  uint64_t largest = 0, largestLocal = 0;
  for (uint32_t i = 0; i < d->memProps.memoryHeapCount; ++i) {
    const VkMemoryHeap& h = d->memProps.memoryHeaps[i];
    largest = std::max<uint64_t>(largest, h.size);
    if (h.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) largestLocal = std::max<uint64_t>(largestLocal, h.size);
  }
  m.deviceLocalHeapSize = largestLocal ? largestLocal : largest;

  // Vulkan 1.1/1.2 properties: allocation cap and the driver's name.
  d->apiVersion = std::min(d->props.apiVersion, d->instanceApiVersion ? d->instanceApiVersion : volkGetInstanceVersion());
  const uint32_t api = d->apiVersion;
  m.maxAllocationSize = m.deviceLocalHeapSize;
  // SPIR-V versions each Vulkan core version must accept.
  m.maxSpirvVersion = api >= VK_API_VERSION_1_3   ? 0x00010600u
                      : api >= VK_API_VERSION_1_2 ? 0x00010500u
                      : api >= VK_API_VERSION_1_1 ? 0x00010300u
                                                  : 0x00010000u;
  std::string driver = format("driver %u", d->props.driverVersion);
  if (api >= VK_API_VERSION_1_1) {
    VkPhysicalDeviceMaintenance3Properties maint3{};
    maint3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
    VkPhysicalDeviceDriverProperties drv{};
    drv.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
    if (api >= VK_API_VERSION_1_2) maint3.pNext = &drv;
    VkPhysicalDeviceProperties2 p2{};
    p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    p2.pNext = &maint3;
    vkGetPhysicalDeviceProperties2(d->physical, &p2);
    if (maint3.maxMemoryAllocationSize) m.maxAllocationSize = maint3.maxMemoryAllocationSize;
    if (api >= VK_API_VERSION_1_2 && drv.driverName[0]) driver = drv.driverName;
  }
  d->caps.name = format("%s (Vulkan %u.%u, %s)", d->props.deviceName,
                        VK_API_VERSION_MAJOR(d->props.apiVersion),
                        VK_API_VERSION_MINOR(d->props.apiVersion), driver.c_str());
}

}  // namespace

void describePhysicalDevice(Device* d) { fillLimitsAndName(d); }

mgrt_status selectPhysicalDevice(int deviceIndex, Device* d) {
  uint32_t n = 0;
  VkResult r = vkEnumeratePhysicalDevices(d->instance, &n, nullptr);
  if (r != VK_SUCCESS) return vkFail(d, r, "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> devices(n);
  r = vkEnumeratePhysicalDevices(d->instance, &n, devices.data());
  if (r < 0) return vkFail(d, r, "vkEnumeratePhysicalDevices");
  devices.resize(n);
  if (n == 0) return fail(MGRT_NO_DEVICE, "no Vulkan device found");

  if (deviceIndex < 0 && !envDeviceIndex(&deviceIndex))
    return fail(MGRT_INVALID_ARGUMENT, "MGRT_DEVICE='%s' is not a device index",
                std::getenv("MGRT_DEVICE"));

  int chosen = -1;
  uint32_t bits = 0;
  if (deviceIndex >= 0) {
    if (uint32_t(deviceIndex) >= n)
      return fail(MGRT_NO_DEVICE, "device %d requested but only %u Vulkan device(s) found",
                  deviceIndex, n);
    if (computeFamily(devices[size_t(deviceIndex)], &bits) < 0)
      return fail(MGRT_UNSUPPORTED, "device %d has no compute queue", deviceIndex);
    chosen = deviceIndex;
  } else {
    int bestRank = 1 << 30;
    for (uint32_t i = 0; i < n; ++i) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(devices[i], &p);
      if (computeFamily(devices[i], &bits) < 0) continue;
      if (typeRank(p.deviceType) < bestRank) {
        bestRank = typeRank(p.deviceType);
        chosen = int(i);
      }
    }
    if (chosen < 0) return fail(MGRT_NO_DEVICE, "no Vulkan device with a compute queue");
  }
  d->physical = devices[size_t(chosen)];
  d->queueFamily = uint32_t(computeFamily(d->physical, &d->timestampValidBits));
  fillLimitsAndName(d);
  return MGRT_OK;
}

}  // namespace vk
}  // namespace mgrt
