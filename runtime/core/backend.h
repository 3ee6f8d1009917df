// The backend seam: everything core/ asks of a GPU API, as one small
// abstract class. Vulkan (runtime/vulkan/) is the first implementation; a
// Metal backend is another folder implementing the same class. Nothing here
// names an API type: buffers, pipelines and recordings are opaque handles
// that a backend derives from and core only passes back to it.
//
//   core/ (verify, plan, model, session, state) ──▶ Backend ──▶ vulkan/ | metal/
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/api.h"
#include "runtime/core/limits.h"

namespace mgrt {

// What this device is and what kernels may use on it. `limits` is what
// bundles are verified and kernel variants chosen against: its `features`
// (mgb::Feature bits) are supported AND enabled, with the subgroup size,
// workgroup memory and cooperative-matrix shapes (runtime/core/limits.h).
// Plain data; 0 means "not available" (the portable kernel runs).
struct DeviceCaps {
  std::string name;                                   // "llvmpipe (Vulkan 1.3, llvmpipe)"
  DeviceLimits limits;
  uint32_t minSubgroupSize = 0, maxSubgroupSize = 0;  // a kernel may require one in range
  bool timestamps = false;                            // gpuMilliseconds() can answer
  bool timelines = false;  // createTimeline() works: the device's timeline semaphores are enabled
};

// What mgrt_context_features reports: the kernel features, plus the
// runtime's own (MGRT_FEATURE_TIMELINE_SEMAPHORE), which bundles never name.
inline uint32_t contextFeatures(const DeviceCaps& caps) {
  return caps.limits.features | (caps.timelines ? uint32_t(MGRT_FEATURE_TIMELINE_SEMAPHORE) : 0u);
}

// Opaque handles. A backend derives its own types from these and casts back;
// core holds pointers and hands them to the backend that created them.
struct Buffer {};
struct Pipeline {};
struct Recording {};
struct Timeline {};  // a counter the GPU sets when a submission finishes (Vulkan: a timeline semaphore)

enum class MemoryUse {
  DeviceLocal,  // arenas, params: fast for kernels, filled by upload/zero/copies
  HostStaging,  // host-visible, stays mapped (mapped()); source/target of copies
  // As HostStaging, for data the host writes and the GPU copies from
  // (session inputs): in device memory the host can map where the device
  // has it (the host's writes cross the bus, not the GPU's copy), else as
  // HostStaging.
  HostUpload
};

// One kernel's code and interface, as the bundle stores it. A backend takes
// the form it runs (Vulkan: SPIR-V; Metal: MSL) and ignores the other.
// ABI: binding 0 = params (uint words), bindings 1..numBindings = tensors.
struct KernelCode {
  const uint32_t* spirv = nullptr;
  size_t spirvWords = 0;
  const char* msl = nullptr;  // may be null
  size_t mslBytes = 0;
  uint32_t localSize[3] = {1, 1, 1};
  uint32_t numBindings = 0;
  // In-stream waits (mgb.fbs Kernel.stream): the kernel also takes the
  // recording's counters (Vulkan: set 1, binding 0) and 16 bytes of push
  // constants, RecordedDispatch::stream.
  bool stream = false;
  const char* variant = "";  // the variant's tag (diagnostics: MGRT_PIPELINE_STATS)
};

struct BufferSlice {
  Buffer* buffer = nullptr;
  uint64_t offset = 0, size = 0;
};

struct BufferCopy {
  BufferSlice src;
  Buffer* dst = nullptr;
  uint64_t dstOffset = 0;
};

struct RecordedDispatch {
  Pipeline* pipeline = nullptr;
  BufferSlice params;                 // binding 0
  std::vector<BufferSlice> bindings;  // bindings 1..n
  uint32_t groups[3] = {1, 1, 1};
  bool barrier = true;  // every earlier dispatch's writes are visible to this one
  // A stream kernel's push constants (core/stream_plan.h): the counter it
  // waits on and the count it waits for (0: none), the counter it signals
  // (kNoSignal: none), the timeout flag's counter.
  uint32_t stream[4] = {0, 0, ~0u, 0};
};

// The work of one run, recorded once and replayed: copy inputs (staging →
// arenas), run the dispatches in order, copy outputs (arenas → staging).
// A run's memory effects are complete when wait() returns; the next replay
// sees them. Timestamps, where supported, bracket the dispatches; with
// timeEachDispatch (profiling, caps().timestamps only) one more follows
// each dispatch.
struct WorkList {
  std::vector<BufferCopy> inputCopies;
  std::vector<RecordedDispatch> dispatches;
  std::vector<BufferCopy> outputCopies;
  bool timeEachDispatch = false;
  // Counters of in-stream waits (> 0 where any dispatch's kernel is a
  // stream kernel): the recording owns them, zeroes them at the start of
  // every run and reads counter streamSlots - 1 (a wait's timeout flag)
  // back after it; wait() fails if it is set.
  uint32_t streamSlots = 0;
};

// GPU-side ordering of one submission with other work: it starts once
// `wait` reaches waitValue, and sets `signal` to signalValue when it has
// finished (every memory write of the run visible to whoever waits on that
// value). Null timelines: none.
struct SubmitSync {
  Timeline* wait = nullptr;
  uint64_t waitValue = 0;
  Timeline* signal = nullptr;
  uint64_t signalValue = 0;
};

// Host ↔ device transfers for load-time and between-run work, never per run.
struct Upload {
  Buffer* dst = nullptr;
  uint64_t dstOffset = 0;
  const void* data = nullptr;
  uint64_t size = 0;
};
struct Download {
  Buffer* src = nullptr;
  uint64_t srcOffset = 0;
  void* data = nullptr;
  uint64_t size = 0;
};

// The pipeline cache's state, as mgrt.h reports it (MGRT_PIPELINE_CACHE_*).
enum class PipelineCacheState { Off = 0, Empty = 1, Loaded = 2, Ignored = 3 };
struct PipelineCacheStatus {
  PipelineCacheState state = PipelineCacheState::Off;
  std::string note;  // why the file was ignored or not saved; empty otherwise
};

// Every call that can fail returns an mgrt_status and records a message
// (status.h); `what` names the object or step in that message. After device
// loss (lost()), destroy calls only free host memory: in-flight work may
// still use the device objects.
class Backend {
 public:
  virtual ~Backend() = default;

