#include "runtime/vulkan/recorder.h"

#include <cstdlib>

#include "runtime/core/status.h"
#include "runtime/vulkan/memory.h"

namespace mgrt {
namespace vk {
namespace {

void barrier(Device* d, VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags srcAccess,
             VkPipelineStageFlags dst, VkAccessFlags dstAccess) {
  VkMemoryBarrier b{};
  b.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  b.srcAccessMask = srcAccess;
  b.dstAccessMask = dstAccess;
  d->fn.vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &b, 0, nullptr, 0, nullptr);
}

constexpr VkPipelineStageFlags kXferCompute =
    VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
constexpr VkAccessFlags kShaderRW = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;

VkDescriptorBufferInfo bufferInfo(const BufferSlice& b) { return {cast(b.buffer)->buffer, b.offset, b.size}; }

const KernelPipeline* pipelineOf(const RecordedDispatch& p) { return static_cast<const KernelPipeline*>(p.pipeline); }

mgrt_status allocateDescriptorSets(Device* d, const WorkList& plan, Recording* out,
                                   std::vector<VkDescriptorSet>* sets) {
  if (plan.dispatches.empty()) return MGRT_OK;
  uint32_t descriptors = 0;
  for (const RecordedDispatch& p : plan.dispatches) descriptors += uint32_t(p.bindings.size()) + 1;
  // The stream counters' set: layouts of stream kernels' set 1 are all
  // alike, so any one's serves every stream kernel.
  VkDescriptorSetLayout streamLayout = VK_NULL_HANDLE;
  for (const RecordedDispatch& p : plan.dispatches)
    if (pipelineOf(p)->streamSetLayout && out->streamSlots) streamLayout = pipelineOf(p)->streamSetLayout;
  const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptors + (streamLayout ? 1u : 0u)};
  VkDescriptorPoolCreateInfo poolInfo{};
  poolInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  poolInfo.maxSets = uint32_t(plan.dispatches.size()) + (streamLayout ? 1u : 0u);  // sized exactly
  poolInfo.poolSizeCount = 1;
  poolInfo.pPoolSizes = &size;
  VkResult r = d->fn.vkCreateDescriptorPool(d->device, &poolInfo, nullptr, &out->descriptorPool);
  if (r != VK_SUCCESS) {
    out->descriptorPool = VK_NULL_HANDLE;
    return vkFail(d, r, "vkCreateDescriptorPool");
  }
  std::vector<VkDescriptorSetLayout> layouts;
  for (const RecordedDispatch& p : plan.dispatches) layouts.push_back(pipelineOf(p)->setLayout);
  VkDescriptorSetAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  alloc.descriptorPool = out->descriptorPool;
  alloc.descriptorSetCount = uint32_t(layouts.size());
  alloc.pSetLayouts = layouts.data();
  sets->resize(layouts.size());
  r = d->fn.vkAllocateDescriptorSets(d->device, &alloc, sets->data());
  if (r != VK_SUCCESS) return vkFail(d, r, "vkAllocateDescriptorSets");

