// QMatMul (packed low-bit weights, ir/qweights.h) → qmatvec.comp for at
// most kMatVecRows rows of x (a decode step), else qmatmul.comp (64x64
// tiles decoding the weight tile as it is staged). Both read matmul.comp's
// params with x as [M, K] (batch 1) and B stored [N, K], then the format
// and group; no dequantized copy of the weights is ever made.
#include <algorithm>

#include "ir/epilogue.h"
#include "ir/qweights.h"
#include "kernels/lower_common.h"

namespace mgc::kern {

namespace {

// qmatvec's p[42], S: 0 for its per-row path (several rows of x, rows of
// W not a multiple of 4 words, groups that split a 4-word column unevenly),
// else how many warps share 4 rows of W in the one-row path
// (qmatvec_rows.glsl; 32 / S rows per workgroup). More slices until about
// 256 workgroups stream W (two per multiprocessor of a big GPU: one wave)
// and each lane takes at most 4 steps (its next step's loads are in flight
// during each; fewer workgroups stage x fewer times); a step of S warps (32
// S columns of 4 words) must fit the row and one staged chunk of x (4096
// values, 1024 / per columns).
// The one-row path stages x 4096 values at a time; at most kRowGroupWave
// workgroups (two per multiprocessor of a big GPU) when that is all of x.
constexpr int64_t kRowGroupWave = 256;

int64_t rowSlices(int64_t M, int64_t N, int64_t words, int64_t wordsPerGroup, int64_t per) {
  if (M != 1 || words % 4 != 0 || (wordsPerGroup % 4 != 0 && wordsPerGroup > 2)) return 0;
  const int64_t columns = std::min<int64_t>(words / 4, 1024 / per);
  auto enough = [&](int64_t s) { return (N + 32 / s - 1) / (32 / s) >= 256 && words / 4 <= 4 * 32 * s; };
  int64_t s = 1;
  while (s < 8 && 64 * s <= columns && !enough(s)) s *= 2;
  return s;
}

// qmatvec's split-K (p[43] P parts of p[44] columns): a row of x on the
// one-row path longer than a staged chunk (K > kStagedOnceK) would have
// every workgroup stage all of it, chunk by chunk behind barriers, for its
// few rows of W (a 7B down_proj: 44 KB of x per 8 rows of weights). Split
// into parts of at most a chunk, whole groups each, a workgroup stages its
// part once and adds its sums into the output (zeroed a level early).
// Not with the rms prologue (the norm needs all of x) nor an epilogue
// other than adds (the parts' sums must add up).
struct RowParts {
  int64_t count = 1, columns = 0;
};

RowParts rowParts(const Node& n, int64_t K, int64_t per, int64_t groupWords, bool scaled, bool rms) {
  if (K <= kStagedOnceK || rms) return {};
  for (EpilogueStep s : readEpilogue(n).steps)
    if (s != EpilogueStep::Add) return {};
  const int64_t U = K / per / 4, C = 1024 / per, g4 = scaled ? std::max<int64_t>(groupWords / 4, 1) : 1;
  const int64_t P = (U + C - 1) / C, columns = ((U + P - 1) / P + g4 - 1) / g4 * g4;
  return {(U + columns - 1) / columns, columns};
}

}  // namespace

std::vector<DispatchPlan> lowerQMatMul(const Graph& g, const Node& n) {
  const TensorType& x = inType(g, n, 0);
  const TensorType& words = inType(g, n, 1);
  const int64_t K = x.shape.back(), N = words.shape[0], M = x.numel() / std::max<int64_t>(K, 1);
  if (outType(g, n).numel() == 0) return {};
  DispatchPlan d = makePlan(n, M <= kMatVecRows ? "qmatvec" : "qmatmul");
  d.params.assign(16, 0);
  d.params[0] = u32(n, M, "M");
  d.params[1] = u32(n, N, "N");
  d.params[2] = u32(n, K, "K");
  d.params[3] = 1;                                        // batch
  std::fill(d.params.begin() + 4, d.params.begin() + 8, 1u);  // batch dims; strides stay 0
  u32(n, M * N, "output size");
  u32(n, words.numel(), "packed weight words");
  const bool scaled = n.inputs.size() > 2 && n.inputs[2] != kNoValue;
  d.bindings = {n.inputs[0], n.inputs[1], scaled ? n.inputs[2] : n.inputs[1], n.outputs[0]};
  appendEpilogue(g, n, d, n.inputs[0]);
  // p[36]: B stored [N, K]; bits 3, 4 (qmatvec only): the rms and swiglu
  // prologues (ir/epilogue.h), p[41] the rms epsilon.
  const Prologue pro = prologueOf(n);
  const bool rms = pro == Prologue::RmsNorm, swiglu = pro == Prologue::SwiGlu;
  if (pro != Prologue::None && M > kMatVecRows)
    fail(n, "a prologue needs at most " + std::to_string(kMatVecRows) + " rows");
  d.params.push_back(2u | uint32_t(rms) << 3 | uint32_t(swiglu) << 4);
  d.params.push_back(uint32_t(n.i("format", 0)));  // p[37]
  d.params.push_back(u32(n, n.i("group", 0), "group"));  // p[38]
  // p[39] words per group, p[40] groups per row (f16: one group, the whole row).
  const int64_t per = weightsPerWord(WeightFormat(n.i("format", 0)));
  const int64_t group = scaled ? n.i("group", 0) : K;
  d.params.push_back(u32(n, group / per, "words per group"));
  d.params.push_back(u32(n, K / group, "groups per row"));
  auto clamp = [](int64_t v) { return uint32_t(std::min<int64_t>(v, kMaxGroups)); };
  if (M <= kMatVecRows) {
    d.params.push_back(f32Bits(rms ? n.f("rms_eps") : 0.0));  // p[41]
    int64_t slices = rowSlices(M, N, K / per, group / per, per);
    const RowParts parts = slices != 0 ? rowParts(n, K, per, group / per, scaled, rms) : RowParts{};
    if (parts.count > 1) slices = rowSlices(M, N, 4 * parts.columns, group / per, per);
    d.params.push_back(uint32_t(slices));  // p[42]
    d.params.push_back(uint32_t(parts.count));  // p[43]
    d.params.push_back(uint32_t(parts.columns));  // p[44]
    d.bindings.insert(d.bindings.end() - 1, pro != Prologue::None ? prologueOperand(n) : n.inputs[0]);  // u: binding 6
    const int64_t rowsPerGroup = slices != 0 ? 32 / slices : 8, rowGroups = (N + rowsPerGroup - 1) / rowsPerGroup;
    // A row of x (or a split-K part) in one staged chunk
    // (qmatvec_rows.glsl): at most one wave of workgroups, each staging x
    // once and looping over row groups; split-K gives each part 256 / P of
    // them (H100, 7B-width int4 decode: 0.701 → 0.689 ms GPU; a workgroup
    // per row group and part instead, 768: 0.704 → 0.715). The grid is a
    // multiple of P.
    const bool stagedOnce = slices != 0 && (K <= kStagedOnceK || parts.count > 1);
    const int64_t perPart = stagedOnce ? std::max<int64_t>(kRowGroupWave / parts.count, 1) : kMaxGroups;
    d.groups[0] = clamp(std::min<int64_t>(rowGroups, perPart) * parts.count);
    d.groups[1] = d.groups[2] = 1;
    if (parts.count > 1) return {zeroOutput(n, N, n.inputs[1]), d};
    return {d};
  }
  d.groups[0] = clamp((N + 63) / 64);
  d.groups[1] = clamp((M + 63) / 64);
  d.groups[2] = 1;
  return {d};
}

// QGatedMlp (one row x; I % 16 == 0, a scaled group a multiple of 16 —
// checked by qgatedMlpProblem, ir/qweights.h) → a zeroing pass over out
// (conv2d_finish, mode 0, bound to the down weights only: it runs a level
// early) and qgated_mlp.comp, which adds each row group's share into it.
std::vector<DispatchPlan> lowerQGatedMlp(const Graph& g, const Node& n) {
  const TensorType& x = inType(g, n, 0);
  const TensorType& out = outType(g, n);
  const WeightFormat format = WeightFormat(n.i("format", 0));
  const int64_t K = x.shape.back(), I = inType(g, n, 1).shape[0], N = out.shape.back();
  if (out.numel() == 0) return {};
  if (std::string why = qgatedMlpProblem(format, K, I, n.i("group", 0)); !why.empty()) fail(n, why);
  auto has = [&](size_t k) { return n.inputs.size() > k && n.inputs[k] != kNoValue; };
  const bool scaled = has(4), norm = has(7), residual = has(8);
  const ValueId x0 = n.inputs[0], gw = n.inputs[1], uw = n.inputs[2], dw = n.inputs[3];
  DispatchPlan d = makePlan(n, "qgated_mlp");
  d.params.assign(36, 0);
  d.params[0] = 1;  // M
  d.params[1] = u32(n, I, "intermediate size");
  d.params[2] = u32(n, K, "K");
  d.params[3] = 1;  // batch
  std::fill(d.params.begin() + 4, d.params.begin() + 8, 1u);
  u32(n, inType(g, n, 1).numel(), "packed weight words");
  u32(n, inType(g, n, 3).numel(), "packed weight words");
  const int64_t per = weightsPerWord(format), group = scaled ? n.i("group", 0) : K;
  d.params.push_back(2u | uint32_t(norm) << 3 | uint32_t(residual) << 5);  // p[36]
  d.params.push_back(uint32_t(format));                                    // p[37]
  d.params.push_back(u32(n, n.i("group", 0), "group"));                    // p[38]
  d.params.push_back(u32(n, group / per, "words per group"));              // p[39]
  d.params.push_back(u32(n, K / group, "groups per row"));                 // p[40]
  d.params.push_back(f32Bits(norm ? n.f("norm_eps") : 0.0));               // p[41]
  d.params.push_back(1);                                                   // p[42] S
  d.params.push_back(u32(n, N, "N"));                                      // p[43]
  d.params.push_back(u32(n, I / per, "down words per row"));               // p[44]
  d.params.push_back(u32(n, scaled ? I / group : 1, "down groups per row"));  // p[45]
  d.bindings = {x0, gw, scaled ? n.inputs[4] : gw, residual ? n.inputs[8] : x0, norm ? n.inputs[7] : x0,
                uw, scaled ? n.inputs[5] : uw, dw, scaled ? n.inputs[6] : dw, n.outputs[0]};
  d.groups[0] = uint32_t(std::min<int64_t>((I + kGatedMlpRows - 1) / kGatedMlpRows, kRowGroupWave));
  d.groups[1] = d.groups[2] = 1;
  return {zeroOutput(n, N, dw), d};
}

}  // namespace mgc::kern
