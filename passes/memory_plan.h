// Memory planning: every tensor the device touches gets an (arena, offset).
//
// Constants go to the Weights arena (0) in order of first use. Everything
// else goes to the Activations arena (1): a value is live from the step that
// defines it (graph inputs: step 0) to its last use (graph outputs: the end);
// values whose lifetimes do not overlap share bytes. Alias ops (Reshape,
// Identity) share their input's storage; an elementwise op may write in place
// over an input that dies at that op and has the output's shape.
// State values (Value::isState) are left unplaced (arena -1): the driver puts
// them in the State arena shared by all entry points. New values of state
// updates live to the end of the run, like graph outputs.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ir/graph.h"

namespace mgc {

struct TensorSlot {
  int arena = -1;  // -1: not placed (unused value)
  uint64_t offset = 0;
  uint64_t size = 0;  // device bytes (numel * device element size, at least 4)
};

struct MemoryPlanInput {
  // For every node in g.nodes (same order): true if the node is an alias op
  // (its output shares its first input's storage, no dispatch).
  std::vector<bool> isAlias;
  // For every node: may its output be written over its first same-shaped
  // input that dies there (elementwise ops)?
  std::vector<bool> mayRunInPlace;
};

struct MemoryPlan {
  std::vector<TensorSlot> slots;  // by ValueId
  uint64_t weightsBytes = 0;
  uint64_t activationBytes = 0;   // arena peak
  uint64_t naiveActivationBytes = 0;  // one buffer per tensor, no reuse
  int inPlaceCount = 0;
};

constexpr uint64_t kArenaAlign = 256;
uint64_t deviceBytes(const TensorType& t);

MemoryPlan planMemory(const Graph& g, const MemoryPlanInput& in);

}  // namespace mgc