  std::vector<VkDescriptorBufferInfo> infos;
  infos.reserve(descriptors + 1);  // pointers into it are taken as it grows
  std::vector<VkWriteDescriptorSet> writes;
  for (size_t i = 0; i < plan.dispatches.size(); ++i) {
    const RecordedDispatch& p = plan.dispatches[i];
    const size_t first = infos.size();
    infos.push_back(bufferInfo(p.params));
    for (const BufferSlice& b : p.bindings) infos.push_back(bufferInfo(b));
    VkWriteDescriptorSet w{};
    w.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    w.dstSet = (*sets)[i];
    w.dstBinding = 0;
    w.descriptorCount = uint32_t(p.bindings.size()) + 1;  // consecutive bindings 0..n
    w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    w.pBufferInfo = &infos[first];
    writes.push_back(w);
  }
  if (streamLayout) {
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &streamLayout;
    r = d->fn.vkAllocateDescriptorSets(d->device, &alloc, &out->streamSet);
    if (r != VK_SUCCESS) return vkFail(d, r, "vkAllocateDescriptorSets (stream counters)");
    infos.push_back({out->streamCounters.buffer, 0, VK_WHOLE_SIZE});
    VkWriteDescriptorSet w{};
    w.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    w.dstSet = out->streamSet;
    w.dstBinding = 0;
    w.descriptorCount = 1;
    w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    w.pBufferInfo = &infos.back();
    writes.push_back(w);
  }
  d->fn.vkUpdateDescriptorSets(d->device, uint32_t(writes.size()), writes.data(), 0, nullptr);
  return MGRT_OK;
}

// Vulkan forbids empty copies; a zero-size tensor has nothing to move.
void copy(Device* d, VkCommandBuffer cmd, const BufferCopy& c) {
  if (c.src.size == 0) return;
  const VkBufferCopy region{c.src.offset, c.dstOffset, c.src.size};
  d->fn.vkCmdCopyBuffer(cmd, cast(c.src.buffer)->buffer, cast(c.dst)->buffer, 1, &region);
}

void recordCommands(Device* d, const WorkList& plan, const std::vector<VkDescriptorSet>& sets,
                    Recording* out) {
  VkCommandBuffer cmd = out->cmd;
  if (out->timestamps) d->fn.vkCmdResetQueryPool(cmd, out->timestamps, 0, out->queryCount);
  if (out->streamSlots) d->fn.vkCmdFillBuffer(cmd, out->streamCounters.buffer, 0, VK_WHOLE_SIZE, 0);
  // Everything submitted before this run (the previous run, or an app's
  // work writing a bound input buffer) is finished before it touches memory.
  barrier(d, cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, kXferCompute,
          VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT | kShaderRW);
  for (const BufferCopy& c : plan.inputCopies) copy(d, cmd, c);
  barrier(d, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
          kShaderRW | VK_ACCESS_TRANSFER_READ_BIT);
  if (out->timestamps)
    d->fn.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, out->timestamps, 0);

  VkPipeline bound = VK_NULL_HANDLE;
  for (size_t i = 0; i < plan.dispatches.size(); ++i) {
    const RecordedDispatch& p = plan.dispatches[i];
    if (i > 0 && p.barrier)
      barrier(d, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, kShaderRW);
    const KernelPipeline* k = pipelineOf(p);
    if (k->pipeline != bound) {
      d->fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipeline);
      bound = k->pipeline;
    }
    d->fn.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->layout, 0, 1,
                                  &sets[i], 0, nullptr);
    if (k->streamSetLayout && out->streamSet) {
      d->fn.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->layout, 1, 1, &out->streamSet, 0, nullptr);
      d->fn.vkCmdPushConstants(cmd, k->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof p.stream, p.stream);
    }
    d->fn.vkCmdDispatch(cmd, p.groups[0], p.groups[1], p.groups[2]);
    // Bottom of pipe: written once everything before it has finished, so
    // dispatch i's slice ends when it (and any overlapping one) is done.
    if (out->timeEachDispatch)
      d->fn.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, out->timestamps, uint32_t(i) + 1);
  }

  if (out->timestamps && !out->timeEachDispatch)
    d->fn.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, out->timestamps, 1);
  barrier(d, cmd, kXferCompute, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
          VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  for (const BufferCopy& c : plan.outputCopies) copy(d, cmd, c);
  if (out->streamSlots) {
    const VkBufferCopy flag{4ull * (out->streamSlots - 1), 0, 4};
    d->fn.vkCmdCopyBuffer(cmd, out->streamCounters.buffer, out->streamFlag.buffer, 1, &flag);
  }
  // Outputs for the host, and for work submitted after this run (an app
  // reading a bound output buffer).
  barrier(d, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
          VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
          VK_ACCESS_HOST_READ_BIT | VK_ACCESS_MEMORY_READ_BIT);
}

}  // namespace

