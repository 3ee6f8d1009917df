// Model state (training bundles): the State arenas, allocated once per model
// and shared by every session, initialized from the bundle's data section;
// and the directory of named state tensors (Bundle.state).
#pragma once

#include <string>
#include <vector>

#include "formats/mgb_generated.h"
#include "runtime/core/api.h"
#include "runtime/vulkan/memory.h"

struct mgrt_model;

namespace mgrt {

struct StateTensor {
  std::string name;
  mgb::DType dtype = mgb::DType::F32;
  mgb::DType deviceDtype = mgb::DType::F32;
  std::vector<int64_t> shape;
  uint64_t numel = 0;
  size_t externalBytes = 0;
  uint32_t arena = 0;
  uint64_t offset = 0, size = 0;  // device range (numel * size of deviceDtype bytes)
};

struct ModelState {
  std::vector<vk::Buffer> arenas;  // by arena index; only State arenas are allocated
  std::vector<StateTensor> tensors;
};

// Allocates and initializes the model's State arenas (data section bytes,
// zeros beyond them) and builds the tensor directory. The bundle is verified.
mgrt_status createModelState(mgrt_model* m);
void destroyModelState(mgrt_model* m);

}  // namespace mgrt
