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

uint8_t* stagingData(mgrt_session* s, const TensorPlan& io) { return s->stagingBytes + io.stagingOffset;
}

}  // namespace

mgrt_status mgrt_session_set_input(mgrt_session* s, const char* name, const void* data,
                                   size_t bytes) {
  MGRT_API_GUARD({
    if (!s || !name || (!data && bytes))
      return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_set_input: null argument");
    const TensorPlan* io = find(s->plan.inputs, name, "input");
    if (!io) return MGRT_INVALID_ARGUMENT;
    MGRT_TRY(checkSize(*io, bytes, "input"));
    return toDevice(io->dtype, io->deviceDtype, data, io->numel, stagingData(s, *io), io->name.c_str());
  })
}

mgrt_status mgrt_session_run(mgrt_session* s) {
  MGRT_API_GUARD({
    if (!s) return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_run: session is null");
    Backend* be = s->model->backend;
    const int before = be->validationMessages();
    s->lastGpuMs = -1.0;
    s->profileNs.clear();
    MGRT_TRY(be->submit(s->recording, "mgrt_session_run"));
    MGRT_TRY(be->wait(s->recording, "mgrt_session_run"));
    s->lastGpuMs = be->gpuMilliseconds(s->recording);
    s->hasRun = true;
    if (s->profiling) MGRT_TRY(be->dispatchTimes(s->recording, &s->profileNs));
    return be->checkValidation(before, "mgrt_session_run");
  })
}

mgrt_status mgrt_session_get_output(mgrt_session* s, const char* name, void* data, size_t bytes) {
  MGRT_API_GUARD({
    if (!s || !name || (!data && bytes))
      return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_get_output: null argument");
    const TensorPlan* io = find(s->plan.outputs, name, "output");
    if (!io) return MGRT_INVALID_ARGUMENT;
    MGRT_TRY(checkSize(*io, bytes, "output"));
    if (!s->hasRun)
      return fail(MGRT_INVALID_ARGUMENT, "output '%s' read before the first mgrt_session_run",
                  name);
    fromDevice(io->dtype, io->deviceDtype, stagingData(s, *io), io->numel, data);
    return MGRT_OK;
  })
}

double mgrt_session_last_gpu_ms(const mgrt_session* s) { return s ? s->lastGpuMs : -1.0; }
