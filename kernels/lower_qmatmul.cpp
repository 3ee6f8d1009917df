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
  if (pro != Prologue::None && M == 1 && K > kPrologueMaxK)  // staged in shared memory (qmatvec.comp)
    fail(n, "a prologue on one row needs K <= " + std::to_string(kPrologueMaxK) + ", got " + std::to_string(K));
  d.params.push_back(2u | uint32_t(rms) << 3 | uint32_t(swiglu) << 4);
  d.params.push_back(uint32_t(n.i("format", 0)));  // p[37]
  d.params.push_back(u32(n, n.i("group", 0), "group"));  // p[38]
  // p[39] words per group, p[40] groups per row (scaled formats; 1, 1 for f16).
  const int64_t per = weightsPerWord(WeightFormat(n.i("format", 0)));
  const int64_t group = scaled ? n.i("group", 0) : K;
  d.params.push_back(u32(n, group / per, "words per group"));
  d.params.push_back(u32(n, K / group, "groups per row"));
  auto clamp = [](int64_t v) { return uint32_t(std::min<int64_t>(v, kMaxGroups)); };
  if (M <= kMatVecRows) {
    d.params.push_back(f32Bits(rms ? n.f("rms_eps") : 0.0));  // p[41]
    d.bindings.insert(d.bindings.end() - 1, pro != Prologue::None ? prologueOperand(n) : n.inputs[0]);  // u: binding 6
    d.groups[0] = clamp((N + 7) / 8);  // 8 columns per workgroup (qmatvec.comp)
    d.groups[1] = d.groups[2] = 1;
    return {d};
  }
  d.groups[0] = clamp((N + 63) / 64);
  d.groups[1] = clamp((M + 63) / 64);
  d.groups[2] = 1;
  return {d};
}

}  // namespace mgc::kern