  virtual const DeviceCaps& caps() const = 0;
  virtual bool lost() const = 0;
  // Validation messages seen so far (0 unless validation is on), and the
  // check that turns messages since `before` into MGRT_DEVICE_ERROR.
  virtual int validationMessages() const = 0;
  virtual mgrt_status checkValidation(int before, const char* during) = 0;

  // size 0 is allowed (a minimal buffer is made).
  virtual mgrt_status createBuffer(uint64_t size, MemoryUse use, const char* what, Buffer** out) = 0;
  virtual void destroyBuffer(Buffer* b) = 0;  // null is a no-op
  virtual void* mapped(Buffer* b) = 0;        // HostStaging / HostUpload buffers; null otherwise
  // Blocking; afterwards the data is visible to kernels and copies.
  virtual mgrt_status upload(const std::vector<Upload>& uploads, const char* what) = 0;
  // Blocking; sees every write of earlier submissions.
  virtual mgrt_status download(const std::vector<Download>& downloads, const char* what) = 0;
  // Blocking: whole buffers become zero.
  virtual mgrt_status zero(const std::vector<Buffer*>& buffers, const char* what) = 0;

  virtual mgrt_status createPipeline(const KernelCode& code, const char* what, Pipeline** out) = 0;
  virtual void destroyPipeline(Pipeline* p) = 0;

  // Compiled pipelines kept in a file between launches (null or empty path:
  // none). Opening never fails over the file's contents: a missing, damaged
  // or foreign file starts an empty cache (status says which). Not while
  // pipelines are being created. savePipelineCache writes the file when
  // createPipeline added to it; a failure only sets the status note.
  virtual mgrt_status openPipelineCache(const char* path) = 0;
  virtual void savePipelineCache() = 0;
  virtual PipelineCacheStatus pipelineCacheStatus() = 0;

  virtual mgrt_status record(const WorkList& work, Recording** out) = 0;
  virtual void destroyRecording(Recording* r) = 0;
  // A timeline of its own, starting at 0 (caps().timelines only). Values
  // signalled on it must increase. destroyTimeline leaves an app's timeline
  // (wrapped by the API-specific layer) alone; null is a no-op.
  virtual mgrt_status createTimeline(const char* what, Timeline** out) = 0;
  virtual void destroyTimeline(Timeline* t) = 0;
  // Replays a recording: submit, then wait for it (one in flight per
  // recording). gpuMilliseconds: the dispatches' time in the last completed
  // run, from GPU timestamps, or < 0 when unknown. `sync` orders the
  // submission with other GPU work (timelines need caps().timelines).
  virtual mgrt_status submit(Recording* r, const SubmitSync& sync, const char* what) = 0;
  virtual mgrt_status wait(Recording* r, const char* what) = 0;
  virtual double gpuMilliseconds(Recording* r) = 0;
  // For a recording made with timeEachDispatch, after a completed run:
  // dispatches + 1 GPU times in ns since the first (before dispatch 0,
  // then after each dispatch). Dispatch i ran within [ns[i], ns[i+1]].
  virtual mgrt_status dispatchTimes(Recording* r, std::vector<uint64_t>* ns) = 0;
};

// The backends compiled into libmgrt (one folder each under runtime/).
// Creates the device the options ask for; on failure *out stays empty.
mgrt_status createVulkanBackend(const mgrt_context_options& opts, std::unique_ptr<Backend>* out);

}  // namespace mgrt
