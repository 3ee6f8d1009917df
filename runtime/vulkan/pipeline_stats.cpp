// MGRT_PIPELINE_STATS=1: what the driver's compiler made of each kernel
// (VK_KHR_pipeline_executable_properties), one stderr line per executable.
// On NVIDIA the statistics include the register count per invocation, the
// number that, with the shared memory, sets how many workgroups a
// multiprocessor holds; kernel tuning reads it next to `mgc run --profile`.
// A diagnostic only: off by default, since capturing statistics may keep
// the driver from its pipeline cache.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "runtime/vulkan/pipeline.h"

namespace mgrt {
namespace vk {

namespace {

std::string statValue(const VkPipelineExecutableStatisticKHR& s) {
  char buf[64];
  switch (s.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
      return s.value.b32 ? "true" : "false";
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
      std::snprintf(buf, sizeof buf, "%" PRId64, s.value.i64);
      return buf;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
      std::snprintf(buf, sizeof buf, "%" PRIu64, s.value.u64);
      return buf;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
      std::snprintf(buf, sizeof buf, "%g", s.value.f64);
      return buf;
    default:
      return "?";
  }
}

}  // namespace

void enablePipelineStats(Device* d, bool offered, FeatureChain* enable) {
  const char* env = std::getenv("MGRT_PIPELINE_STATS");
  if (!env || std::strcmp(env, "1") != 0) return;
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR has{};
  has.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
  if (offered) {
    VkPhysicalDeviceFeatures2 f2{};
    f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    f2.pNext = &has;
    vkGetPhysicalDeviceFeatures2(d->physical, &f2);
  }
  if (!has.pipelineExecutableInfo) {
    std::fprintf(stderr, "mgrt: MGRT_PIPELINE_STATS: %s does not offer VK_KHR_pipeline_executable_properties\n",
                 d->props.deviceName);
    return;
  }
  enable->executableInfo.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
  enable->executableInfo.pipelineExecutableInfo = VK_TRUE;
  VkBaseOutStructure* tail = reinterpret_cast<VkBaseOutStructure*>(&enable->features2);
  while (tail->pNext) tail = tail->pNext;
  tail->pNext = reinterpret_cast<VkBaseOutStructure*>(&enable->executableInfo);
  enable->extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  d->pipelineStats = true;
}

void printPipelineStats(Device* d, VkPipeline pipeline, const char* what, const char* variant) {
  VkPipelineInfoKHR info{};
  info.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR;
  info.pipeline = pipeline;
  uint32_t n = 0;
  if (d->fn.vkGetPipelineExecutablePropertiesKHR(d->device, &info, &n, nullptr) != VK_SUCCESS) return;
  std::vector<VkPipelineExecutablePropertiesKHR> execs(n);
  for (auto& e : execs) e.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR;
  if (d->fn.vkGetPipelineExecutablePropertiesKHR(d->device, &info, &n, execs.data()) < 0) return;
  for (uint32_t i = 0; i < n; ++i) {
    VkPipelineExecutableInfoKHR exec{};
    exec.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR;
    exec.pipeline = pipeline;
    exec.executableIndex = i;
    uint32_t m = 0;
    if (d->fn.vkGetPipelineExecutableStatisticsKHR(d->device, &exec, &m, nullptr) != VK_SUCCESS) continue;
    std::vector<VkPipelineExecutableStatisticKHR> stats(m);
    for (auto& s : stats) s.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
    if (d->fn.vkGetPipelineExecutableStatisticsKHR(d->device, &exec, &m, stats.data()) < 0) continue;
    std::string line = std::string("mgrt: pipeline stats: ") + what + " [" + variant + "] " + execs[i].name + ":";
    for (uint32_t s = 0; s < m; ++s)
      line += std::string(s ? ", " : " ") + stats[s].name + "=" + statValue(stats[s]);
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

}  // namespace vk
}  // namespace mgrt
