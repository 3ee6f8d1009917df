// The Vulkan implementation of the backend interface (core/backend.h): a
// thin adapter from its handles to the Device, buffers, pipelines and
// recordings of this folder.
#include "runtime/core/backend.h"

#include <new>

#include "runtime/core/status.h"
#include "runtime/vulkan/download.h"
#include "runtime/vulkan/pipeline_cache.h"
#include "runtime/vulkan/recorder.h"

namespace mgrt {
namespace vk {
namespace {

// What any buffer may be used for: kernels bind arenas and params, copies
// move data in and out of them and of staging buffers.
constexpr VkBufferUsageFlags kDeviceLocalUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
constexpr VkBufferUsageFlags kStagingUsage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

class VulkanBackend final : public Backend {
 public:
  Device device;
  PipelineCache pipelineCache;

  ~VulkanBackend() override {
    closePipelineCache(&device, &pipelineCache);
    destroyDevice(&device);
  }

  const DeviceCaps& caps() const override { return device.caps; }
  bool lost() const override { return device.lost; }
  int validationMessages() const override { return validationCount(&device); }
  mgrt_status checkValidation(int before, const char* during) override {
    return vk::checkValidation(&device, before, during);
  }

  mgrt_status createBuffer(uint64_t size, MemoryUse use, const char* what, mgrt::Buffer** out) override {
    *out = nullptr;
    Buffer* b = new Buffer();
    const mgrt_status s = vk::createBuffer(
        &device, size, use == MemoryUse::DeviceLocal ? kDeviceLocalUsage : kStagingUsage, use, what, b);
    if (s != MGRT_OK) {
      destroyBuffer(b);
      return s;
    }
    *out = b;
    return MGRT_OK;
  }
  // After device loss, in-flight work may still use the Vulkan objects:
  // leak them and free only the host side.
  void destroyBuffer(mgrt::Buffer* b) override {
    if (!b) return;
    if (!device.lost) vk::destroyBuffer(&device, cast(b));
    delete cast(b);
  }
  void* mapped(mgrt::Buffer* b) override { return b ? cast(b)->mapped : nullptr; }
  mgrt_status upload(const std::vector<Upload>& uploads, const char* what) override {
    return uploadBuffers(&device, uploads, what);
  }
  mgrt_status download(const std::vector<Download>& downloads, const char* what) override {
    return downloadBuffers(&device, downloads, what);
  }
  mgrt_status zero(const std::vector<mgrt::Buffer*>& buffers, const char* what) override {
    return zeroBuffers(&device, buffers, what);
  }

  // The local size is part of the SPIR-V (verified equal to the manifest's).
  mgrt_status createPipeline(const KernelCode& code, const char* what, Pipeline** out) override {
    *out = nullptr;
    KernelPipeline* k = new KernelPipeline();
    const mgrt_status s = createKernelPipeline(&device, pipelineCache.cache, code.spirv, code.spirvWords,
                                               code.numBindings, code.stream, what, k);
    if (s != MGRT_OK) {
      destroyPipeline(k);
      return s;
    }
    if (device.pipelineStats) printPipelineStats(&device, k->pipeline, what, code.variant);
    *out = k;
    return MGRT_OK;
  }
  void destroyPipeline(Pipeline* p) override {
    if (!p) return;
    KernelPipeline* k = static_cast<KernelPipeline*>(p);
    if (!device.lost) destroyKernelPipeline(&device, k);
    delete k;
  }

  mgrt_status openPipelineCache(const char* path) override {
    return vk::openPipelineCache(&device, path, &pipelineCache);
  }
  void savePipelineCache() override { vk::savePipelineCache(&device, &pipelineCache); }
  PipelineCacheStatus pipelineCacheStatus() override {
    std::lock_guard<std::mutex> lock(pipelineCache.mutex);
    return pipelineCache.status;
  }

  mgrt_status record(const WorkList& work, mgrt::Recording** out) override {
    *out = nullptr;
    Recording* r = new Recording();
    const mgrt_status s = recordWork(&device, work, r);
    if (s != MGRT_OK) {
      destroyRecording(r);
      return s;
    }
    *out = r;
    return MGRT_OK;
  }
  void destroyRecording(mgrt::Recording* r) override {
    if (!r) return;
    if (!device.lost) vk::destroyRecording(&device, static_cast<Recording*>(r));
    delete static_cast<Recording*>(r);
  }
  mgrt_status createTimeline(const char* what, mgrt::Timeline** out) override {
    *out = nullptr;
    Timeline* t = new Timeline();
    const mgrt_status s = vk::createTimeline(&device, what, t);
    if (s != MGRT_OK) {
      destroyTimeline(t);
      return s;
    }
    *out = t;
    return MGRT_OK;
  }
  void destroyTimeline(mgrt::Timeline* t) override {
    if (!t) return;
    if (!device.lost) vk::destroyTimeline(&device, static_cast<Timeline*>(t));
    delete static_cast<Timeline*>(t);
  }
  mgrt_status submit(mgrt::Recording* r, const SubmitSync& sync, const char* what) override {
    return submitRecording(&device, static_cast<Recording*>(r), sync, what);
  }
  mgrt_status wait(mgrt::Recording* r, const char* what) override {
    return waitRecording(&device, static_cast<Recording*>(r), what);
  }
  double gpuMilliseconds(mgrt::Recording* r) override {
    return recordedMilliseconds(&device, static_cast<Recording*>(r));
  }
  mgrt_status dispatchTimes(mgrt::Recording* r, std::vector<uint64_t>* ns) override {
    return recordedDispatchTimes(&device, static_cast<Recording*>(r), ns);
  }
};

}  // namespace
}  // namespace vk

mgrt_status createVulkanBackendOn(const vk::AppDevice& app, std::unique_ptr<Backend>* out) {
  std::unique_ptr<vk::VulkanBackend> backend(new vk::VulkanBackend());
  MGRT_TRY(vk::adoptDevice(app, &backend->device));
  *out = std::move(backend);
  return MGRT_OK;
}

mgrt_status createVulkanBackend(const mgrt_context_options& opts, std::unique_ptr<Backend>* out) {
  std::unique_ptr<vk::VulkanBackend> backend(new vk::VulkanBackend());
  MGRT_TRY(vk::createDevice(opts, &backend->device));  // on failure the destructor cleans up
  *out = std::move(backend);
  return MGRT_OK;
}

}  // namespace mgrt
