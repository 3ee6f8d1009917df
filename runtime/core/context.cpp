// mgrt_context_*: owns the backend (the GPU API's instance and device).
#include <new>

#include "runtime/core/objects.h"
#include "runtime/core/status.h"

using namespace mgrt;

mgrt_status mgrt_context_create(const mgrt_context_options* opts, mgrt_context** out) {
  MGRT_API_GUARD({
    if (!out) return fail(MGRT_INVALID_ARGUMENT, "mgrt_context_create: out is null");
    *out = nullptr;
    mgrt_context_options defaults{-1, 0, 0};
    std::unique_ptr<mgrt_context> ctx(new mgrt_context());
    MGRT_TRY(createVulkanBackend(opts ? *opts : defaults, &ctx->backend));
    *out = ctx.release();
    return MGRT_OK;
  })
}

void mgrt_context_destroy(mgrt_context* ctx) { delete ctx; }

const char* mgrt_context_device_name(const mgrt_context* ctx) {
  return ctx ? ctx->backend->caps().name.c_str() : "";
}

int mgrt_context_validation_messages(const mgrt_context* ctx) {
  return ctx ? ctx->backend->validationMessages() : 0;
}

uint32_t mgrt_context_features(const mgrt_context* ctx) { return ctx ? mgrt::contextFeatures(ctx->backend->caps()) : 0; }
