// fuse-state-write: a rotary (RoPE) whose result is only written into a
// state (a KV cache, StateWrite along the second-to-last axis) is done by
// the write itself, which rotates each element on its way into the cache
// (ir/ops.def): one dispatch and one barrier fewer per layer of a decode
// step.
//
//   %kr = rotary(%k, %cos, %sin) : f32[1,3,1,64]
//   %c1 = state_write(%c0, %kr, %pos) {axis = 2}   →   %c1 = state_write(%c0, %k, %pos, %cos, %sin) {axis = 2}
#include "passes/graph/passes.h"

namespace mgc {

void fuseStateWrite(Graph& g) {
  std::vector<int> uses = g.useCounts();
  std::vector<bool> isOutput(g.values.size(), false);
  for (ValueId v : g.outputs) isOutput[size_t(v)] = true;
  for (const auto& u : g.stateUpdates) isOutput[size_t(u.second)] = true;
  for (Node& n : g.nodes) {
    if (n.op != Op::StateWrite || n.inputs.size() != 3) continue;
    const ValueId value = n.inputs[1];
    const NodeId p = g.value(value).producer;
    if (p < 0 || uses[size_t(value)] != 1 || isOutput[size_t(value)]) continue;
    const Node& r = g.nodes[size_t(p)];
    const TensorType& t = g.type(value);
    const int64_t rank = t.rank(), axis = n.i("axis", 0) < 0 ? n.i("axis", 0) + rank : n.i("axis", 0);
    if (r.op != Op::Rotary || r.i("tokens_major", 0) || t.dtype != DType::F32 || rank < 2 || axis != rank - 2) continue;
    const std::vector<ValueId> rot = r.inputs;  // x, cos, signed_sin
    n.inputs[1] = rot[0];
    n.inputs.push_back(rot[1]);
    n.inputs.push_back(rot[2]);
  }
}

}  // namespace mgc