mgrt_status recordWork(Device* d, const WorkList& plan, Recording* out) {
  if (plan.streamSlots) {  // only where a dispatch's kernel is a stream kernel (backend.h)
    out->streamSlots = plan.streamSlots;
    MGRT_TRY(createBuffer(d, 4ull * plan.streamSlots,
                          VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                              VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                          MemoryUse::DeviceLocal, "stream counters", &out->streamCounters));
    MGRT_TRY(createBuffer(d, 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::HostStaging, "stream flag",
                          &out->streamFlag));
  }
  std::vector<VkDescriptorSet> sets;
  MGRT_TRY(allocateDescriptorSets(d, plan, out, &sets));

  VkCommandPoolCreateInfo poolInfo{};
  poolInfo.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  poolInfo.queueFamilyIndex = d->queueFamily;
  VkResult r = d->fn.vkCreateCommandPool(d->device, &poolInfo, nullptr, &out->commandPool);
  if (r != VK_SUCCESS) {
    out->commandPool = VK_NULL_HANDLE;
    return vkFail(d, r, "vkCreateCommandPool");
  }
  VkCommandBufferAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  alloc.commandPool = out->commandPool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  if ((r = d->fn.vkAllocateCommandBuffers(d->device, &alloc, &out->cmd)) != VK_SUCCESS)
    return vkFail(d, r, "vkAllocateCommandBuffers");
  VkFenceCreateInfo fenceInfo{};
  fenceInfo.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  if ((r = d->fn.vkCreateFence(d->device, &fenceInfo, nullptr, &out->fence)) != VK_SUCCESS) {
    out->fence = VK_NULL_HANDLE;
    return vkFail(d, r, "vkCreateFence");
  }
  out->timeEachDispatch = plan.timeEachDispatch;
  if (plan.timeEachDispatch && !d->caps.timestamps)
    return failMessage(MGRT_UNSUPPORTED, "profiling needs GPU timestamps, which the compute queue of " +
                                             d->caps.name + " does not have (timestampValidBits = 0)");
  if (d->caps.timestamps) {
    VkQueryPoolCreateInfo q{};
    q.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    q.queryType = VK_QUERY_TYPE_TIMESTAMP;
    q.queryCount = plan.timeEachDispatch ? uint32_t(plan.dispatches.size()) + 1 : 2;
    r = d->fn.vkCreateQueryPool(d->device, &q, nullptr, &out->timestamps);
    if (r != VK_SUCCESS) {
      out->timestamps = VK_NULL_HANDLE;
      if (plan.timeEachDispatch) return vkFail(d, r, "vkCreateQueryPool (profiling)");
    } else {
      out->queryCount = q.queryCount;  // plain timing is optional; profiling is not
    }
  }

  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  if ((r = d->fn.vkBeginCommandBuffer(out->cmd, &begin)) != VK_SUCCESS)
    return vkFail(d, r, "vkBeginCommandBuffer");
  recordCommands(d, plan, sets, out);
  if ((r = d->fn.vkEndCommandBuffer(out->cmd)) != VK_SUCCESS)
    return vkFail(d, r, "vkEndCommandBuffer");
  return MGRT_OK;
}

void destroyRecording(Device* d, Recording* r) {
  if (r->streamCounters.buffer) destroyBuffer(d, &r->streamCounters);
  if (r->streamFlag.buffer) destroyBuffer(d, &r->streamFlag);
  if (r->timestamps) d->fn.vkDestroyQueryPool(d->device, r->timestamps, nullptr);
  if (r->fence) d->fn.vkDestroyFence(d->device, r->fence, nullptr);
  if (r->commandPool) d->fn.vkDestroyCommandPool(d->device, r->commandPool, nullptr);
  if (r->descriptorPool) d->fn.vkDestroyDescriptorPool(d->device, r->descriptorPool, nullptr);
  *r = Recording();
}

mgrt_status submitRecording(Device* d, Recording* r, const SubmitSync& sync, const char* what) {
  const Timeline* wait = static_cast<const Timeline*>(sync.wait);
  const Timeline* signal = static_cast<const Timeline*>(sync.signal);
  // The wait holds back all of the run: its first barrier is the one that
  // makes earlier writes (here: the app's, before its signal) visible.
  const VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkTimelineSemaphoreSubmitInfo values{};
  values.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
  values.waitSemaphoreValueCount = wait ? 1 : 0;
  values.pWaitSemaphoreValues = &sync.waitValue;
  values.signalSemaphoreValueCount = signal ? 1 : 0;
  values.pSignalSemaphoreValues = &sync.signalValue;
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  if (wait || signal) submit.pNext = &values;
  if (wait) {
    submit.waitSemaphoreCount = 1;
    submit.pWaitSemaphores = &wait->semaphore;
    submit.pWaitDstStageMask = &waitStage;
  }
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &r->cmd;
  if (signal) {
    submit.signalSemaphoreCount = 1;
    submit.pSignalSemaphores = &signal->semaphore;
  }
  r->completed = false;
  r->submittedAt = std::chrono::steady_clock::now();
  return queueSubmit(d, submit, r->fence, what);
}

