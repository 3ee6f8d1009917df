// Gradient ops (passes/program/autodiff.cpp) → conv2d_grad_gemm (or
// conv2d_grad for thin groups), pool2d_grad, gather_grad.
// Param layouts: kernels/src/conv2d_grad.comp, pool2d_grad.comp,
// gather_grad.comp.
#include <algorithm>

#include "kernels/lower_common.h"

namespace mgc::kern {

namespace {

// conv2d_grad_gemm (implicit GEMM on the 64x64 core) needs >= 16 GEMM rows
// to keep its tiles busy; thinner groups (depthwise) run conv2d_grad, one
// invocation per element.
constexpr int64_t kMinGemmRows = 16;
// Split-K for the weight gradient: its GEMM is small (M x Cg*KH*KW) and
// deep (K = N*OH*OW, thousands), so aim for more workgroups (a few per
// compute unit on a big GPU) than the forward conv does. Fill 256 → 512
// and grids below 128 → 256 tiles with native float atomics (H100,
// bench/results/h100-e5ca822-atomicf.md): ResNet-50's train step 11.64 →
// 11.34 ms with the conv policy above.
constexpr SplitK kGradSplitK{/*fillTiles=*/512, /*splitBelow=*/256, /*minSliceK=*/256, /*maxSlices=*/64};

}  // namespace

std::vector<DispatchPlan> lowerConvGrad(const Graph& g, const Node& n) {
  requireFloat(g, n, "conv2d_grad");
  bool wantInput = n.op == Op::ConvGradInput;
  // ConvGradInput(dy, w) -> dx; ConvGradWeight(x, dy) -> dw
  const Shape& out = outType(g, n).shape;
  const Shape& x = wantInput ? out : inType(g, n, 0).shape;
  const Shape& w = wantInput ? inType(g, n, 1).shape : out;
  const Shape& dy = inType(g, n, wantInput ? 0 : 1).shape;
  if (numel(out) == 0) return {};
  auto st = n.ints("strides", {{1, 1}}), pd = n.ints("pads", {{0, 0, 0, 0}}), dl = n.ints("dilations", {{1, 1}});
  const int64_t groups = n.i("group", 1), Cg = x[1] / groups, Mg = w[0] / groups, taps = w[2] * w[3];
  const int64_t rows = wantInput ? Cg : Mg;
  const bool gemm = rows >= kMinGemmRows;
  DispatchPlan d = makePlan(n, gemm ? "conv2d_grad_gemm" : "conv2d_grad");
  d.params = {u32(n, x[0], "N"),        u32(n, x[1], "C"),         u32(n, x[2], "H"),        u32(n, x[3], "W"),
              u32(n, w[0], "M"),        u32(n, dy[2], "OH"),       u32(n, dy[3], "OW"),      u32(n, w[2], "KH"),
              u32(n, w[3], "KW"),       u32(n, st[0], "stride"),   u32(n, st[1], "stride"),  u32(n, pd[0], "pad"),
              u32(n, pd[1], "pad"),     u32(n, dl[0], "dilation"), u32(n, dl[1], "dilation"), u32(n, groups, "group"),
              wantInput ? 0u : 1u};
  i32(n, std::max({numel(x), numel(w), numel(dy)}), "tensor size");
  d.bindings = {n.inputs[0], n.inputs[1], n.outputs[0]};
  if (!gemm) {
    setItemGrid(d, n, uint64_t(numel(out)));
    return {d};
  }
  // GEMM: rows x cols, depth K (conv2d_grad_gemm.comp)
  const int64_t cols = wantInput ? x[0] * x[2] * x[3] : Cg * taps;
  const int64_t K = wantInput ? Mg * taps : x[0] * dy[2] * dy[3];
  u32(n, K, "GEMM depth");
  auto tiles = [](int64_t v) { return (v + 63) / 64; };
  auto clamp = [](int64_t v) { return uint32_t(std::min<int64_t>(v, kMaxGroups)); };
  const KSlices ks = splitK(kGradSplitK, tiles(cols) * tiles(rows) * groups, K);
  const int64_t slices = ks.count, sliceK = ks.sliceK;
  d.params.push_back(uint32_t(slices));
  d.params.push_back(uint32_t(sliceK));
  d.groups[0] = clamp(tiles(cols));
  d.groups[1] = clamp(tiles(rows));
  d.groups[2] = clamp(groups * slices);
  if (slices < 2) return {d};
  // The slices add into the output: zero it first (conv2d_finish, mode 0).
  // Its (unread) operands bound to the input the backward pass has long
  // had, w or x, not dy: the zeroing pass need not wait for dy's producer.
  const ValueId early = wantInput ? n.inputs[1] : n.inputs[0];
  return {splitKInit(g, n, numel(out), 1, 1, kNoValue, early), d};
}

std::vector<DispatchPlan> lowerPoolGrad(const Graph& g, const Node& n) {
  requireFloat(g, n, "pool2d_grad");
  bool isMax = n.op == Op::MaxPoolGrad;
  // MaxPoolGrad(x, dy) -> dx; AvgPoolGrad(dy) -> dx
  const Shape &x = outType(g, n).shape, &y = inType(g, n, isMax ? 1 : 0).shape;
  if (numel(x) == 0) return {};
  auto ks = n.ints("kernel"), st = n.ints("strides", {{1, 1}}), pd = n.ints("pads", {{0, 0, 0, 0}});
  auto dl = n.ints("dilations", {{1, 1}});
  DispatchPlan d = makePlan(n, "pool2d_grad");
  d.params = {u32(n, x[0] * x[1], "planes"), u32(n, x[2], "H"),       u32(n, x[3], "W"),        u32(n, y[2], "OH"),
              u32(n, y[3], "OW"),           u32(n, ks[0], "kernel"),  u32(n, ks[1], "kernel"),  u32(n, st[0], "stride"),
              u32(n, st[1], "stride"),      u32(n, pd[0], "pad"),     u32(n, pd[1], "pad"),     u32(n, pd[2], "pad"),
              u32(n, pd[3], "pad"),         u32(n, dl[0], "dilation"), u32(n, dl[1], "dilation"), isMax ? 0u : 1u,
              !isMax && n.i("count_include_pad", 0) ? 1u : 0u};
  i32(n, std::max(numel(x), numel(y)), "tensor size");
  // avg mode never reads binding 1: it gets dy again
  d.bindings = {n.inputs[0], isMax ? n.inputs[1] : n.inputs[0], n.outputs[0]};
  setItemGrid(d, n, uint64_t(numel(x)));
  return {d};
}

std::vector<DispatchPlan> lowerGatherGrad(const Graph& g, const Node& n) {
  // the indices are integers; the gradient in and out must be floats
  if (!isDeviceFloat(inType(g, n, 0).dtype) || !isDeviceFloat(outType(g, n).dtype))
    fail(n, "the gather_grad kernel computes in f32; got " + inType(g, n, 0).str() + " -> " + outType(g, n).str());
  const Shape& s = outType(g, n).shape;
  if (numel(s) == 0) return {};
  int64_t axis = n.i("axis", 0);
  if (axis < 0) axis += int64_t(s.size());
  int64_t inner = 1;
  for (size_t d = size_t(axis) + 1; d < s.size(); ++d) inner *= s[d];
  int64_t numIdx = inType(g, n, 1).numel();
  DispatchPlan d = makePlan(n, "gather_grad");
  d.params = {u32(n, numel(s), "element count"), u32(n, s[size_t(axis)], "axis size"), u32(n, inner, "inner size"),
              u32(n, numIdx, "index count")};
  u32(n, inType(g, n, 0).numel(), "gradient size");
  d.bindings = {n.inputs[0], n.inputs[1], n.outputs[0]};
  setItemGrid(d, n, uint64_t(numel(s)));
  return {d};
}

}  // namespace mgc::kern
