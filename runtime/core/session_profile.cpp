// mgrt_session_set_profiling / profile_count / profile_get: per-dispatch
// GPU times of the last run, joined with what the bundle says about each
// dispatch (kernel, node, output shape, compile-time cost estimates).
// Profiling off records no extra timestamps, so it costs nothing.
#include <algorithm>
#include <string>

#include "runtime/core/objects.h"
#include "runtime/core/status.h"

using namespace mgrt;

namespace {

const char* text(const flatbuffers::String* s) { return s ? s->c_str() : ""; }

}  // namespace

mgrt_status mgrt_session_set_profiling(mgrt_session* s, int enable) {
  MGRT_API_GUARD({
    if (!s) return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_set_profiling: session is null");
    Backend* be = s->model->backend;
    const bool on = enable != 0;
    if (on == s->profiling) return MGRT_OK;
    if (s->inFlight)  // re-recording replaces the command buffer the GPU is running
      return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_set_profiling: a run is in flight; call mgrt_session_wait first");
    if (on && !be->caps().timestamps)
      return fail(MGRT_UNSUPPORTED, "profiling needs GPU timestamps, which the compute queue of %s does not have",
                  be->caps().name.c_str());
    if (be->lost()) return fail(MGRT_DEVICE_ERROR, "mgrt_session_set_profiling: the GPU device was lost earlier");
    const int before = be->validationMessages();
    s->profiling = on;
    const mgrt_status st = recordSession(s);
    if (st != MGRT_OK) {  // the old recording is still in place
      s->profiling = !on;
      return st;
    }
    return be->checkValidation(before, "mgrt_session_set_profiling");
  })
}

int mgrt_session_profile_count(const mgrt_session* s) {
  return s && !s->profileNs.empty() ? int(s->profileNs.size() - 1) : 0;
}

mgrt_status mgrt_session_profile_get(const mgrt_session* s, int i, mgrt_dispatch_profile* out) {
  MGRT_API_GUARD({
    if (!s || !out) return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_profile_get: null argument");
    const int count = mgrt_session_profile_count(s);
    if (i < 0 || i >= count)
      return fail(MGRT_INVALID_ARGUMENT, "mgrt_session_profile_get: index %d out of range (%d records)", i, count);
    const mgrt_model* m = s->model;
    const mgb::Bundle& b = *m->bundle.manifest;
    const mgb::Dispatch& d = *b.entry_points()->Get(s->plan.entry)->dispatches()->Get(uint32_t(i));
    const mgb::Kernel& k = *b.kernels()->Get(d.kernel());
    out->kernel = text(k.name());
    out->variant = text(k.variants()->Get(m->bundle.variant[d.kernel()])->tag());
    out->node = text(d.node());
    out->shape = text(d.shape());
    out->start_ns = s->profileNs[size_t(i)];
    out->end_ns = std::max(out->start_ns, s->profileNs[size_t(i) + 1]);
    out->flops = d.flops();
    out->bytes = d.bytes();
    out->barrier = i > 0 && s->plan.dispatches[size_t(i)].barrier;  // the first waits on the input copies anyway
    return MGRT_OK;
  })
}
