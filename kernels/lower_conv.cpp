// Conv → conv2d (implicit GEMM; conv2d_sliced for small grids, conv2d_splitk
// for small grids over a long K; conv2d_f16_splitk, one slice or more, in
// the accelerated mode) or conv2d_direct; MaxPool / AvgPool →
// pool2d. Param layouts: kernels/src/conv_params.glsl, pool2d.comp.
#include <algorithm>

#include "ir/epilogue.h"
#include "kernels/lower_common.h"

namespace mgc::kern {

// Split-K (conv2d_splitk + conv2d_finish) for GEMM convs whose 64x64 tiles
// are too few to fill a big GPU but whose K is long: late ResNet layers
// (512 channels x 7x7 pixels: 8 workgroups each walking K = 4608) run
// latency-bound on a handful of compute units. Slices of >= 128 k values
// bring grids below 256 tiles towards fillTiles workgroups (about four per
// multiprocessor of a big GPU); the extra dispatches (the zeroing pass,
// which also adds the bias, and a finishing one for an activation) cost
// ~1–2 barriers. Tuned for native float atomic adds (conv2d_splitk's
// `atomicf` variant; the compare-and-swap fallback made wide splits lose:
// bench/results/h100-fc78d19-convsplit-ab.md). Measured on the H100
// (bench/results/h100-e5ca822-atomicf.md) against the earlier policy (fill
// 256 below 64 tiles, slices >= 256; 64 – 127 tiles only over K >= 2048):
// ResNet-50's forward 2.855 → 2.651 ms, the SD U-Net's 1.687 → 1.379.
constexpr SplitK kConvSplitK{/*fillTiles=*/512, /*splitBelow=*/256, /*minSliceK=*/128, /*maxSlices=*/16};

std::vector<DispatchPlan> lowerConv(const Graph& g, const Node& n) {
  requireFloat(g, n, "conv2d");
  const Shape &x = inType(g, n, 0).shape, &w = inType(g, n, 1).shape, &y = outType(g, n).shape;
  if (numel(y) == 0) return {};
  auto st = n.ints("strides", {{1, 1}}), pd = n.ints("pads", {{0, 0, 0, 0}}), dl = n.ints("dilations", {{1, 1}});
  int64_t groups = n.i("group", 1);
  bool hasBias = n.inputs.size() > 2 && n.inputs[2] != kNoValue;
  int64_t Mg = w[0] / groups;
  bool gemm = Mg >= kConvMinGemmChannels;  // (ir/matmul.h; depthwise convs run direct)
  // The accelerated mode's convs (ir/matmul.h: convLowPrecisionRefusal) run
  // conv2d_f16_splitk, on the matrix units where the device has them.
  const bool f16 = n.has("precision");
  DispatchPlan d = makePlan(n, gemm ? "conv2d" : "conv2d_direct");
  d.params = {u32(n, x[0], "N"),       u32(n, x[1], "C"),        u32(n, x[2], "H"),        u32(n, x[3], "W"),
              u32(n, w[0], "M"),       u32(n, y[2], "OH"),       u32(n, y[3], "OW"),       u32(n, w[2], "KH"),
              u32(n, w[3], "KW"),      u32(n, st[0], "stride"),  u32(n, st[1], "stride"),  u32(n, pd[0], "pad"),
              u32(n, pd[1], "pad"),    u32(n, dl[0], "dilation"), u32(n, dl[1], "dilation"), u32(n, groups, "group"),
              (hasBias ? 1u : 0u) | (convReluInput(n) ? 2u : 0u)};  // (conv_spec.glsl's bits)
  u32(n, std::max({numel(x), numel(w), numel(y)}), "tensor size");
  d.bindings = {n.inputs[0], n.inputs[1], hasBias ? n.inputs[2] : n.inputs[1], n.outputs[0]};
  appendEpilogue(g, n, d, n.inputs[0]);
  if (!gemm) {
    setItemGrid(d, n, uint64_t(numel(y)));
    return {d};
  }
  // Images fold into the pixel axis: N*OH*OW columns.
  int64_t cols = x[0] * y[2] * y[3], K = w[1] * w[2] * w[3];
  auto tiles = [](int64_t v) { return (v + 63) / 64; };
  auto clamp = [](int64_t v) { return uint32_t(std::min<int64_t>(v, kMaxGroups)); };
  d.groups[0] = clamp(tiles(cols));
  d.groups[1] = clamp(tiles(Mg));
  d.groups[2] = clamp(groups);
  const int64_t gemmTiles = tiles(cols) * tiles(Mg) * groups;
  const KSlices ks = splitK(kConvSplitK, gemmTiles, K);
  if (ks.count < 2 && !f16) {
    if (slicedGemm(gemmTiles, K)) d.kernel = "conv2d_sliced";
    return {d};
  }
  // fp16 convs take the split-K passes even unsplit (one slice of all of
  // K): the cooperative tile measured slower applying the epilogue itself
  // than conv2d_finish does after it (ResNet-50's fp16 forward 2.239 ->
  // 2.022 ms on the H100, the U-Net's 1.056 -> 1.075; h100-cf22be0-fp16.md).
  const int64_t slices = ks.count < 2 ? 1 : ks.count, sliceK = ks.count < 2 ? (K + 15) / 16 * 16 : ks.sliceK;
  // Absent operands bound to the bias (else w), not to x: the initializing
  // pass then waits for nothing x's producer writes and may run beside it.
  DispatchPlan init = splitKInit(g, n, numel(y), w[0], y[2] * y[3], hasBias ? n.inputs[2] : kNoValue,
                                 hasBias ? n.inputs[2] : n.inputs[1]);
  DispatchPlan split = makePlan(n, f16 ? "conv2d_f16_splitk" : "conv2d_splitk");
  split.params.assign(d.params.begin(), d.params.begin() + 17);
  split.params.push_back(uint32_t(slices));
  split.params.push_back(uint32_t(sliceK));
  split.bindings = {n.inputs[0], n.inputs[1], n.outputs[0]};
  std::copy(d.groups, d.groups + 2, split.groups);
  split.groups[2] = clamp(groups * slices);
  if (!hasEpilogueTail(n)) return {init, split};
  return {init, split, splitKFinish(init)};
}

std::vector<DispatchPlan> lowerPool(const Graph& g, const Node& n) {
  requireFloat(g, n, "pool2d");
  const Shape &x = inType(g, n, 0).shape, &y = outType(g, n).shape;
  if (numel(y) == 0) return {};
  auto ks = n.ints("kernel"), st = n.ints("strides", {{1, 1}}), pd = n.ints("pads", {{0, 0, 0, 0}});
  auto dl = n.ints("dilations", {{1, 1}});
  bool avg = n.op == Op::AvgPool;
  DispatchPlan d = makePlan(n, "pool2d");
  d.params = {u32(n, x[0] * x[1], "planes"), u32(n, x[2], "H"),      u32(n, x[3], "W"),      u32(n, y[2], "OH"),
              u32(n, y[3], "OW"),           u32(n, ks[0], "kernel"), u32(n, ks[1], "kernel"), u32(n, st[0], "stride"),
              u32(n, st[1], "stride"),      u32(n, pd[0], "pad"),    u32(n, pd[1], "pad"),    u32(n, pd[2], "pad"),
              u32(n, pd[3], "pad"),         u32(n, dl[0], "dilation"), u32(n, dl[1], "dilation"), avg ? 1u : 0u,
              avg && n.i("count_include_pad", 0) ? 1u : 0u};
  u32(n, std::max(numel(x), numel(y)), "tensor size");
  d.bindings = {n.inputs[0], n.outputs[0]};
  setItemGrid(d, n, uint64_t(numel(y)));
  return {d};
}

}  // namespace mgc::kern
