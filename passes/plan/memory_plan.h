// Memory planning: every tensor the device touches gets an (arena, offset).
//
// Constants go to the Weights arena (0) in order of first use. Everything
// else goes to the Activations arena (1): a value is live from the step that
// defines it (graph inputs: step 0) to its last use (graph outputs: the end);
// values whose lifetimes do not overlap share bytes. Lifetimes are also
// counted in execution levels (the scheduler's, from the data alone): two
// values share bytes only if neither their step nor their level lifetimes
// overlap, so that reuse adds no barrier (a later writer waiting for an
// earlier value's readers it does not depend on). That plan is dropped for
// the step-only one when it needs over a quarter (and over 1 MiB) more.
// Levels count each node's dispatches (a split-K product: initializing
// pass, slices, finishing pass), and a node whose first pass initializes
// its output from constants (MemoryPlanInput::earlyOutput) writes it a
// level early, beside its inputs' producers.
// Alias ops (Reshape, Identity) share their input's storage; an elementwise op may write in place
// over an input that dies at that op and has the output's shape.
// State values (Value::isState) are left unplaced (arena -1): the driver puts
// them in the State arena shared by all entry points.
// State updates are planned in place where that is safe: the new value is
// written straight into the state's bytes (MemoryPlan::stateHome) when
//   - a node P computes it (not an alias op, input, constant or state),
//     it is no graph output and the new value of no other update, and
//   - no node after P reads the old value (nor a reshape / identity view of
//     it), no graph output or other update's new value is a view of it, and
//   - if P itself reads the old value, P is elementwise (one eltwise
//     dispatch: each invocation reads input index i, writes output index i)
//     and reads it with the output's shape.
// The scheduler orders every reader of the old value before P (a write
// after a read of the same bytes). StateWrite results always live in their
// state (passes/graph/verify.cpp checks the conditions). Other new values live in
// activations to the end of the run, like graph outputs, and the driver
// copies them into the state after the last node.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"

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
  // For every node (may be empty: none): is it one elementwise dispatch
  // that reads each same-shaped input at the index it writes? Such a node
  // may write a state update's new value over the old value it reads (also
// several values, one per result: adam_step).
  std::vector<bool> elementwise;
  // For every node (may be empty: none): does its first dispatch write its
  // output before the node's inputs are all ready (split-K's initializing
  // pass)? Its output's level lifetime then starts a level early, so that
  // the pass shares no bytes with values read in the level before the
  // node's and can run there, beside them.
  std::vector<bool> earlyOutput;
  // For every node (may be empty: one each): how many dispatches it lowers
  // to, run one after another (0 for alias ops).
  std::vector<int> dispatches;
};

struct MemoryPlan {
  std::vector<TensorSlot> slots;  // by ValueId
  uint64_t weightsBytes = 0;
  uint64_t activationBytes = 0;   // arena peak
  // Bytes are shared between values whose execution-level lifetimes do not
  // overlap (no barrier added), or, when that needs much more memory,
  // between values whose program-order lifetimes do not (stepPeakBytes).
  bool byLevel = false;
  uint64_t stepPeakBytes = 0;
  uint64_t naiveActivationBytes = 0;  // one buffer per tensor, no reuse
  int inPlaceCount = 0;
  // By ValueId: the state value whose State-arena bytes this value lives in
  // (its slot is then unplaced, arena -1, for the driver to fill), or
  // kNoValue. Set for new values of updates planned in place, StateWrite
  // results and reshape / identity views of states and of those.
  std::vector<ValueId> stateHome;
  int inPlaceUpdates = 0;  // state updates that need no copy
};

constexpr uint64_t kArenaAlign = 256;
uint64_t deviceBytes(const TensorType& t);

MemoryPlan planMemory(const Graph& g, const MemoryPlanInput& in);

}  // namespace mgc
