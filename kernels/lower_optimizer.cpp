// AdamStep → adam: one dispatch per parameter, one invocation per element,
// writing the parameter and both moments (the last three bindings).
#include "kernels/lower_common.h"

namespace mgc::kern {

std::vector<DispatchPlan> lowerAdamStep(const Graph& g, const Node& n) {
  const int64_t count = numel(inType(g, n, 0).shape);
  if (count == 0) return {};
  DispatchPlan d = makePlan(n, "adam");
  const double b1 = n.f("beta1", 0.9), b2 = n.f("beta2", 0.999);
  d.params = {u32(n, count, "element count"), f32Bits(b1), f32Bits(1.0 - b1), f32Bits(b2), f32Bits(1.0 - b2),
              f32Bits(n.f("eps", 1e-8)), f32Bits(n.f("weight_decay", 0.0))};
  d.bindings = {n.inputs[0], n.inputs[1], n.inputs[2], n.inputs[3], n.inputs[4],
                n.outputs[0], n.outputs[1], n.outputs[2]};
  d.numWritten = 3;
  setItemGrid(d, n, uint64_t(count));
  return {d};
}

}  // namespace mgc::kern
