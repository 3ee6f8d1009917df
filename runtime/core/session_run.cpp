// mgrt_session_set_input / run / get_output: convert at the boundary,
// replay the recorded work.
#include <cstring>
#include <new>

#include "runtime/core/dtype.h"
#include "runtime/core/objects.h"
#include "runtime/core/status.h"

using namespace mgrt;

namespace {

std::string shapeText(const TensorPlan& io) {
  std::string s = std::string(dtypeName(io.dtype)) + "[";
  for (size_t i = 0; i < io.shape.size(); ++i) s += (i ? "," : "") + std::to_string(io.shape[i]);
  return s + "]";
}

const TensorPlan* find(const std::vector<TensorPlan>& ios, const char* name,
                            const char* kind) {
  std::string known;
  for (const TensorPlan& io : ios) {
    if (io.name == name) return &io;
    known += (known.empty() ? "" : ", ") + io.name;
  }
  fail(MGRT_INVALID_ARGUMENT, "unknown %s '%s' (%ss: %s)", kind, name, kind,
       known.empty() ? "none" : known.c_str());
  return nullptr;
}

mgrt_status checkSize(const TensorPlan& io, size_t bytes, const char* kind) {
  if (bytes == io.externalBytes) return MGRT_OK;
  return fail(MGRT_INVALID_ARGUMENT, "%s '%s' is %s = %zu bytes, got %zu", kind, io.name.c_str(),
              shapeText(io).c_str(), io.externalBytes, bytes);
}

uint8_t* inputStagingData(mgrt_session* s, const TensorPlan& io) { return s->inputStagingBytes + io.stagingOffset; }
uint8_t* outputStagingData(mgrt_session* s, const TensorPlan& io) { return s->outputStagingBytes + io.stagingOffset; }

// Inputs and outputs live in memory the GPU uses while a run is in flight.
mgrt_status notInFlight(const mgrt_session* s, const char* call) {
  if (!s->inFlight) return MGRT_OK;
  return fail(MGRT_INVALID_ARGUMENT, "%s: a run is in flight (mgrt_session_submit); call mgrt_session_wait first",
              call);
}

}  // namespace

mgrt_status mgrt_session_set_input(mgrt_session* s, const char* name, const void* data,
                                   size_t bytes) {
  MGRT_API_GUARD({
    if (!s || !name || (!data && bytes))
      return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_set_input: null argument");
    MGRT_TRY(notInFlight(s, "mgrt_session_set_input"));
    const TensorPlan* io = find(s->plan.inputs, name, "input");
    if (!io) return MGRT_INVALID_ARGUMENT;
    if (s->bound.count(io->name))
      return fail(MGRT_INVALID_ARGUMENT, "input '%s' is bound to a device buffer (mgrt_session_bind_vulkan_buffer)", name);
    MGRT_TRY(checkSize(*io, bytes, "input"));
    return toDevice(io->dtype, io->deviceDtype, data, io->numel, inputStagingData(s, *io), io->name.c_str());
  })
}

namespace {

mgrt_status submit(mgrt_session* s, const char* call) {
  if (!s) return fail(MGRT_INVALID_ARGUMENT, "%s: session is null", call);
  MGRT_TRY(notInFlight(s, call));
  Backend* be = s->model->backend;
  s->lastGpuMs = -1.0;
  s->profileNs.clear();
  const int before = be->validationMessages();
  SubmitSync sync;
  sync.wait = s->waitFor;
  sync.waitValue = s->waitValue;
  sync.signal = s->timeline;
  sync.signalValue = s->timelineValue + 1;
  MGRT_TRY(be->submit(s->recording, sync, call));
  s->inFlight = true;
  if (s->timeline) s->timelineValue = sync.signalValue;
  be->destroyTimeline(s->waitFor);  // the app's wait was for this submission only
  s->waitFor = nullptr;
  return be->checkValidation(before, call);
}

mgrt_status wait(mgrt_session* s, const char* call) {
  if (!s) return fail(MGRT_INVALID_ARGUMENT, "%s: session is null", call);
  if (!s->inFlight) return fail(MGRT_INVALID_ARGUMENT, "%s: nothing submitted (mgrt_session_submit)", call);
  Backend* be = s->model->backend;
  const int before = be->validationMessages();
  const mgrt_status waited = be->wait(s->recording, call);
  s->inFlight = false;  // done, or failed for good (device loss, timeout)
  MGRT_TRY(waited);
  s->lastGpuMs = be->gpuMilliseconds(s->recording);
  s->hasRun = true;
  if (s->profiling) MGRT_TRY(be->dispatchTimes(s->recording, &s->profileNs));
  return be->checkValidation(before, call);
}

}  // namespace

mgrt_status mgrt_session_run(mgrt_session* s) {
  MGRT_API_GUARD({
    MGRT_TRY(submit(s, "mgrt_session_run"));
    return wait(s, "mgrt_session_run");
  })
}

mgrt_status mgrt_session_submit(mgrt_session* s) {
  MGRT_API_GUARD({ return submit(s, "mgrt_session_submit"); })
}

mgrt_status mgrt_session_wait(mgrt_session* s) {
  MGRT_API_GUARD({ return wait(s, "mgrt_session_wait"); })
}

mgrt_status mgrt_session_get_output(mgrt_session* s, const char* name, void* data, size_t bytes) {
  MGRT_API_GUARD({
    if (!s || !name || (!data && bytes))
      return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_get_output: null argument");
    MGRT_TRY(notInFlight(s, "mgrt_session_get_output"));
    const TensorPlan* io = find(s->plan.outputs, name, "output");
    if (!io) return MGRT_INVALID_ARGUMENT;
    if (s->bound.count(io->name))
      return fail(MGRT_INVALID_ARGUMENT, "output '%s' is bound to a device buffer (mgrt_session_bind_vulkan_buffer)", name);
    MGRT_TRY(checkSize(*io, bytes, "output"));
    if (!s->hasRun)
      return fail(MGRT_INVALID_ARGUMENT, "output '%s' read before the first mgrt_session_run",
                  name);
    fromDevice(io->dtype, io->deviceDtype, outputStagingData(s, *io), io->numel, data);
    return MGRT_OK;
  })
}

double mgrt_session_last_gpu_ms(const mgrt_session* s) { return s ? s->lastGpuMs : -1.0; }
