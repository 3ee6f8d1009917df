// mgrt_session_create/destroy and the input/output descriptions: allocate
// the session's arenas and staging buffer, then record the command buffer.
#include <new>

#include "runtime/core/dtype.h"
#include "runtime/core/objects.h"
#include "runtime/core/variant_select.h"
#include "runtime/core/status.h"

using namespace mgrt;

namespace {

constexpr VkBufferUsageFlags kArenaUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                           VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                           VK_BUFFER_USAGE_TRANSFER_SRC_BIT;

void releaseSession(mgrt_session* s) {
  vk::Device* d = &s->model->ctx->device;
  if (!d->lost) {  // after a hang, in-flight work may still use these
    vk::destroyRecording(d, &s->recording);
    for (size_t i = 1; i < s->arenas.size(); ++i) vk::destroyBuffer(d, &s->arenas[i]);
    vk::destroyBuffer(d, &s->staging);
  }
  delete s;
}

// Lays out inputs then outputs in the staging buffer; returns its size.
uint64_t describeIo(const mgb::Bundle& b, const mgb::EntryPoint& e, mgrt_session* s) {
  uint64_t at = 0;
  for (int pass = 0; pass < 2; ++pass) {
    const auto* list = pass == 0 ? e.inputs() : e.outputs();
    std::vector<mgrt_session_io>& ios = pass == 0 ? s->inputs : s->outputs;
    if (!list) continue;
    for (uint32_t ti : *list) {
      const mgb::Tensor* t = b.tensors()->Get(ti);
      mgrt_session_io io;
      io.tensor = t;
      io.name = t->name()->str();
      io.dtype = t->dtype();
      if (t->shape()) io.shape.assign(t->shape()->begin(), t->shape()->end());
      shapeNumel(t->shape(), &io.numel);  // verified: cannot fail
      io.externalBytes = size_t(io.numel * externalElementSize(io.dtype));
      io.stagingOffset = at;
      at += (t->size() + 15) / 16 * 16;
      ios.push_back(std::move(io));
    }
  }
  return at;
}

vk::SessionPlan makePlan(const mgrt_session* s, uint32_t entryIndex) {
  const mgrt_model* m = s->model;
  vk::SessionPlan plan;
  for (const mgrt_session_io& io : s->inputs) {
    if (io.tensor->size() == 0) continue;  // Vulkan forbids empty copies
    plan.inputCopies.push_back({{s->staging.buffer, io.stagingOffset, io.tensor->size()},
                                arenaBuffer(s, io.tensor->arena()), io.tensor->offset()});
  }
  for (const mgrt_session_io& io : s->outputs) {
    if (io.tensor->size() == 0) continue;
    plan.outputCopies.push_back(
        {{arenaBuffer(s, io.tensor->arena()), io.tensor->offset(), io.tensor->size()},
         s->staging.buffer, io.stagingOffset});
  }
  if (!s->entry->dispatches()) return plan;
  for (uint32_t j = 0; j < s->entry->dispatches()->size(); ++j) {
    const mgb::Dispatch& d = *s->entry->dispatches()->Get(j);
    vk::DispatchPlan p;
    p.kernel = &m->pipelines[d.kernel()];
    const uint64_t words = d.params() ? d.params()->size() : 0;
    p.params = {m->params.buffer, m->paramsOffset[entryIndex][j], words ? words * 4 : 16};
    if (d.bindings())  // absent when the kernel has no tensor bindings
      for (const mgb::BufferRange* r : *d.bindings())
        p.bindings.push_back({arenaBuffer(s, r->arena()), r->offset(), r->size()});
    const mgb::Kernel& k = *m->bundle.manifest->kernels()->Get(d.kernel());
    // Verified: the chosen variant's grid fits the device.
    (void)dispatchGroups(k, m->bundle.variant[d.kernel()], d, "", p.groups);
    p.barrier = d.barrier();
    plan.dispatches.push_back(std::move(p));
  }
  return plan;
}

mgrt_status buildSession(mgrt_session* s, uint32_t entryIndex) {
  vk::Device* d = &s->model->ctx->device;
  const mgb::Bundle& b = *s->model->bundle.manifest;
  s->arenas.resize(b.arenas()->size());
  std::vector<const vk::Buffer*> clear;
  for (uint32_t i = 1; i < b.arenas()->size(); ++i) {
    if (b.arenas()->Get(i)->kind() == mgb::ArenaKind::State) continue;  // the model's, shared
    const std::string what = format("arena %u", i);
    MGRT_TRY(vk::createBuffer(d, b.arenas()->Get(i)->size(), kArenaUsage,
                              vk::MemoryUse::DeviceLocal, what.c_str(), &s->arenas[i]));
    clear.push_back(&s->arenas[i]);
  }
  MGRT_TRY(vk::zeroBuffers(d, clear, "clearing session arenas"));
  const uint64_t stagingSize = describeIo(b, *s->entry, s);
  MGRT_TRY(vk::createBuffer(d, stagingSize,
                            VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                            vk::MemoryUse::HostStaging, "staging buffer", &s->staging));
  return vk::recordSession(d, makePlan(s, entryIndex), &s->recording);
}

mgrt_status describe(const std::vector<mgrt_session_io>& ios, int i, mgrt_tensor_info* out,
                     const char* fn) {
  if (!out) return fail(MGRT_INVALID_ARGUMENT, "%s: out is null", fn);
  if (i < 0 || size_t(i) >= ios.size())
    return fail(MGRT_INVALID_ARGUMENT, "%s: index %d out of range (%zu)", fn, i, ios.size());
  const mgrt_session_io& io = ios[size_t(i)];
  out->name = io.name.c_str();
  out->dtype = mgrt_dtype(io.dtype);
  out->rank = int(io.shape.size());
  out->shape = io.shape.data();
  out->bytes = io.externalBytes;
  return MGRT_OK;
}

}  // namespace

