// Softmax / LogSoftmax → softmax; LayerNorm and RMSNorm → layernorm (a
// LayerNorm over chunk moments → layernorm_apply); Moments → moments;
// BatchNorm → batchnorm. Param layouts at the top of each .comp.
#include <algorithm>

#include "kernels/lower_common.h"

namespace mgc::kern {

namespace {

// Rows at least this long get a workgroup per row (rows.glsl mode 1).
constexpr int64_t kGroupPerRowFrom = 128;

void setRowGrid(DispatchPlan& d, const Node& n, int64_t rows, int64_t length) {
  bool groupPerRow = length >= kGroupPerRowFrom || (rows <= 1024 && length >= 16);
  d.params[4] = groupPerRow ? 1 : 0;
  if (groupPerRow) setGroupGrid(d, n, uint64_t(rows));
  else setItemGrid(d, n, uint64_t(rows));
}

}  // namespace

std::vector<DispatchPlan> lowerSoftmax(const Graph& g, const Node& n) {
  requireFloat(g, n, "softmax");
  const Shape& x = inType(g, n, 0).shape;
  if (numel(x) == 0) return {};
  size_t axis = size_t(n.i("axis", -1) < 0 ? n.i("axis", -1) + int64_t(x.size()) : n.i("axis", -1));
  int64_t D = x.empty() ? 1 : x.at(axis), inner = 1;
  for (size_t k = axis + 1; k < x.size(); ++k) inner *= x[k];
  int64_t rows = numel(x) / D;
  DispatchPlan d = makePlan(n, "softmax");
  d.params = {u32(n, rows, "row count"), u32(n, D, "row length"), u32(n, inner, "inner size"),
              n.op == Op::LogSoftmax ? 1u : 0u, 0};
  u32(n, numel(x), "tensor size");
  d.bindings = {n.inputs[0], n.outputs[0]};
  setRowGrid(d, n, rows, D);
  return {d};
}

std::vector<DispatchPlan> lowerLayerNorm(const Graph& g, const Node& n) {
  requireFloat(g, n, "layernorm");
  const Shape& x = inType(g, n, 0).shape;
  if (numel(x) == 0) return {};
  int64_t axis = n.i("axis", -1);
  if (axis < 0) axis += int64_t(x.size());
  int64_t D = 1;
  for (size_t k = size_t(axis); k < x.size(); ++k) D *= x[k];
  int64_t rows = numel(x) / D;
  bool hasBias = n.inputs.size() > 2 && n.inputs[2] != kNoValue;
  if (n.inputs.size() > 3 && n.inputs[3] != kNoValue) {
    // Over chunk moments: workgroups of 128 invocations own 2 to 16 elements
    // each, towards 256 workgroups.
    const int64_t perGroup = 128 * std::clamp<int64_t>((numel(x) + 256 * 128 - 1) / (256 * 128), 2, 16);
    DispatchPlan d = makePlan(n, "layernorm_apply");
    d.params = {u32(n, rows, "row count"), u32(n, D, "row length"), f32Bits(n.f("epsilon", 1e-5)), hasBias ? 1u : 0u,
                u32(n, inType(g, n, 3).shape[1], "chunk count"), uint32_t(perGroup)};
    u32(n, numel(x) + perGroup, "tensor size");
    d.bindings = {n.inputs[0], n.inputs[1], hasBias ? n.inputs[2] : n.inputs[1], n.inputs[3], n.outputs[0]};
    setGroupGrid(d, n, uint64_t((numel(x) + perGroup - 1) / perGroup));
    return {d};
  }
  uint32_t kind = n.op == Op::LayerNorm ? 0u : n.i("epsilon_outside", 0) != 0 ? 2u : 1u;
  DispatchPlan d = makePlan(n, "layernorm");
  d.params = {u32(n, rows, "row count"), u32(n, D, "row length"), f32Bits(n.f("epsilon", 1e-5)), hasBias ? 1u : 0u, 0,
              kind};
  u32(n, numel(x), "tensor size");
  d.bindings = {n.inputs[0], n.inputs[1], hasBias ? n.inputs[2] : n.inputs[1], n.outputs[0]};
  setRowGrid(d, n, rows, D);
  return {d};
}

std::vector<DispatchPlan> lowerMoments(const Graph& g, const Node& n) {
  requireFloat(g, n, "moments");
  const Shape& x = inType(g, n, 0).shape;
  if (numel(x) == 0) return {};
  const int64_t L = x.back(), rows = numel(x) / L;
  DispatchPlan d = makePlan(n, "moments");
  d.params = {u32(n, rows, "row count"), u32(n, L, "row length")};
  u32(n, numel(x), "tensor size");
  d.bindings = {n.inputs[0], n.outputs[0]};
  setGroupGrid(d, n, uint64_t(rows));
  return {d};
}

std::vector<DispatchPlan> lowerBatchNorm(const Graph& g, const Node& n) {
  requireFloat(g, n, "batchnorm");
  const Shape& x = inType(g, n, 0).shape;
  if (numel(x) == 0) return {};
  int64_t C = x.at(1), inner = numel(x) / (x[0] * C);
  DispatchPlan d = makePlan(n, "batchnorm");
  d.params = {u32(n, numel(x), "element count"), u32(n, C, "channels"), u32(n, inner, "inner size"),
              f32Bits(n.f("epsilon", 1e-5))};
  d.bindings = {n.inputs[0], n.inputs[1], n.inputs[2], n.inputs[3], n.inputs[4], n.outputs[0]};
  setItemGrid(d, n, uint64_t(numel(x)));
  return {d};
}

}  // namespace mgc::kern
