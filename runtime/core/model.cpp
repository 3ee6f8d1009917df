// mgrt_model_*: verify the bundle, plan it, then upload weights + params and
// build one pipeline per kernel.
#include <new>

#include "formats/file_read.h"
#include "runtime/core/objects.h"
#include "runtime/core/status.h"

using namespace mgrt;

namespace {

void releaseModel(mgrt_model* m) {
  Backend* be = m->backend;
  for (Pipeline* p : m->pipelines) be->destroyPipeline(p);
  be->destroyBuffer(m->weights);
  be->destroyBuffer(m->params);
  destroyModelState(m);
  delete m;
}

mgrt_status createPipelines(mgrt_model* m) {
  const mgb::Bundle& b = *m->bundle.manifest;
  m->pipelines.assign(b.kernels()->size(), nullptr);
  for (uint32_t i = 0; i < b.kernels()->size(); ++i) {
    const mgb::Kernel& k = *b.kernels()->Get(i);
    const mgb::KernelVariant& v = *k.variants()->Get(m->bundle.variant[i]);  // chosen when verified
    KernelCode code;
    code.spirv = v.spirv()->data();
    code.spirvWords = v.spirv()->size();
    if (v.msl()) {
      code.msl = v.msl()->c_str();
      code.mslBytes = v.msl()->size();
    }
    for (uint32_t a = 0; a < 3; ++a) code.localSize[a] = v.local_size()->Get(a);  // verified: 3 values
    code.numBindings = k.num_bindings();
    code.stream = k.stream();
    if (v.tag()) code.variant = v.tag()->c_str();
    const std::string what = label("kernel", i, k.name());
    MGRT_TRY(m->backend->createPipeline(code, what.c_str(), &m->pipelines[i]));
  }
  return MGRT_OK;
}

// Packs every dispatch's params at their planned offsets and uploads them
// together with the weights arena in one submission.
mgrt_status uploadWeightsAndParams(mgrt_model* m) {
  Backend* be = m->backend;
  const mgb::Bundle& b = *m->bundle.manifest;
  m->paramsPlan = planParams(b, be->caps().limits);
  std::vector<uint8_t> params(size_t(m->paramsPlan.size), 0);
  packParams(b, m->paramsPlan, params.data());
  MGRT_TRY(be->createBuffer(m->bundle.weightsSize, MemoryUse::DeviceLocal, "weights arena", &m->weights));
  MGRT_TRY(be->createBuffer(params.size(), MemoryUse::DeviceLocal, "params buffer", &m->params));
  std::vector<Upload> uploads;
  if (m->bundle.weightsSize) uploads.push_back({m->weights, 0, m->bundle.weights, m->bundle.weightsSize});
  if (!params.empty()) uploads.push_back({m->params, 0, params.data(), params.size()});
  return be->upload(uploads, "uploading weights");
}

// `data` (the whole file) need only live during the call: the manifest is
// copied, the weights and state initial values are uploaded.
mgrt_status loadBundle(mgrt_context* ctx, const uint8_t* data, size_t size, mgrt_model** out) {
  Backend* be = ctx->backend.get();
  if (be->lost()) return fail(MGRT_DEVICE_ERROR, "mgrt_model_load: the GPU device was lost earlier");
  std::unique_ptr<mgrt_model> m(new mgrt_model());
  m->ctx = ctx;
  m->backend = be;
  MGRT_TRY(verifyBundle(data, size, be->caps().limits, &m->bundle));

  const int before = be->validationMessages();
  mgrt_status s = uploadWeightsAndParams(m.get());
  if (s == MGRT_OK) s = createModelState(m.get());
  if (s == MGRT_OK) s = createPipelines(m.get());
  if (s == MGRT_OK) s = be->checkValidation(before, "mgrt_model_load");
  m->bundle.weights = m->bundle.data = nullptr;  // into `data`, which the caller keeps
  if (s == MGRT_OK) be->savePipelineCache();  // new pipelines reach the file for the next launch
  if (s != MGRT_OK) {
    releaseModel(m.release());
    return s;
  }
  *out = m.release();
  return MGRT_OK;
}

}  // namespace

mgrt_status mgrt_model_load(mgrt_context* ctx, const void* data, size_t size, mgrt_model** out) {
  MGRT_API_GUARD({
    if (!out) return fail(MGRT_INVALID_ARGUMENT, "mgrt_model_load: out is null");
    *out = nullptr;
    if (!ctx || (!data && size)) return fail(MGRT_INVALID_ARGUMENT, "mgrt_model_load: null argument");
    return loadBundle(ctx, static_cast<const uint8_t*>(data), size, out);
  })
}

mgrt_status mgrt_model_load_file(mgrt_context* ctx, const char* path, mgrt_model** out) {
  MGRT_API_GUARD({
    if (!out) return fail(MGRT_INVALID_ARGUMENT, "mgrt_model_load_file: out is null");
    *out = nullptr;
    if (!ctx || !path) return fail(MGRT_INVALID_ARGUMENT, "mgrt_model_load_file: null argument");
    std::vector<uint8_t> bytes;
    std::string error;
    if (!fileio::readAll(path, &bytes, &error)) return fail(MGRT_IO_ERROR, "%s", error.c_str());
    const mgrt_status s = loadBundle(ctx, bytes.data(), bytes.size(), out);
    if (s != MGRT_OK) failMessage(s, std::string(path) + ": " + lastError());
    return s;
  })
}

void mgrt_model_destroy(mgrt_model* m) {
  if (m) releaseModel(m);
}
