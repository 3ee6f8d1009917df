// GatherElements → gather_elements, ScatterElements → scatter_elements
// (one invocation per output element).
#include <algorithm>

#include "kernels/lower_common.h"

namespace mgc::kern {

std::vector<DispatchPlan> lowerGatherElements(const Graph& g, const Node& n) {
  const Shape& data = inType(g, n, 0).shape;
  int64_t a = n.i("axis", 0);
  size_t axis = size_t(a < 0 ? a + int64_t(data.size()) : a);
  int64_t inner = 1;
  for (size_t d = axis + 1; d < data.size(); ++d) inner *= data[d];
  int64_t count = outType(g, n).numel();
  if (count == 0) return {};
  DispatchPlan d = makePlan(n, "gather_elements");
  d.params = {u32(n, count, "element count"), u32(n, data.at(axis), "axis dim"), u32(n, inner, "inner size"),
              u32(n, inType(g, n, 1).shape.at(axis), "index count")};
  i32(n, numel(data), "data size");
  d.bindings = {n.inputs[0], n.inputs[1], n.outputs[0]};
  setItemGrid(d, n, uint64_t(count));
  return {d};
}

std::vector<DispatchPlan> lowerScatterElements(const Graph& g, const Node& n) {
  const Shape& data = inType(g, n, 0).shape;
  int64_t a = n.i("axis", 0), reduction = n.i("reduction", 0);
  size_t axis = size_t(a < 0 ? a + int64_t(data.size()) : a);
  DType dt = outType(g, n).dtype;
  if (reduction != 0 && (dt == DType::I8 || dt == DType::U8 || dt == DType::F16))
    fail(n, "cannot lower: scatter_elements accumulates in 32 bits; " + outType(g, n).str() + " would not round like the reference");
  int64_t inner = 1;
  for (size_t d = axis + 1; d < data.size(); ++d) inner *= data[d];
  int64_t count = outType(g, n).numel();
  if (count == 0) return {};
  DispatchPlan d = makePlan(n, "scatter_elements");
  d.params = {u32(n, count, "element count"),
              u32(n, data.at(axis), "axis dim"),
              u32(n, inner, "inner size"),
              u32(n, inType(g, n, 1).shape.at(axis), "index count"),
              u32(n, reduction, "reduction"),
              isFloat(dt) ? 0u : 1u};
  i32(n, std::max(count, inType(g, n, 1).numel()), "tensor size");
  d.bindings = {n.inputs[0], n.inputs[1], n.inputs[2], n.outputs[0]};
  setItemGrid(d, n, uint64_t(count));
  return {d};
}

}  // namespace mgc::kern
