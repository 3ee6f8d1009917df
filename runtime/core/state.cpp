// mgrt_model_*_state: the state tensors of a model (training bundles), by
// name: describe, read, write, save and load as safetensors.
#include "runtime/core/state.h"

#include <cstring>
#include <map>

#include "formats/safetensors.h"
#include "runtime/core/dtype.h"
#include "runtime/core/objects.h"
#include "runtime/core/status.h"
#include "runtime/core/verify.h"

using namespace mgrt;

namespace mgrt {

mgrt_status createModelState(mgrt_model* m) {
  Backend* be = m->backend;
  const mgb::Bundle& b = *m->bundle.manifest;
  StatePlan plan = planState(b);
  m->state.arenas.assign(b.arenas()->size(), nullptr);
  std::vector<Buffer*> clear;
  std::vector<Upload> init;
  for (uint32_t i : plan.arenas) {
    const mgb::Arena& a = *b.arenas()->Get(i);
    const std::string what = format("state arena %u", i);
    MGRT_TRY(be->createBuffer(a.size(), MemoryUse::DeviceLocal, what.c_str(), &m->state.arenas[i]));
    clear.push_back(m->state.arenas[i]);
    // verified: [init_offset, +init_size) inside the data section, init_size <= size
    if (a.init_size()) init.push_back({m->state.arenas[i], 0, m->bundle.data + a.init_offset(), a.init_size()});
  }
  MGRT_TRY(be->zero(clear, "clearing state arenas"));
  MGRT_TRY(be->upload(init, "initializing state arenas"));
  m->state.tensors = std::move(plan.tensors);
  return MGRT_OK;
}

void destroyModelState(mgrt_model* m) {
  for (Buffer* b : m->state.arenas) m->backend->destroyBuffer(b);
  m->state.arenas.clear();
}

}  // namespace mgrt

namespace {

const TensorPlan* findState(const mgrt_model* m, const char* name) {
  std::string known;
  for (const TensorPlan& s : m->state.tensors) {
    if (s.name == name) return &s;
    if (known.size() < 200) known += (known.empty() ? "" : ", ") + s.name;
  }
  fail(MGRT_INVALID_ARGUMENT, "unknown state tensor '%s' (state: %s)", name,
       known.empty() ? "none: the bundle has no state" : known.c_str());
  return nullptr;
}

std::string shapeText(const TensorPlan& s) {
  std::string out = std::string(dtypeName(s.dtype)) + "[";
  for (size_t i = 0; i < s.shape.size(); ++i) out += (i ? "," : "") + std::to_string(s.shape[i]);
  return out + "]";
}

mgrt_status checkSize(const TensorPlan& s, size_t bytes) {
  if (bytes == s.externalBytes) return MGRT_OK;
  return fail(MGRT_INVALID_ARGUMENT, "state '%s' is %s = %zu bytes, got %zu", s.name.c_str(), shapeText(s).c_str(),
              s.externalBytes, bytes);
}

// All state tensors' device representations, in directory order.
mgrt_status readAll(mgrt_model* m, std::vector<std::vector<uint8_t>>* words, const char* what) {
  std::vector<Download> downloads;
  words->resize(m->state.tensors.size());
  for (size_t i = 0; i < m->state.tensors.size(); ++i) {
    const TensorPlan& s = m->state.tensors[i];
    (*words)[i].resize(size_t(s.size));
    downloads.push_back({m->state.arenas[s.arena], s.offset, (*words)[i].data(), s.size});
  }
  return m->backend->download(downloads, what);
}

mgrt_status deviceLost(const mgrt_model* m, const char* fn) {
  if (m->backend->lost()) return fail(MGRT_DEVICE_ERROR, "%s: the GPU device was lost earlier", fn);
  return MGRT_OK;
}

}  // namespace

int mgrt_model_state_count(const mgrt_model* m) { return m ? int(m->state.tensors.size()) : 0; }

mgrt_status mgrt_model_state_info(const mgrt_model* m, int i, mgrt_tensor_info* out) {
  MGRT_API_GUARD({
    if (!m || !out) return fail(MGRT_INVALID_ARGUMENT, "mgrt_model_state_info: null argument");
    if (i < 0 || size_t(i) >= m->state.tensors.size())
      return fail(MGRT_INVALID_ARGUMENT, "mgrt_model_state_info: index %d out of range (%zu)", i,
                  m->state.tensors.size());
    const TensorPlan& s = m->state.tensors[size_t(i)];
    out->name = s.name.c_str();
    out->dtype = mgrt_dtype(s.dtype);
    out->rank = int(s.shape.size());
    out->shape = s.shape.data();
    out->bytes = s.externalBytes;
    return MGRT_OK;
  })
}

mgrt_status mgrt_model_read_state(mgrt_model* m, const char* name, void* data, size_t bytes) {
  MGRT_API_GUARD({
    if (!m || !name || (!data && bytes)) return fail(MGRT_INVALID_ARGUMENT, "mgrt_model_read_state: null argument");
    MGRT_TRY(deviceLost(m, "mgrt_model_read_state"));
    const TensorPlan* s = findState(m, name);
    if (!s) return MGRT_INVALID_ARGUMENT;
    MGRT_TRY(checkSize(*s, bytes));
    std::vector<uint8_t> words(size_t(s->size));
    MGRT_TRY(m->backend->download({{m->state.arenas[s->arena], s->offset, words.data(), s->size}},
                                 "reading state"));
    fromDevice(s->dtype, s->deviceDtype, words.data(), s->numel, data);
    return MGRT_OK;
  })
}

