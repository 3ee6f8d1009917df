// DropoutMask → dropout_mask (one invocation per element; the hash is
// ir/dropout.h's, the step counter is read on the device).
#include "ir/dropout.h"
#include "kernels/lower_common.h"

namespace mgc::kern {

std::vector<DispatchPlan> lowerDropoutMask(const Graph& g, const Node& n) {
  if (inType(g, n, 0) != TensorType{DType::F32, {}}) fail(n, "cannot lower: the step must be an f32 scalar");
  if (outType(g, n).dtype != DType::F32) fail(n, "cannot lower: the mask must be f32");
  const int64_t count = outType(g, n).numel();
  if (count == 0) return {};
  const double ratio = n.f("ratio", 0.5);
  DispatchPlan d = makePlan(n, "dropout_mask");
  d.params = {u32(n, count, "element count"), dropout::pcg(u32(n, n.i("seed", 0), "seed")),
              dropout::threshold(ratio), f32Bits(double(dropout::scale(ratio)))};
  d.bindings = {n.inputs[0], n.outputs[0]};
  setItemGrid(d, n, uint64_t(count));
  return {d};
}

}  // namespace mgc::kern
