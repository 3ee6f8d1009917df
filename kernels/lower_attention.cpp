// Attention → attention_f16 in the accelerated mode (precision = "fp16":
// kernels/src/attention_f16.comp, 64 query rows per workgroup on
// cooperative matrices), attention_tiled / attention_tiled24 (kernels/src/
// attention_tiled.comp: 64 / 24 query rows per workgroup, flash-attention
// style) for long queries with heads of
// at most 64, else attention (attention.comp: one workgroup per query row,
// online softmax over chunks of keys); Rotary → rotary (the
// RoPE that feeds attention's q and k); AttentionCache → attention_cache
// (both RoPEs, the KV-cache writes and the attention in one dispatch).
#include <algorithm>

#include "ir/attention_layout.h"
#include "ir/builder.h"
#include "ir/matmul.h"
#include "ir/qweights.h"
#include "kernels/lower_common.h"

namespace mgc::kern {

namespace {

// attention_tiled's limits (its 4x4 register blocks over 64-wide heads,
// vec4 rows) and the query length from which it replaces the per-row
// kernel: it reads K and V once per 64 query rows instead of once per row.
constexpr int64_t kTiledMaxHeadDim = 64;
constexpr int64_t kTiledFromRows = 32;
// Grids of fewer 64-row blocks than this take attention_tiled24 (24 rows,
// 96 invocations): more, smaller workgroups to spread over a big GPU
// (attention_tiled24.comp says what the H100 measured).
constexpr int64_t kTiledSmallBelow = 256;

bool tiledAttention(int64_t T, int64_t D, int64_t Dv) {
  return T >= kTiledFromRows && D <= kTiledMaxHeadDim && Dv <= kTiledMaxHeadDim && D % 4 == 0 && Dv % 4 == 0;
}

}  // namespace

std::vector<DispatchPlan> lowerAttention(const Graph& g, const Node& n) {
  requireFloat(g, n, "attention");
  // The logical shapes (ir/attention_layout.h): tokens-major operands are read and written in place.
  const int64_t tm = attentionTokensMajor(n);
  const TensorType qT{DType::F32, attentionLogical(n, kAttnQ, inType(g, n, 0).shape)},
      kT{DType::F32, attentionLogical(n, kAttnK, inType(g, n, 1).shape)},
      vT{DType::F32, attentionLogical(n, kAttnV, inType(g, n, 2).shape)};
  const Shape &q = qT.shape, &k = kT.shape, &v = vT.shape;
  const Shape& out = outType(g, n).shape;
  if (numel(out) == 0) return {};
  const TensorType* mask = n.inputs.size() > 3 && n.inputs[3] != kNoValue ? &inType(g, n, 3) : nullptr;
  if (!GraphBuilder::attentionFuses(qT, kT, vT, mask))
    fail(n, "the attention kernel takes f32 head dims up to " + std::to_string(GraphBuilder::kAttentionMaxHeadDim) +
                ", up to " + std::to_string(GraphBuilder::kAttentionMaxLeading) +
                " leading dims and at least one key; got q " + shapeStr(q) + ", k " + shapeStr(k) + ", v " + shapeStr(v));
  const size_t lead = q.size() - 2;
  const int64_t T = q[lead], D = q[lead + 1], S = k[lead], Dv = v[lead + 1];
  const bool hasMask = mask != nullptr;
  DispatchPlan d = makePlan(n, "attention");
  const int64_t rows = numel(q) / D;
  d.params = {u32(n, rows, "query rows"), u32(n, T, "query length"), u32(n, S, "key count"), u32(n, D, "head dim"),
              u32(n, Dv, "value dim"), f32Bits(n.f("scale", 1.0)), hasMask ? 1u : 0u};
  // q's leading dims, 1-padded on the left to kMaxLeading, then k's batch
  // stride along each (its leading dims broadcast to q's: 0 on broadcast).
  constexpr size_t kMaxLeading = GraphBuilder::kAttentionMaxLeading;
  const Shape qLead(q.begin(), q.begin() + lead), kLead(k.begin(), k.begin() + lead);
  std::vector<int64_t> dims(kMaxLeading - lead, 1), strides(kMaxLeading - lead, 0);
  dims.insert(dims.end(), qLead.begin(), qLead.end());
  const std::vector<int64_t> kStrides = broadcastStrides(kLead, qLead);
  strides.insert(strides.end(), kStrides.begin(), kStrides.end());
  for (int64_t x : dims) d.params.push_back(u32(n, x, "leading dim"));
  for (int64_t x : strides) d.params.push_back(u32(n, x, "key batch stride"));
  Shape outLogical = q;
  outLogical.back() = Dv;
  for (auto [shape, bit] : {std::pair{&q, kAttnQ}, {&k, kAttnK}, {&v, kAttnV}, {&outLogical, kAttnOut}})
    d.params.push_back(u32(n, attentionRowHeads(*shape, tm & bit), "heads between rows"));
  u32(n, numel(k), "key tensor size");
  u32(n, numel(v), "value tensor size");
  u32(n, numel(out), "output size");
  d.bindings = {n.inputs[0], n.inputs[1], n.inputs[2], hasMask ? n.inputs[3] : n.inputs[0], n.outputs[0]};
  if (matmulPrecision(n) == MatMulPrecision::F16) {  // (ir/shape.cpp checked the heads and rows)
    d.kernel = "attention_f16";
    d.groups[0] = uint32_t(std::min<int64_t>((T + kAttentionF16BlockRows - 1) / kAttentionF16BlockRows, kMaxGroups));
    d.groups[1] = uint32_t(std::min<int64_t>(rows / T, kMaxGroups));
    d.groups[2] = 1;
    return {d};
  }
  if (tiledAttention(T, D, Dv)) {
    const int64_t batches = rows / T, rowsPerGroup = (T + 63) / 64 * batches < kTiledSmallBelow ? 24 : 64;
    d.kernel = rowsPerGroup == 24 ? "attention_tiled24" : "attention_tiled";
    d.groups[0] = uint32_t(std::min<int64_t>((T + rowsPerGroup - 1) / rowsPerGroup, kMaxGroups));
    d.groups[1] = uint32_t(std::min<int64_t>(batches, kMaxGroups));
    d.groups[2] = 1;
    return {d};
  }
  setGroupGrid(d, n, uint64_t(rows));
  return {d};
}

std::vector<DispatchPlan> lowerRotary(const Graph& g, const Node& n) {
  requireFloat(g, n, "rotary");
  const Shape& x = inType(g, n, 0).shape;
  if (numel(x) == 0) return {};
  DispatchPlan d = makePlan(n, "rotary");
  const bool tokensMajor = n.i("tokens_major", 0) != 0;  // x [.., T, H, D]
  const Shape& out = outType(g, n).shape;
  d.params = {u32(n, numel(x), "tensor size"), u32(n, x.back(), "rotary width"), u32(n, out[out.size() - 2], "rows"),
              tokensMajor ? u32(n, out[out.size() - 3], "heads") : 0u};
  d.bindings = {n.inputs[0], n.inputs[1], n.inputs[2], n.outputs[0]};
  setItemGrid(d, n, uint64_t(numel(x)));
  return {d};
}

std::vector<DispatchPlan> lowerAttentionCache(const Graph& g, const Node& n) {
  const Shape &q = inType(g, n, 0).shape, &k = inType(g, n, 1).shape, &v = inType(g, n, 2).shape;
  const Shape& cache = inType(g, n, 3).shape;
  const int64_t H = q[1], T = q[2], D = q[3], KV = k[1], S = cache[2], Dv = v[3];
  if (D > GraphBuilder::kAttentionMaxHeadDim || Dv > GraphBuilder::kAttentionMaxHeadDim)
    fail(n, "the attention_cache kernel takes head dims up to " + std::to_string(GraphBuilder::kAttentionMaxHeadDim) +
                ", got q " + shapeStr(q) + ", v " + shapeStr(v));
  if (numel(q) == 0 || Dv == 0) fail(n, "the attention_cache kernel needs a query and a value element, got q " +
                                          shapeStr(q) + ", v " + shapeStr(v));
  auto has = [&](size_t k) { return n.inputs.size() > k && n.inputs[k] != kNoValue; };
  const bool hasMask = has(8), proj = has(9);
  // p[6]: 1 a mask [T, S], 2 the offset's causal one (ops.def `causal`);
  // + 4 where the offset is a graph input or a constant: no dispatch of the
  // run writes it, so the kernel reads it, and the cached keys it names,
  // before its in-stream wait (attention_cache.glsl's prefetchKeys).
  const Value& offset = g.value(n.inputs[5]);
  const bool offsetReady =
      offset.isConstant() || std::find(g.inputs.begin(), g.inputs.end(), n.inputs[5]) != g.inputs.end();
  const uint32_t maskMode = (hasMask ? 1u : n.i("causal", 0) != 0 ? 2u : 0u) | (offsetReady ? 4u : 0u);
  DispatchPlan d = makePlan(n, proj ? "attention_cache_proj" : "attention_cache");
  const int64_t rows = numel(q) / D;
  // S and T also go through i32: the kernel compares offset <= S - T signed.
  d.params = {u32(n, rows, "query rows"), i32(n, T, "query length"), i32(n, S, "cache length"), u32(n, D, "head dim"),
              u32(n, Dv, "value dim"),   f32Bits(n.f("scale", 1.0)), maskMode,          u32(n, H, "query heads"),
              u32(n, H / KV, "query heads per K/V head")};
  u32(n, numel(cache), "key cache size");
  u32(n, numel(inType(g, n, 4).shape), "value cache size");
  u32(n, numel(outType(g, n).shape), "output size");
  d.bindings = {n.inputs[0], n.inputs[1], n.inputs[2], n.inputs[5], n.inputs[6], n.inputs[7],
                hasMask ? n.inputs[8] : n.inputs[0], n.outputs[0], n.outputs[1], n.outputs[2]};
  d.numWritten = 3;  // out and the two caches (read too: their bytes are the old values')
  setGroupGrid(d, n, uint64_t(rows));
  if (!proj) return {d};
  // The output projection (attention_cache_proj.comp): out zeroed a level
  // early, then each row's share of o_proj added into it.
  const WeightFormat format = WeightFormat(n.i("format", 0));
  const int64_t K = H * Dv, per = weightsPerWord(format), N = outType(g, n).shape.back();
  const bool scaled = has(10);
  if (std::string why = attentionProjProblem(format, K, Dv); !why.empty()) fail(n, why);
  const int64_t group = scaled ? n.i("group", 0) : K;
  // P workgroups per query row, each adding ceil(N / P) outputs: one per
  // invocation (128) up to 8 parts, so that each streams one row of o,
  // loaded before the attention (each part reads the head's K and V again;
  // on the H200 SmolLM2's N = 576 in 5 parts gained 13% of a decode step,
  // 3 parts 9%, 8 and 12 as 5).
  const int64_t parts = std::clamp<int64_t>((N + 127) / 128, 1, 8);
  d.params.insert(d.params.end(), {u32(n, N, "N"), uint32_t(format), u32(n, group, "group"), u32(n, K / per, "o words"),
                                   u32(n, K / group, "o groups"), has(11) ? 1u : 0u, uint32_t(parts)});
  setGroupGrid(d, n, uint64_t(rows * parts));
  d.bindings.insert(d.bindings.begin() + 7, {n.inputs[9], scaled ? n.inputs[10] : n.inputs[9],
                                             has(11) ? n.inputs[11] : n.inputs[0]});
  return {zeroOutput(n, numel(outType(g, n).shape), n.inputs[9]), d};
}

}  // namespace mgc::kern
