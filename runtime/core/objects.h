// The opaque handles of the C API.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/core/state.h"
#include "runtime/core/verify.h"
#include "runtime/vulkan/memory.h"
#include "runtime/vulkan/pipeline.h"
#include "runtime/vulkan/recorder.h"

struct mgrt_context {
  mgrt::vk::Device device;
};

struct mgrt_model {
  mgrt_context* ctx = nullptr;
  std::vector<uint8_t> bytes;  // the verified file; the manifest points into it
  mgrt::VerifiedBundle bundle;
  mgrt::vk::Buffer weights;    // arena 0, uploaded once
  mgrt::vk::Buffer params;     // every dispatch's params, packed
  uint64_t paramsAlign = 16;
  // paramsOffset[entry point][dispatch] = byte offset in `params`.
  std::vector<std::vector<uint64_t>> paramsOffset;
  std::vector<mgrt::vk::KernelPipeline> pipelines;  // one per kernel
  mgrt::ModelState state;  // State arenas (shared by every session) + named state tensors
};

// One input or output of a session: where it lives on the device and in
// the staging buffer, and how big it is outside.
struct mgrt_session_io {
  const mgb::Tensor* tensor = nullptr;
  std::string name;
  mgb::DType dtype = mgb::DType::F32;
  std::vector<int64_t> shape;
  uint64_t numel = 0;
  size_t externalBytes = 0;
  uint64_t stagingOffset = 0;  // the device representation (tensor->size() bytes) lives here
};

struct mgrt_session {
  mgrt_model* model = nullptr;
  const mgb::EntryPoint* entry = nullptr;
  std::vector<mgrt::vk::Buffer> arenas;  // [0] unused: the model's weights; State arenas: the model's
  mgrt::vk::Buffer staging;              // inputs, then outputs; host-visible
  std::vector<mgrt_session_io> inputs, outputs;
  mgrt::vk::Recording recording;
  double lastGpuMs = -1.0;
  bool hasRun = false;
};

namespace mgrt {
// The VkBuffer holding arena `i` for this session.
inline VkBuffer arenaBuffer(const mgrt_session* s, uint32_t i) {
  if (i == 0) return s->model->weights.buffer;
  if (i < s->model->state.arenas.size() && s->model->state.arenas[i].buffer) return s->model->state.arenas[i].buffer;
  return s->arenas[i].buffer;
}
}  // namespace mgrt
