// The opaque handles of the C API. Device objects are the backend's
// (backend.h); sizes and offsets come from the host-side plans (plan.h).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/backend.h"
#include "runtime/core/plan.h"
#include "runtime/core/state.h"
#include "runtime/core/verify.h"

struct mgrt_context {
  std::unique_ptr<mgrt::Backend> backend;
  mutable std::string pipelineCacheNote;  // returned by mgrt_context_pipeline_cache_note
};

struct mgrt_model {
  mgrt_context* ctx = nullptr;
  mgrt::Backend* backend = nullptr;  // ctx->backend
  mgrt::VerifiedBundle bundle;  // its own copy of the manifest; the file is not kept
  mgrt::ParamsPlan paramsPlan;
  mgrt::Buffer* weights = nullptr;  // arena 0, uploaded once
  mgrt::Buffer* params = nullptr;   // every dispatch's params, packed
  std::vector<mgrt::Pipeline*> pipelines;  // one per kernel
  mgrt::ModelState state;  // State arenas (shared by every session) + named state tensors
};

struct mgrt_session {
  mgrt_model* model = nullptr;
  mgrt::SessionPlan plan;                // inputs, outputs, staging layout, dispatches
  std::vector<mgrt::Buffer*> arenas;     // by arena index; only the session's own are set
  mgrt::Buffer* inputStaging = nullptr;   // inputs' device words: host-visible, device-local where offered
  mgrt::Buffer* outputStaging = nullptr;  // outputs' device words: host-visible (cached where offered)
  uint8_t* inputStagingBytes = nullptr;   // their mappings
  uint8_t* outputStagingBytes = nullptr;
  mgrt::Recording* recording = nullptr;
  double lastGpuMs = -1.0;
  bool hasRun = false;
  bool inFlight = false;             // submitted (mgrt_session_submit), not yet waited for
  // Inputs / outputs read from or written to an app's device buffer
  // (mgrt_session_bind_vulkan_buffer) instead of the staging buffer, by name.
  struct BoundBuffer {
    mgrt::Buffer* buffer = nullptr;  // the backend's wrapper; destroyBuffer leaves the app's object alone
    uint64_t offset = 0;
  };
  std::map<std::string, BoundBuffer> bound;
  // GPU-side ordering with the app's work (caps().timelines only): each
  // submission signals `timeline` with the next value, timelineValue being
  // the last one submitted (0: none yet); the next submission waits for
  // `waitFor` (an app's timeline, wrapped; null: none) to reach waitValue.
  mgrt::Timeline* timeline = nullptr;
  uint64_t timelineValue = 0;
  mgrt::Timeline* waitFor = nullptr;
  uint64_t waitValue = 0;
  bool profiling = false;            // recorded with a timestamp after each dispatch
  std::vector<uint64_t> profileNs;   // of the last run: dispatches + 1 times (Backend::dispatchTimes)
};

namespace mgrt {
// (Re-)records the session's work (session.cpp), with per-dispatch
// timestamps when s->profiling, then destroys the previous recording. On
// failure the previous recording stays in place, so a caller that changed
// the session (bound buffers, profiling) changes it back and the session
// runs as before.
mgrt_status recordSession(mgrt_session* s);

// The buffer holding arena `i` for this session: the model's weights, the
// model's State arenas, or the session's own.
inline Buffer* arenaBuffer(const mgrt_session* s, uint32_t i) {
  if (i == 0) return s->model->weights;
  if (i < s->model->state.arenas.size() && s->model->state.arenas[i]) return s->model->state.arenas[i];
  return s->arenas[i];
}
}  // namespace mgrt
