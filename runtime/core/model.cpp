// mgrt_model_*: verify the bundle, then upload weights + params and build
// one pipeline per kernel.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include "runtime/core/objects.h"
#include "runtime/core/status.h"

using namespace mgrt;

namespace {

void releaseModel(mgrt_model* m) {
  vk::Device* d = &m->ctx->device;
  if (!d->lost) {  // after a hang, in-flight work may still use these
    for (vk::KernelPipeline& k : m->pipelines) vk::destroyKernelPipeline(d, &k);
    vk::destroyBuffer(d, &m->weights);
    vk::destroyBuffer(d, &m->params);
  }
  destroyModelState(m);
  delete m;
}

mgrt_status createPipelines(mgrt_model* m) {
  const mgb::Bundle& b = *m->bundle.manifest;
  m->pipelines.resize(b.kernels()->size());
  for (uint32_t i = 0; i < b.kernels()->size(); ++i) {
    const mgb::Kernel& k = *b.kernels()->Get(i);
    const std::string what = label("kernel", i, k.name());
    const mgb::KernelVariant& v = *k.variants()->Get(m->bundle.variant[i]);  // chosen when verified
    MGRT_TRY(vk::createKernelPipeline(&m->ctx->device, v.spirv()->data(), v.spirv()->size(),
                                      k.num_bindings(), what.c_str(), &m->pipelines[i]));
  }
  return MGRT_OK;
}

// Packs every dispatch's params at aligned offsets and uploads them together
// with the weights arena in one submission.
mgrt_status uploadWeightsAndParams(mgrt_model* m) {
  vk::Device* d = &m->ctx->device;
  const mgb::Bundle& b = *m->bundle.manifest;
  m->paramsAlign = std::max<uint64_t>(d->limits.minStorageBufferOffsetAlignment, 16);
  std::vector<uint8_t> params(size_t(paramsBufferSize(b, m->paramsAlign)), 0);
  uint64_t at = 0;
  for (const mgb::EntryPoint* e : *b.entry_points()) {
    m->paramsOffset.emplace_back();
    if (!e->dispatches()) continue;
    for (const mgb::Dispatch* disp : *e->dispatches()) {
      m->paramsOffset.back().push_back(at);
      if (disp->params() && disp->params()->size())
        std::memcpy(params.data() + at, disp->params()->data(), disp->params()->size() * 4);
      at += paramsSlotSize(*disp, m->paramsAlign);
    }
  }
  const VkBufferUsageFlags arenaUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                        VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                        VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  MGRT_TRY(vk::createBuffer(d, m->bundle.weightsSize, arenaUsage, vk::MemoryUse::DeviceLocal,
                            "weights arena", &m->weights));
  MGRT_TRY(vk::createBuffer(d, params.size(),
                            VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                            vk::MemoryUse::DeviceLocal, "params buffer", &m->params));
  std::vector<vk::Upload> uploads;
  if (m->bundle.weightsSize)
    uploads.push_back({&m->weights, 0, m->bundle.weights, m->bundle.weightsSize});
  if (!params.empty()) uploads.push_back({&m->params, 0, params.data(), params.size()});
  return vk::uploadBuffers(d, uploads, "uploading weights");
}

mgrt_status loadOwned(mgrt_context* ctx, std::vector<uint8_t>&& bytes, mgrt_model** out) {
  vk::Device* d = &ctx->device;
  if (d->lost) return fail(MGRT_DEVICE_ERROR, "mgrt_model_load: the GPU device was lost earlier");
  std::unique_ptr<mgrt_model> m(new mgrt_model());
  m->ctx = ctx;
  m->bytes = std::move(bytes);
  MGRT_TRY(verifyBundle(m->bytes.data(), m->bytes.size(), d->limits, &m->bundle));

  const int before = vk::validationCount(d);
  mgrt_status s = uploadWeightsAndParams(m.get());
  if (s == MGRT_OK) s = createModelState(m.get());
  if (s == MGRT_OK) s = createPipelines(m.get());
  if (s == MGRT_OK) s = vk::checkValidation(d, before, "mgrt_model_load");
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
    const uint8_t* p = static_cast<const uint8_t*>(data);
    return loadOwned(ctx, std::vector<uint8_t>(p, p + size), out);
  })
}

mgrt_status mgrt_model_load_file(mgrt_context* ctx, const char* path, mgrt_model** out) {
  MGRT_API_GUARD({
    if (!out) return fail(MGRT_INVALID_ARGUMENT, "mgrt_model_load_file: out is null");
    *out = nullptr;
    if (!ctx || !path) return fail(MGRT_INVALID_ARGUMENT, "mgrt_model_load_file: null argument");
    FILE* f = std::fopen(path, "rb");
    if (!f) return fail(MGRT_IO_ERROR, "cannot open '%s': %s", path, std::strerror(errno));
    std::vector<uint8_t> bytes;
    uint8_t chunk[1 << 16];
    size_t n = 0;
    while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) bytes.insert(bytes.end(), chunk, chunk + n);
    const bool readError = std::ferror(f) != 0;
    std::fclose(f);
    if (readError) return fail(MGRT_IO_ERROR, "cannot read '%s'", path);
    const mgrt_status s = loadOwned(ctx, std::move(bytes), out);
    if (s != MGRT_OK) failMessage(s, std::string(path) + ": " + lastError());
    return s;
  })
}

void mgrt_model_destroy(mgrt_model* m) {
  if (m) releaseModel(m);
}
