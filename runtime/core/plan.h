// Host-side planning: a verified bundle → every size, offset and range the
// device objects of a model and its sessions will use, without a device.
// model.cpp, session.cpp and state.cpp create backend objects from these
// plans; the fuzzer's dry run (verify_fuzz_entry.cpp) runs the same code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/mgb_generated.h"
#include "runtime/core/limits.h"
#include "runtime/core/verify.h"

namespace mgrt {

// A tensor the host reads or writes: a session input/output or a state tensor.
struct TensorPlan {
  const mgb::Tensor* tensor = nullptr;
  std::string name;
  mgb::DType dtype = mgb::DType::F32;        // external dtype
  mgb::DType deviceDtype = mgb::DType::F32;  // how it is stored on the device
  std::vector<int64_t> shape;
  uint64_t numel = 0;
  size_t externalBytes = 0;  // numel * external element size
  uint32_t arena = 0;
  uint64_t offset = 0, size = 0;  // device range (numel * device element size)
  uint64_t stagingOffset = 0;     // session inputs/outputs: where the device bytes sit in their staging buffer
};

// The params buffer of a model: every dispatch's params words, each at an
// offset aligned for binding as a storage buffer.
struct ParamsPlan {
  uint64_t align = 16;
  uint64_t size = 0;                          // = paramsBufferSize(bundle, align)
  std::vector<std::vector<uint64_t>> offset;  // [entry point][dispatch]
};

struct ArenaRange {
  uint32_t arena = 0;
  uint64_t offset = 0, size = 0;
};

struct DispatchPlan {
  uint32_t kernel = 0;
  ArenaRange params;                 // arena field unused: the params buffer
  std::vector<ArenaRange> bindings;  // bindings 1..n
  uint32_t groups[3] = {1, 1, 1};
  bool barrier = true;
  uint32_t stream[4] = {0, 0, ~0u, 0};  // a stream kernel's push words (stream_plan.h)
};

// One entry point's session. Arena 0 (weights) and State arenas belong to
// the model; `arenas` lists the ones the session allocates itself.
struct SessionPlan {
  uint32_t entry = 0;
  std::vector<uint32_t> arenas;
  // Staging: the inputs' device words in one buffer (the host writes it,
  // the GPU copies from it), the outputs' in another (the GPU copies into
  // it, the host reads it); TensorPlan::stagingOffset is into the io's own.
  std::vector<TensorPlan> inputs, outputs;
  uint64_t inputStagingSize = 0, outputStagingSize = 0;
  std::vector<DispatchPlan> dispatches;
  uint32_t streamSlots = 0;  // counters of in-stream waits (stream_plan.h); 0: no stream kernel
};

// The model's State arenas and named state tensors (Bundle.state).
struct StatePlan {
  std::vector<uint32_t> arenas;
  std::vector<TensorPlan> tensors;
};

// All of these take a bundle that verifyBundle accepted against `limits`.
ParamsPlan planParams(const mgb::Bundle& b, const DeviceLimits& limits);
// Writes every dispatch's params at its offset; dst holds plan.size bytes, zeroed.
void packParams(const mgb::Bundle& b, const ParamsPlan& plan, uint8_t* dst);
StatePlan planState(const mgb::Bundle& b);
// Dispatch grids are those of each kernel's chosen variant (vb.variant).
SessionPlan planSession(const VerifiedBundle& vb, uint32_t entry, const ParamsPlan& params);

}  // namespace mgrt
