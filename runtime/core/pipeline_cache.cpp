// mgrt_context_*pipeline_cache*: the file the backend keeps compiled
// pipelines in between launches (the format and checks are the backend's:
// runtime/vulkan/pipeline_cache_file.h).
#include "runtime/core/objects.h"
#include "runtime/core/status.h"

using namespace mgrt;

static_assert(int(PipelineCacheState::Off) == MGRT_PIPELINE_CACHE_OFF &&
                  int(PipelineCacheState::Empty) == MGRT_PIPELINE_CACHE_EMPTY &&
                  int(PipelineCacheState::Loaded) == MGRT_PIPELINE_CACHE_LOADED &&
                  int(PipelineCacheState::Ignored) == MGRT_PIPELINE_CACHE_IGNORED,
              "backend.h's PipelineCacheState is mgrt.h's MGRT_PIPELINE_CACHE_*");

mgrt_status mgrt_context_set_pipeline_cache(mgrt_context* ctx, const char* path) {
  MGRT_API_GUARD({
    if (!ctx) return fail(MGRT_INVALID_ARGUMENT, "mgrt_context_set_pipeline_cache: ctx is null");
    if (ctx->backend->lost())
      return fail(MGRT_DEVICE_ERROR, "mgrt_context_set_pipeline_cache: the GPU device was lost earlier");
    return ctx->backend->openPipelineCache(path);
  })
}

int mgrt_context_pipeline_cache_state(const mgrt_context* ctx) {
  return ctx ? int(ctx->backend->pipelineCacheStatus().state) : MGRT_PIPELINE_CACHE_OFF;
}

const char* mgrt_context_pipeline_cache_note(const mgrt_context* ctx) {
  if (!ctx) return "";
  try {
    ctx->pipelineCacheNote = ctx->backend->pipelineCacheStatus().note;
  } catch (...) {  // no host memory for the copy: report nothing rather than throw through C
    return "";
  }
  return ctx->pipelineCacheNote.c_str();
}
