// StateWrite → state_write: one invocation per element of the written
// value (rotated on the way, with cos / sin inputs). The output is bound alone (not the state input): the memory plan
// gives it the state's own bytes, so the kernel writes just the new rows.
#include "kernels/lower_common.h"

namespace mgc::kern {

std::vector<DispatchPlan> lowerStateWrite(const Graph& g, const Node& n) {
  const Shape &state = inType(g, n, 0).shape, &value = inType(g, n, 1).shape;
  const size_t axis = size_t(n.i("axis", 0) < 0 ? n.i("axis", 0) + int64_t(state.size()) : n.i("axis", 0));
  int64_t inner = 1;
  for (size_t d = axis + 1; d < state.size(); ++d) inner *= state[d];
  const int64_t count = numel(value);
  if (count == 0) return {};
  DispatchPlan d = makePlan(n, "state_write");
  // D and J go through i32 too: the kernel compares offset <= D - J signed.
  const bool rotary = n.inputs.size() > 3;  // rotary(value, cos, signed_sin) written (ir/ops.def)
  d.params = {u32(n, count, "element count"), i32(n, value.at(axis), "value rows"), u32(n, inner, "inner size"),
              i32(n, state.at(axis), "state rows"), uint32_t(rotary)};
  u32(n, numel(state), "state elements");  // the kernel indexes the state with u32
  d.bindings = {n.inputs[1], n.inputs[2], rotary ? n.inputs[3] : n.inputs[1], rotary ? n.inputs[4] : n.inputs[1],
                n.outputs[0]};
  setItemGrid(d, n, uint64_t(count));
  return {d};
}

}  // namespace mgc::kern
