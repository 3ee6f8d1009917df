// mgrt_session_set_input / run / get_output: convert at the boundary,
// replay the recorded command buffer.
#include <cstring>
#include <new>

#include "runtime/core/dtype.h"
#include "runtime/core/objects.h"
#include "runtime/core/status.h"

using namespace mgrt;

namespace {

std::string shapeText(const mgrt_session_io& io) {
  std::string s = std::string(dtypeName(io.dtype)) + "[";
  for (size_t i = 0; i < io.shape.size(); ++i) s += (i ? "," : "") + std::to_string(io.shape[i]);
  return s + "]";
}

const mgrt_session_io* find(const std::vector<mgrt_session_io>& ios, const char* name,
                            const char* kind) {
  std::string known;
  for (const mgrt_session_io& io : ios) {
    if (io.name == name) return &io;
    known += (known.empty() ? "" : ", ") + io.name;
  }
  fail(MGRT_INVALID_ARGUMENT, "unknown %s '%s' (%ss: %s)", kind, name, kind,
       known.empty() ? "none" : known.c_str());
  return nullptr;
}

mgrt_status checkSize(const mgrt_session_io& io, size_t bytes, const char* kind) {
  if (bytes == io.externalBytes) return MGRT_OK;
  return fail(MGRT_INVALID_ARGUMENT, "%s '%s' is %s = %zu bytes, got %zu", kind, io.name.c_str(),
              shapeText(io).c_str(), io.externalBytes, bytes);
}

uint8_t* stagingData(mgrt_session* s, const mgrt_session_io& io) {
  return static_cast<uint8_t*>(s->staging.mapped) + io.stagingOffset;
}

}  // namespace

mgrt_status mgrt_session_set_input(mgrt_session* s, const char* name, const void* data,
                                   size_t bytes) {
  MGRT_API_GUARD({
    if (!s || !name || (!data && bytes))
      return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_set_input: null argument");
    const mgrt_session_io* io = find(s->inputs, name, "input");
    if (!io) return MGRT_INVALID_ARGUMENT;
    MGRT_TRY(checkSize(*io, bytes, "input"));
    return toDevice(io->dtype, io->tensor->device_dtype(), data, io->numel, stagingData(s, *io), io->name.c_str());
  })
}

mgrt_status mgrt_session_run(mgrt_session* s) {
  MGRT_API_GUARD({
    if (!s) return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_run: session is null");
    vk::Device* d = &s->model->ctx->device;
    const int before = vk::validationCount(d);
    MGRT_TRY(vk::replay(d, &s->recording, &s->lastGpuMs));
    s->hasRun = true;
    return vk::checkValidation(d, before, "mgrt_session_run");
  })
}

mgrt_status mgrt_session_get_output(mgrt_session* s, const char* name, void* data, size_t bytes) {
  MGRT_API_GUARD({
    if (!s || !name || (!data && bytes))
      return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_get_output: null argument");
    const mgrt_session_io* io = find(s->outputs, name, "output");
    if (!io) return MGRT_INVALID_ARGUMENT;
    MGRT_TRY(checkSize(*io, bytes, "output"));
    if (!s->hasRun)
      return fail(MGRT_INVALID_ARGUMENT, "output '%s' read before the first mgrt_session_run",
                  name);
    fromDevice(io->dtype, io->tensor->device_dtype(), stagingData(s, *io), io->numel, data);
    return MGRT_OK;
  })
}

double mgrt_session_last_gpu_ms(const mgrt_session* s) { return s ? s->lastGpuMs : -1.0; }
