// Model state (training bundles): the State arenas, allocated once per model
// and shared by every session, initialized from the bundle's data section;
// and the directory of named state tensors (Bundle.state).
#pragma once

#include <vector>

#include "runtime/core/api.h"
#include "runtime/core/backend.h"
#include "runtime/core/plan.h"

struct mgrt_model;

namespace mgrt {

struct ModelState {
  std::vector<Buffer*> arenas;  // by arena index; only State arenas are allocated
  std::vector<TensorPlan> tensors;
};

// Allocates and initializes the model's State arenas (data section bytes,
// zeros beyond them) and builds the tensor directory. The bundle is verified.
mgrt_status createModelState(mgrt_model* m);
void destroyModelState(mgrt_model* m);

}  // namespace mgrt
