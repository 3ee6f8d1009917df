// MatMul → the tiled matmul kernel (kernels/src/matmul.comp), which reads
// operands stored transposed (trans_a / trans_b) in place; products of at
// most kMatVecRows rows (a decode step) → matvec.comp, products with many
// tiles → matmul_large.comp / matmul_medium.comp, products marked for the
// accelerated mode → matmul_f16(_large, _splitk).comp / matmul_bf16.comp,
// same params.
#include <algorithm>

#include "ir/epilogue.h"
#include "ir/matmul.h"
#include "kernels/lower_common.h"

namespace mgc::kern {

// Split-K (matmul_splitk between two conv2d_finish passes) for products
// whose 64x64 tiles are too few to fill a big GPU, e.g. a language model's
// logits gradient (18 tiles over K = 49152) or its projections over 128
// tokens (18 tiles, K = 576). Slices of >= 128 k values bring the grid
// towards fillTiles workgroups; the two extra dispatches cost ~2 barriers,
// so K < 256 never splits. Measured on the H200 (bench/gemm.sh, 2026-12-03):
// [128, 576] x [576, 576] 42 → 32 µs, [50, 720] x [720, 2048] 49 → 36 µs;
// the action expert's forward 10.3 → 7.7 ms, SmolLM2's 8.0 → 7.7 ms.
constexpr SplitK kMatMulSplitK{/*fillTiles=*/256, /*splitBelow=*/64, /*minSliceK=*/128, /*maxSlices=*/32};
// The same for the fp16 cooperative-matrix core (64-deep steps: two per
// slice at least). On the H200 its small grids gain less than the f32
// core's: the action expert's forward 11.2 → 9.8 ms, SmolLM2's 9.3 → 9.6.
// Grids of 64 to 255 tiles over K >= 256 (Whisper's projections: 144
// tiles over K 384; fc2: K 1536) would run as 144 workgroups on
// matmul_sliced / matmul_medium (a few warps per multiprocessor); cut into
// slices of >= 128 k values instead, towards 512 workgroups of 256
// threads. With native float atomics (H100, bench/results/h100-d785624.md;
// was fill 288 with slices >= 512): Whisper's forward 2.959 → 2.706 ms,
// its train step 8.69 → 8.01. fp16 products of such grids take it too.
constexpr SplitK kMidGridSplitK{/*fillTiles=*/512, /*splitBelow=*/256, /*minSliceK=*/128, /*maxSlices=*/4};
constexpr SplitK kMatMulF16SplitK{/*fillTiles=*/256, /*splitBelow=*/64, /*minSliceK=*/128, /*maxSlices=*/16};

// The 8x8-per-thread core (matmul_tile8.glsl) does 2x the FMAs per shared
// read of matmul.comp's 4x4, but has fewer threads per output and a longer
// start (the first K step is staged before any math). Measured on the H200
// (bench/gemm.sh, docs/performance.md): 128x128 tiles (matmul_large) win
// from ~192 tiles, 64x64 ones with 64 threads (matmul_medium) when the grid
// and K are both large enough; neither wins at K < 256 (attention scores).
constexpr int64_t kTile8MinK = 256;
constexpr int64_t kLargeTilesFrom = 192;        // 128x128 tiles
constexpr int64_t kMediumTilesFrom = 128;       // 64x64 tiles...
constexpr int64_t kMediumWorkFrom = 128 * 1024;  // ... and tiles * K
// Tall products that the mid-grid split cuts (Whisper's [1500, 384]
// projections and fc2: 144 tiles over K 384 / 1536) run their slices on
// the 8x8 core's 64x64 tiles (matmul_medium_splitk), K in 3 slices. H100,
// one sitting, per dispatch (bench/results/h100-mm8-splitk-whisper.md):
// 46.7 → 41.3 µs (15.1 → 17.2 TFLOP/s). Measured with every 8x8-able
// product split so, which also split fc1 (its 117.6 µs, epilogue fused,
// became 88.6 + 2 x 20.6 of conv2d_finish) and cost the SD U-Net 1.7%
// (its products have 256 rows or fewer): hence only this class.
constexpr int64_t kMedium8SplitRows = 1024;
constexpr int64_t kMedium8Slices = 3;

// matmul_large reads every operand as vec4s: the stored rows of A and B
// (K or M, N or K by layout) must be whole vec4s.
bool vec4Rows(const MatMulLayout& layout, int64_t M, int64_t N, int64_t K) {
  return (layout.transA ? M : K) % 4 == 0 && (layout.transB ? K : N) % 4 == 0;
}

// `d` (a 64x64-tile product) as is, or with K cut into `ks` slices: the
// split kernel (matmul_splitk.comp's grid and params) between two
// conv2d_finish passes over the output as [rows, N, 1], the first zeroing
// it, the second running the fused epilogue (none without one).
std::vector<DispatchPlan> splitOver(const Graph& g, const Node& n, const DispatchPlan& d, KSlices ks,
                                    const char* kernel) {
  if (ks.count < 2) return {d};
  const int64_t size = int64_t(d.params[0]) * d.params[1] * d.params[3];  // M N batches
  // Unread operands bound to B (a weight, mostly), not to A: the
  // initializing pass then need not wait for A's producer.
  DispatchPlan init = splitKInit(g, n, size, d.params[1], 1, kNoValue, n.inputs[1]);
  DispatchPlan split = makePlan(n, kernel);
  split.params = d.params;  // same layout (the epilogue words unused)
  split.params.push_back(uint32_t(ks.count));   // p[37]
  split.params.push_back(uint32_t(ks.sliceK));  // p[38]
  split.bindings = {n.inputs[0], n.inputs[1], n.outputs[0]};
  std::copy(d.groups, d.groups + 2, split.groups);
  split.groups[2] = uint32_t(std::min<int64_t>(int64_t(d.params[3]) * ks.count, kMaxGroups));
  if (!hasEpilogueTail(n)) return {init, split};
  return {init, split, splitKFinish(init)};
}

std::vector<DispatchPlan> lowerMatMul(const Graph& g, const Node& n) {
  requireFloat(g, n, "matmul");
  const MatMulLayout layout = matmulLayout(n);
  Shape a = logicalOperand(inType(g, n, 0).shape, layout.transA);
  Shape b = logicalOperand(inType(g, n, 1).shape, layout.transB);
  if (a.size() == 1) a.insert(a.begin(), 1);  // [K] → [1, K]
  if (b.size() == 1) b.push_back(1);          // [K] → [K, 1]
  int64_t M = a[a.size() - 2], K = a.back(), N = b.back();
  if (outType(g, n).numel() == 0) return {};
  Shape ba(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  Shape batch = broadcastShapes(ba, bb);
  StridedDims walk;
  walk.dims = batch;
  auto sa = broadcastStrides(ba, batch), sb = broadcastStrides(bb, batch);
  for (auto& s : sa) s *= M * K;
  for (auto& s : sb) s *= K * N;
  walk.strides = {sa, sb};
  walk.coalesce();
  int64_t batches = numel(batch);

  DispatchPlan d = makePlan(n, "matmul");
  d.params.assign(16, 0);
  d.params[0] = u32(n, M, "M");
  d.params[1] = u32(n, N, "N");
  d.params[2] = u32(n, K, "K");
  d.params[3] = u32(n, batches, "batch count");
  walk.write(n, d.params, 4, {8, 12}, 4);
  u32(n, batches * M * N, "output size");
  u32(n, std::max(numel(a), numel(b)), "operand size");
  d.bindings = {n.inputs[0], n.inputs[1], n.outputs[0]};
  appendEpilogue(g, n, d, n.inputs[0]);
  // p[36]: layout bits; bits 2, 3, 4 (matvec only): the narrow workgroup
  // shape, the rms and swiglu prologues (ir/epilogue.h; p[37] rms epsilon).
  const bool narrow = M <= kMatVecRows && N <= kMatVecNarrowUpTo;
  const Prologue pro = prologueOf(n);
  const bool rms = pro == Prologue::RmsNorm, swiglu = pro == Prologue::SwiGlu;
  if (pro != Prologue::None && M > kMatVecRows)
    fail(n, "a prologue needs at most " + std::to_string(kMatVecRows) + " rows");
  d.params.push_back(uint32_t(layout.transA) | uint32_t(layout.transB) << 1 | uint32_t(narrow) << 2 |
                     uint32_t(rms) << 3 | uint32_t(swiglu) << 4);
  auto tiles = [](int64_t x) { return (x + 63) / 64; };
  auto clamp = [](int64_t v) { return uint32_t(std::min<int64_t>(v, kMaxGroups)); };
  if (M <= kMatVecRows) {
    d.kernel = "matvec";
    d.params.push_back(f32Bits(rms ? n.f("rms_eps") : 0.0));  // p[37]
    d.bindings.insert(d.bindings.end() - 1, pro != Prologue::None ? prologueOperand(n) : n.inputs[0]);  // u: binding 5
    const int64_t cols = narrow ? 4 : 8;  // columns per workgroup (matvec.comp)
    d.groups[0] = clamp((N + cols - 1) / cols);
    d.groups[1] = 1;
    d.groups[2] = clamp(batches);
    return {d};
  }
  auto largeTiles = [](int64_t x) { return (x + 127) / 128; };
  const int64_t large = largeTiles(M) * largeTiles(N) * batches;
  if (const MatMulPrecision precision = matmulPrecision(n); precision != MatMulPrecision::F32) {
    // The accelerated mode (ir/matmul.h; its shape rule admitted only tiled,
    // vec4-row products), on cooperative matrices where the device has them
    // (matmul_f16.comp's variants): fp16 on 128x128 tiles from as many
    // tiles as matmul_large (and K as long), else 64x64.
    const bool big = precision == MatMulPrecision::F16 && large >= kLargeTilesFrom && K >= kTile8MinK;
    d.kernel = precision == MatMulPrecision::BF16 ? "matmul_bf16" : big ? "matmul_f16_large" : "matmul_f16";
    d.groups[0] = clamp(big ? largeTiles(N) : tiles(N));
    d.groups[1] = clamp(big ? largeTiles(M) : tiles(M));
    d.groups[2] = clamp(batches);
    if (precision != MatMulPrecision::F16 || big) return {d};
    // Small grids split by the fp16 policy; grids of 64 to 255 tiles (Whisper's 144-tile
    // projections) by the mid-grid one, as in strict fp32 (H100, bench/results/
    // h100-c8f9567-attention-f16.md: Whisper's fp16 forward 1.678 → 1.528 ms).
    const int64_t grid = tiles(N) * tiles(M) * batches;
    KSlices ks = splitK(kMatMulF16SplitK, grid, K);
    if (ks.count < 2) ks = splitK(kMidGridSplitK, grid, K);
    return splitOver(g, n, d, ks, "matmul_f16_splitk");
  }
  if (K >= kTile8MinK && vec4Rows(layout, M, N, K)) {
    const int64_t medium = tiles(M) * tiles(N) * batches;
    if (large >= kLargeTilesFrom) {
      d.kernel = "matmul_large";
      d.groups[0] = clamp(largeTiles(N));
      d.groups[1] = clamp(largeTiles(M));
      d.groups[2] = clamp(batches);
      return {d};
    }
    if (medium >= kMediumTilesFrom && medium * K >= kMediumWorkFrom &&
        splitK(kMidGridSplitK, medium, K).count < 2) {
      d.kernel = "matmul_medium";
      d.groups[0] = clamp(tiles(N));
      d.groups[1] = clamp(tiles(M));
      d.groups[2] = clamp(batches);
      return {d};
    }
  }
  d.groups[0] = clamp(tiles(N));
  d.groups[1] = clamp(tiles(M));
  d.groups[2] = clamp(batches);
  const int64_t grid = tiles(N) * tiles(M) * batches;
  KSlices ks = splitK(kMatMulSplitK, grid, K);
  if (ks.count < 2 && vec4Rows(layout, M, N, K)) {
    ks = splitK(kMidGridSplitK, grid, K);
    if (ks.count >= 2 && M >= kMedium8SplitRows && K >= kTile8MinK)  // (the 8x8 core's k steps are 8 wide)
      return splitOver(g, n, d, sliceEvenly(K, kMedium8Slices, 8), "matmul_medium_splitk");
  }
  if (ks.count < 2 && slicedGemm(grid, K)) d.kernel = "matmul_sliced";
  return splitOver(g, n, d, ks, "matmul_splitk");
}

}  // namespace mgc::kern