mgrt_status mgrt_session_create(mgrt_model* m, const char* entryPoint, mgrt_session** out) {
  MGRT_API_GUARD({
    if (!out) return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_create: out is null");
    *out = nullptr;
    if (!m || !entryPoint) return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_create: null argument");
    vk::Device* d = &m->ctx->device;
    if (d->lost) return fail(MGRT_DEVICE_ERROR, "mgrt_session_create: the GPU device was lost earlier");
    const auto* eps = m->bundle.manifest->entry_points();
    uint32_t index = eps->size();
    std::string known;
    for (uint32_t i = 0; i < eps->size(); ++i) {
      if (eps->Get(i)->name()->str() == entryPoint) index = i;
      known += (i ? ", " : "") + eps->Get(i)->name()->str();
    }
    if (index == eps->size())
      return fail(MGRT_INVALID_ARGUMENT, "unknown entry point '%s' (bundle has: %s)", entryPoint,
                  known.c_str());

    std::unique_ptr<mgrt_session> s(new mgrt_session());
    s->model = m;
    s->entry = eps->Get(index);
    const int before = vk::validationCount(d);
    mgrt_status st = buildSession(s.get(), index);
    if (st == MGRT_OK) st = vk::checkValidation(d, before, "mgrt_session_create");
    if (st != MGRT_OK) {
      releaseSession(s.release());
      return st;
    }
    *out = s.release();
    return MGRT_OK;
  })
}

void mgrt_session_destroy(mgrt_session* s) {
  if (s) releaseSession(s);
}

int mgrt_session_input_count(const mgrt_session* s) { return s ? int(s->inputs.size()) : 0; }
int mgrt_session_output_count(const mgrt_session* s) { return s ? int(s->outputs.size()) : 0; }

mgrt_status mgrt_session_input_info(const mgrt_session* s, int i, mgrt_tensor_info* out) {
  if (!s) return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_input_info: session is null");
  return describe(s->inputs, i, out, "mgrt_session_input_info");
}

mgrt_status mgrt_session_output_info(const mgrt_session* s, int i, mgrt_tensor_info* out) {
  if (!s) return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_output_info: session is null");
  return describe(s->outputs, i, out, "mgrt_session_output_info");
}
