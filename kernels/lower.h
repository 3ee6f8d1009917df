// Lowering: one IR node → the dispatches of library kernels that compute it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace mgc {

struct DispatchPlan {
  std::string kernel;               // library kernel name (kernels/src/<name>.comp)
  std::vector<uint32_t> params;     // parameter block (binding 0)
  std::vector<ValueId> bindings;    // whole tensors for bindings 1..n, in order
  uint32_t groups[3] = {1, 1, 1};
  // > 0: one invocation per item; the runtime derives the grid from the
  // chosen kernel variant's local size (`groups` is the portable one's).
  uint64_t items = 0;
  std::string node;                 // IR node name
  // The last `numWritten` bindings are written by the dispatch; the others
  // are only read. The scheduler places barriers from this.
  uint32_t numWritten = 1;
  // Profiling metadata, filled by lowerNode (kernels/cost.h).
  uint64_t flops = 0, bytes = 0;
  std::string shape;  // the node's output type, "f32[1,64,32,32]"
};

// True for ops that need no dispatch: the output is the input's storage
// viewed with another shape (Reshape, Identity). The memory planner aliases
// them.
bool isAliasOp(const Node& n);

// The dispatches for one node, in order (each depends on the previous one
// when they share a tensor). Throws mgc::Error naming the node if no kernel
// handles it (e.g. an unsupported dtype).
std::vector<DispatchPlan> lowerNode(const Graph& g, const Node& n);

// True when `plans` is one dispatch that reads each same-shaped input at
// the index it writes (eltwise, adam): the memory plan may then put a state
// update's new value over the old value the dispatch reads
// (MemoryPlanInput::elementwise).
bool readsWhereItWrites(const std::vector<DispatchPlan>& plans);

// True if a node's dispatches open with a pass that initializes its output
// from constants and epilogue operands only (split-K's conv2d_finish in
// mode 0: the bias and leading adds, before the slices add into it): that
// pass may run a level before the node's products (MemoryPlanInput::
// earlyOutput).
bool initializesOutputFirst(const std::vector<DispatchPlan>& plans);

// Device element type (formats/dtype.h): floats → F32, integers and bools →
// I32; a tensor takes deviceElementSize(t) bytes per element on the GPU.
using mgb::dtype::deviceDType;

}  // namespace mgc