mgrt_status mgrt_model_write_state(mgrt_model* m, const char* name, const void* data, size_t bytes) {
  MGRT_API_GUARD({
    if (!m || !name || (!data && bytes)) return fail(MGRT_INVALID_ARGUMENT, "mgrt_model_write_state: null argument");
    MGRT_TRY(deviceLost(m, "mgrt_model_write_state"));
    const TensorPlan* s = findState(m, name);
    if (!s) return MGRT_INVALID_ARGUMENT;
    MGRT_TRY(checkSize(*s, bytes));
    std::vector<uint8_t> words(size_t(s->size));
    MGRT_TRY(toDevice(s->dtype, s->deviceDtype, data, s->numel, words.data(), s->name.c_str()));
    return m->backend->upload({{m->state.arenas[s->arena], s->offset, words.data(), s->size}},
                             "writing state");
  })
}

mgrt_status mgrt_model_save_state(mgrt_model* m, const char* path) {
  MGRT_API_GUARD({
    if (!m || !path) return fail(MGRT_INVALID_ARGUMENT, "mgrt_model_save_state: null argument");
    MGRT_TRY(deviceLost(m, "mgrt_model_save_state"));
    if (m->state.tensors.empty())
      return fail(MGRT_INVALID_ARGUMENT, "mgrt_model_save_state: the bundle has no state tensors");
    std::vector<std::vector<uint8_t>> words;
    MGRT_TRY(readAll(m, &words, "saving state"));
    std::vector<std::vector<uint8_t>> host(words.size());
    std::vector<safetensors::TensorData> tensors;
    for (size_t i = 0; i < words.size(); ++i) {
      const TensorPlan& s = m->state.tensors[i];
      host[i].resize(s.externalBytes);
      fromDevice(s.dtype, s.deviceDtype, words[i].data(), s.numel, host[i].data());
      tensors.push_back({s.name, safetensors::dtypeName(unsigned(s.dtype)), s.shape, host[i].data(), s.externalBytes});
    }
    std::vector<uint8_t> file = safetensors::serialize(tensors, {{"format", "mgrt-state"}});
    std::string err;
    if (!safetensors::writeFileAtomic(path, file, &err)) return fail(MGRT_IO_ERROR, "saving state: %s", err.c_str());
    return MGRT_OK;
  })
}

mgrt_status mgrt_model_load_state(mgrt_model* m, const char* path) {
  MGRT_API_GUARD({
    if (!m || !path) return fail(MGRT_INVALID_ARGUMENT, "mgrt_model_load_state: null argument");
    MGRT_TRY(deviceLost(m, "mgrt_model_load_state"));
    std::vector<uint8_t> file;
    std::string err;
    if (!safetensors::readFile(path, &file, &err)) return fail(MGRT_IO_ERROR, "loading state: %s", err.c_str());
    safetensors::Header h;
    if (!safetensors::parseHeader(file.data(), file.size(), &h, &err))
      return fail(MGRT_INVALID_ARGUMENT, "%s: %s", path, err.c_str());
    // Everything is checked before anything is written: a bad checkpoint
    // leaves the state as it was.
    std::vector<std::vector<uint8_t>> words(m->state.tensors.size());
    std::vector<Upload> uploads;
    for (size_t i = 0; i < m->state.tensors.size(); ++i) {
      const TensorPlan& s = m->state.tensors[i];
      const safetensors::TensorInfo* t = h.find(s.name);
      if (!t) return fail(MGRT_INVALID_ARGUMENT, "%s: checkpoint lacks state tensor '%s'", path, s.name.c_str());
      if (t->dtype != safetensors::dtypeName(unsigned(s.dtype)) || t->shape != s.shape) {
        std::string got = t->dtype + "[";
        for (size_t k = 0; k < t->shape.size(); ++k) got += (k ? "," : "") + std::to_string(t->shape[k]);
        return fail(MGRT_INVALID_ARGUMENT, "%s: tensor '%s' is %s in the checkpoint but %s in the bundle", path,
                    s.name.c_str(), (got + "]").c_str(), shapeText(s).c_str());
      }
      words[i].resize(size_t(s.size));
      MGRT_TRY(toDevice(s.dtype, s.deviceDtype, file.data() + h.dataOffset + t->begin, s.numel, words[i].data(),
                        s.name.c_str()));
      uploads.push_back({m->state.arenas[s.arena], s.offset, words[i].data(), s.size});
    }
    for (const safetensors::TensorInfo& t : h.tensors) {
      bool known = false;
      for (const TensorPlan& s : m->state.tensors) known = known || s.name == t.name;
      if (!known)
        return fail(MGRT_INVALID_ARGUMENT, "%s: tensor '%s' in the checkpoint is not a state tensor of this bundle",
                    path, t.name.c_str());
    }
    return m->backend->upload(uploads, "loading state");
  })
}

int mgrt_model_entry_point_count(const mgrt_model* m) {
  return m ? int(m->bundle.manifest->entry_points()->size()) : 0;
}

const char* mgrt_model_entry_point_name(const mgrt_model* m, int i) {
  if (!m || i < 0 || uint32_t(i) >= m->bundle.manifest->entry_points()->size()) return nullptr;
  return m->bundle.manifest->entry_points()->Get(uint32_t(i))->name()->c_str();
}