namespace {

// MGRT_SPIN_US: the window around a run's expected end in which
// waitRecording polls the fence (default 200 µs; 0: always sleep).
std::chrono::nanoseconds spinWindow() {
  static const long us = [] {
    const char* e = std::getenv("MGRT_SPIN_US");
    const long v = e ? std::strtol(e, nullptr, 10) : 200;
    return v > 0 ? v : 0;
  }();
  return std::chrono::microseconds(us);
}

}  // namespace

// A thread asleep in vkWaitForFences wakes ~0.1 ms after the GPU is done on
// NVIDIA's driver (H100: a decode step 1.19 → 1.12 ms wall when polling,
// forwards 0.07 – 0.1 ms). Runs of one recording take near-equal times, so
// sleep until shortly before the last run's time is up, poll the fence
// through the window around it, and only past that sleep for good. Never
// later than a plain wait; the cost is the CPU of the window.
mgrt_status waitRecording(Device* d, Recording* r, const char* what) {
  using clock = std::chrono::steady_clock;
  const std::chrono::nanoseconds window = spinWindow();
  if (window.count() > 0 && r->lastRunNs > 0 && !d->lost) {
    const clock::time_point due = r->submittedAt + std::chrono::nanoseconds(r->lastRunNs);
    const clock::time_point from = due - window / 2, until = due + window / 2;
    const int64_t sleepNs = std::chrono::duration_cast<std::chrono::nanoseconds>(from - clock::now()).count();
    VkResult s = sleepNs > 0 ? d->fn.vkWaitForFences(d->device, 1, &r->fence, VK_TRUE, uint64_t(sleepNs))
                             : VK_TIMEOUT;
    while (s == VK_TIMEOUT && clock::now() < until) {
      s = d->fn.vkGetFenceStatus(d->device, r->fence);
      if (s == VK_NOT_READY) s = VK_TIMEOUT;
    }
    // Signaled: the wait below returns at once. An error: it reports it.
  }
  MGRT_TRY(waitFence(d, r->fence, what));
  r->lastRunNs = std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - r->submittedAt).count();
  r->completed = true;
  if (r->streamSlots) {
    const uint32_t flag = *static_cast<const volatile uint32_t*>(r->streamFlag.mapped);
    if (flag != 0)
      return failMessage(MGRT_DEVICE_ERROR,
                         format("%s: an in-stream wait on level %u's counter timed out: this device does not run "
                                "dispatches as in-stream waits need; set MGRT_DISABLE_FEATURES=StreamSync",
                                what, flag - 1));
  }
  return MGRT_OK;
}

namespace {

// The recording's timestamps, in ticks since the first: only the low
// timestampValidBits bits are meaningful, so differences wrap at that width.
VkResult readTicks(Device* d, Recording* r, std::vector<uint64_t>* ticks) {
  ticks->assign(r->queryCount, 0);
  const VkResult q =
      d->fn.vkGetQueryPoolResults(d->device, r->timestamps, 0, r->queryCount, ticks->size() * sizeof(uint64_t),
                                  ticks->data(), sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
  if (q != VK_SUCCESS) return q;
  const uint64_t mask = d->timestampValidBits >= 64 ? ~0ull : ((1ull << d->timestampValidBits) - 1);
  const uint64_t first = (*ticks)[0] & mask;
  for (uint64_t& t : *ticks) t = ((t & mask) - first) & mask;
  return VK_SUCCESS;
}

}  // namespace

double recordedMilliseconds(Device* d, Recording* r) {
  // Before a run completed, the queries hold nothing and waiting on them would hang.
  if (!r->timestamps || !r->completed) return -1.0;
  std::vector<uint64_t> ticks;
  if (readTicks(d, r, &ticks) != VK_SUCCESS) return -1.0;
  return double(ticks.back()) * double(d->props.limits.timestampPeriod) * 1e-6;
}

mgrt_status recordedDispatchTimes(Device* d, Recording* r, std::vector<uint64_t>* ns) {
  ns->clear();
  if (!r->timeEachDispatch || !r->timestamps || !r->completed)
    return fail(MGRT_INVALID_ARGUMENT, "no profiled run to read");
  std::vector<uint64_t> ticks;
  const VkResult q = readTicks(d, r, &ticks);
  if (q != VK_SUCCESS) return vkFail(d, q, "vkGetQueryPoolResults (profiling)");
  const double period = double(d->props.limits.timestampPeriod);
  for (uint64_t t : ticks) ns->push_back(uint64_t(double(t) * period + 0.5));
  return MGRT_OK;
}

}  // namespace vk
}  // namespace mgrt
