// Reduce* and ArgMax → the reduce kernel (kernels/src/reduce.comp).
#include "kernels/lower_common.h"

namespace mgc::kern {

namespace {

// Reduced extents at least this long get a workgroup per output (mode 1).
constexpr int64_t kGroupPerOutputFrom = 128;

DispatchPlan reducePlan(const Graph& g, const Node& n, const std::vector<bool>& reduced, ReduceCode code) {
  const Shape& x = inType(g, n, 0).shape;
  auto strides = rowMajorStrides(x);
  StridedDims kept, red;
  kept.strides.resize(1);
  red.strides.resize(1);
  for (size_t d = 0; d < x.size(); ++d) {
    StridedDims& s = reduced[d] ? red : kept;
    s.dims.push_back(x[d]);
    s.strides[0].push_back(strides[d]);
  }
  int64_t outCount = numel(kept.dims), R = numel(red.dims);
  red.coalesce();
  kept.coalesce();
  bool groupPerOutput = R >= kGroupPerOutputFrom || (outCount <= 1024 && R >= 16);
  DispatchPlan d = makePlan(n, "reduce");
  d.params.assign(29, 0);
  d.params[0] = u32(n, outCount, "output count");
  d.params[1] = u32(n, R, "reduced extent");
  d.params[2] = code;
  d.params[3] = isDeviceFloat(inType(g, n, 0).dtype) ? 0 : 1;
  d.params[4] = groupPerOutput ? 1 : 0;
  kept.write(n, d.params, 5, {11}, 6);
  red.write(n, d.params, 17, {23}, 6);
  u32(n, numel(x), "input size");
  d.bindings = {n.inputs[0], n.outputs[0]};
  if (groupPerOutput) setGroupGrid(d, n, uint64_t(outCount));
  else setItemGrid(d, n, uint64_t(outCount));
  return d;
}

}  // namespace

std::vector<DispatchPlan> lowerReduce(const Graph& g, const Node& n, ReduceCode code) {
  if (outType(g, n).numel() == 0) return {};
  int rank = inType(g, n, 0).rank();
  auto axes = n.ints("axes", {{}});
  std::vector<bool> reduced(size_t(rank), axes.empty());
  for (int64_t a : axes) reduced.at(size_t(a < 0 ? a + rank : a)) = true;
  if (inType(g, n, 0).numel() == 0) fail(n, "reducing an empty tensor is not supported on the GPU");
  return {reducePlan(g, n, reduced, code)};
}

std::vector<DispatchPlan> lowerArgMax(const Graph& g, const Node& n) {
  if (outType(g, n).numel() == 0) return {};
  int rank = inType(g, n, 0).rank();
  int64_t axis = n.i("axis", 0);
  std::vector<bool> reduced(size_t(rank), false);
  reduced.at(size_t(axis < 0 ? axis + rank : axis)) = true;
  return {reducePlan(g, n, reduced, kArgMax)};
}

}  // namespace mgc::kern
