// mgrt_session_create/destroy and the input/output descriptions: plan the
// entry point, allocate the session's arenas and staging buffers, then record
// the run once.
#include <algorithm>
#include <new>

#include "runtime/core/dtype.h"
#include "runtime/core/objects.h"
#include "runtime/core/status.h"
#include "runtime/core/stream_plan.h"

using namespace mgrt;

namespace {

void releaseSession(mgrt_session* s) {
  Backend* be = s->model->backend;
  be->destroyRecording(s->recording);
  be->destroyTimeline(s->timeline);
  be->destroyTimeline(s->waitFor);
  for (auto& [name, b] : s->bound) be->destroyBuffer(b.buffer);
  for (Buffer* b : s->arenas) be->destroyBuffer(b);
  be->destroyBuffer(s->inputStaging);
  be->destroyBuffer(s->outputStaging);
  delete s;
}

// The plan with arena indices and staging offsets resolved to buffers.
WorkList makeWork(const mgrt_session* s) {
  const mgrt_model* m = s->model;
  WorkList w;
  auto boundTo = [&](const TensorPlan& io) -> const mgrt_session::BoundBuffer* {
    auto it = s->bound.find(io.name);
    return it == s->bound.end() ? nullptr : &it->second;
  };
  for (const TensorPlan& io : s->plan.inputs) {
    const mgrt_session::BoundBuffer* b = boundTo(io);
    w.inputCopies.push_back({b ? BufferSlice{b->buffer, b->offset, io.size} : BufferSlice{s->inputStaging, io.stagingOffset, io.size},
                             arenaBuffer(s, io.arena), io.offset});
  }
  for (const TensorPlan& io : s->plan.outputs) {
    const mgrt_session::BoundBuffer* b = boundTo(io);
    w.outputCopies.push_back({{arenaBuffer(s, io.arena), io.offset, io.size}, b ? b->buffer : s->outputStaging,
                              b ? b->offset : io.stagingOffset});
  }
  for (const DispatchPlan& d : s->plan.dispatches) {
    RecordedDispatch r;
    r.pipeline = m->pipelines[d.kernel];
    r.params = {m->params, d.params.offset, d.params.size};
    for (const ArenaRange& b : d.bindings) r.bindings.push_back({arenaBuffer(s, b.arena), b.offset, b.size});
    for (int a = 0; a < 3; ++a) r.groups[a] = d.groups[a];
    r.barrier = d.barrier;
    std::copy(d.stream, d.stream + 4, r.stream);
    w.dispatches.push_back(std::move(r));
  }
  w.streamSlots = s->plan.streamSlots;
  w.timeEachDispatch = s->profiling;
  return w;
}

mgrt_status buildSession(mgrt_session* s, uint32_t entryIndex) {
  Backend* be = s->model->backend;
  const mgb::Bundle& b = *s->model->bundle.manifest;
  s->plan = planSession(s->model->bundle, entryIndex, s->model->paramsPlan);
  planStreamWaits(b, (be->caps().limits.features & uint32_t(mgb::Feature::StreamSync)) != 0, &s->plan);
  s->arenas.assign(b.arenas()->size(), nullptr);
  std::vector<Buffer*> clear;
  for (uint32_t i : s->plan.arenas) {
    const std::string what = format("arena %u", i);
    MGRT_TRY(be->createBuffer(b.arenas()->Get(i)->size(), MemoryUse::DeviceLocal, what.c_str(), &s->arenas[i]));
    clear.push_back(s->arenas[i]);
  }
  MGRT_TRY(be->zero(clear, "clearing session arenas"));
  MGRT_TRY(be->createBuffer(s->plan.inputStagingSize, MemoryUse::HostUpload, "input staging buffer", &s->inputStaging));
  MGRT_TRY(be->createBuffer(s->plan.outputStagingSize, MemoryUse::HostStaging, "output staging buffer", &s->outputStaging));
  s->inputStagingBytes = static_cast<uint8_t*>(be->mapped(s->inputStaging));
  s->outputStagingBytes = static_cast<uint8_t*>(be->mapped(s->outputStaging));
  if (be->caps().timelines) MGRT_TRY(be->createTimeline("session timeline", &s->timeline));
  return recordSession(s);
}

mgrt_status describe(const std::vector<TensorPlan>& ios, int i, mgrt_tensor_info* out, const char* fn) {
  if (!out) return fail(MGRT_INVALID_ARGUMENT, "%s: out is null", fn);
  if (i < 0 || size_t(i) >= ios.size())
    return fail(MGRT_INVALID_ARGUMENT, "%s: index %d out of range (%zu)", fn, i, ios.size());
  const TensorPlan& io = ios[size_t(i)];
  out->name = io.name.c_str();
  out->dtype = mgrt_dtype(io.dtype);
  out->rank = int(io.shape.size());
  out->shape = io.shape.data();
  out->bytes = io.externalBytes;
  return MGRT_OK;
}

}  // namespace

mgrt_status mgrt::recordSession(mgrt_session* s) {
  Backend* be = s->model->backend;
  Recording* fresh = nullptr;
  MGRT_TRY(be->record(makeWork(s), &fresh));  // not in flight: the old one may go
  be->destroyRecording(s->recording);
  s->recording = fresh;
  s->profileNs.clear();
  return MGRT_OK;
}

mgrt_status mgrt_session_create(mgrt_model* m, const char* entryPoint, mgrt_session** out) {
  MGRT_API_GUARD({
    if (!out) return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_create: out is null");
    *out = nullptr;
    if (!m || !entryPoint) return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_create: null argument");
    Backend* be = m->backend;
    if (be->lost()) return fail(MGRT_DEVICE_ERROR, "mgrt_session_create: the GPU device was lost earlier");
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
    const int before = be->validationMessages();
    mgrt_status st = buildSession(s.get(), index);
    if (st == MGRT_OK) st = be->checkValidation(before, "mgrt_session_create");
    if (st != MGRT_OK) {
      releaseSession(s.release());
      return st;
    }
    *out = s.release();
    return MGRT_OK;
  })
}

void mgrt_session_destroy(mgrt_session* s) {
  if (!s) return;
  if (s->inFlight) s->model->backend->wait(s->recording, "mgrt_session_destroy");  // its buffers are in use
  releaseSession(s);
}

int mgrt_session_input_count(const mgrt_session* s) { return s ? int(s->plan.inputs.size()) : 0; }
int mgrt_session_output_count(const mgrt_session* s) { return s ? int(s->plan.outputs.size()) : 0; }

mgrt_status mgrt_session_input_info(const mgrt_session* s, int i, mgrt_tensor_info* out) {
  if (!s) return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_input_info: session is null");
  return describe(s->plan.inputs, i, out, "mgrt_session_input_info");
}

mgrt_status mgrt_session_output_info(const mgrt_session* s, int i, mgrt_tensor_info* out) {
  if (!s) return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_output_info: session is null");
  return describe(s->plan.outputs, i, out, "mgrt_session_output_info");
}
