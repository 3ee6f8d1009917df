// Cost estimates per dispatch (see cost.h for the rules). Keyed by kernel
// name, since one node may lower to several kernels (split-K conv: zero,
// the GEMM, bias + epilogue) and only the GEMM does the node's math.
#include "kernels/cost.h"

#include <set>

#include "ir/attention_layout.h"
#include "ir/fused_eltwise.h"
#include "ir/matmul.h"
#include "kernels/lower_common.h"

namespace mgc {

namespace {

using kern::inType;
using kern::outType;

// Saturating: an estimate must not wrap into a small number.
uint64_t mul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

uint64_t count(int64_t v) { return v > 0 ? uint64_t(v) : 0; }

// 2 · (output pixels of the forward conv) · (C/g)·kh·kw, from the weight
// shape [M, C/g, kh, kw] and the forward output (y or dy).
uint64_t convFlops(const Shape& w, const Shape& y) {
  if (w.size() != 4) return 0;
  return mul(mul(2, count(numel(y))), count(w[1] * w[2] * w[3]));
}

// Elementwise ops per output element: a fused chain counts its steps.
uint64_t eltwiseOps(const Node& n) {
  if (n.op != Op::FusedEltwise && n.op != Op::FusedReduce) return 1;
  return std::max<uint64_t>(1, readFusedEltwise(n).steps.size());
}

// Norms and softmax: a handful of operations per element (statistics,
// normalize, scale and shift).
constexpr uint64_t kNormOpsPerElement = 5;

uint64_t poolWindow(const Node& n) {
  const std::vector<int64_t> k = n.ints("kernel", {{1, 1}});
  return k.size() == 2 ? count(k[0] * k[1]) : 1;
}

uint64_t flopsOf(const Graph& g, const Node& n, const std::string& kernel) {
  const uint64_t out = count(outType(g, n).numel());
  if (kernel.rfind("matmul", 0) == 0 || kernel == "matvec") {  // matmul, matmul_large, ..._f16_splitk, ..._bf16
    const Shape a = logicalOperand(inType(g, n, 0).shape, matmulLayout(n).transA);
    return a.empty() ? 0 : mul(mul(2, out), count(a.back()));
  }
  if (kernel == "qmatmul" || kernel == "qmatvec") return mul(mul(2, out), count(inType(g, n, 0).shape.back()));
  if (kernel == "qgated_mlp") {  // gate and up [I, K], down [N, I]
    const uint64_t K = count(inType(g, n, 0).shape.back()), I = count(inType(g, n, 1).shape[0]);
    return mul(2, mul(I, mul(2, K) + out));
  }
  if (n.op == Op::Conv && kernel.rfind("conv2d", 0) == 0 && kernel != "conv2d_finish")  // every forward conv kernel
    return convFlops(inType(g, n, 1).shape, outType(g, n).shape);
  if (kernel == "conv2d_grad" || kernel == "conv2d_grad_gemm") {
    // ConvGradInput(dy, w) -> dx; ConvGradWeight(x, dy) -> dw
    const bool wantInput = n.op == Op::ConvGradInput;
    const Shape& w = wantInput ? inType(g, n, 1).shape : outType(g, n).shape;
    return convFlops(w, inType(g, n, wantInput ? 0 : 1).shape);
  }
  if (kernel == "conv2d_finish") return out;  // bias + epilogue, or zeroing
  if (kernel == "eltwise") return mul(out, eltwiseOps(n));
  if (kernel == "batchnorm" || kernel == "layernorm" || kernel == "layernorm_apply" || kernel == "softmax")
    return mul(out, kNormOpsPerElement);
  if (kernel == "moments") return mul(count(inType(g, n, 0).numel()), 4);  // sum; subtract, square, add
  if (kernel == "reduce") return count(inType(g, n, 0).numel());
  if (kernel == "reduce_fused") return mul(count(numel(n.ints("shape"))), eltwiseOps(n) + 1);
  if (kernel == "rotary") return mul(out, 3);
  if (kernel.rfind("attention", 0) == 0) {  // attention, _tiled, _tiled24, _cache: q kᵀ and p v, 2 flops per multiply-add
    const Shape k = n.op == Op::AttentionCache ? inType(g, n, 3).shape
                                               : attentionLogical(n, kAttnK, inType(g, n, 1).shape);
    const int64_t rows = outType(g, n).numel() / outType(g, n).shape.back();
    return count(2 * rows * k[k.size() - 2] * (k.back() + outType(g, n).shape.back()));
  }
  if (kernel == "pool2d") return mul(out, poolWindow(n));
  if (kernel == "pool2d_grad") return mul(count(inType(g, n, n.op == Op::MaxPoolGrad ? 1 : 0).numel()), poolWindow(n));
  return 0;  // copies, gathers, scatters, state writes, masks: data movement
}

// Long enough for any shape the kernels accept; mgb.fbs promises <= 256.
constexpr size_t kMaxShapeText = 256;

}  // namespace

void estimateCost(const Graph& g, const Node& n, DispatchPlan& d) {
  d.flops = flopsOf(g, n, d.kernel);
  std::set<ValueId> seen;  // a tensor bound twice is moved once
  uint64_t bytes = 0;
  for (ValueId v : d.bindings)
    if (v != kNoValue && seen.insert(v).second)
      bytes += mul(count(g.type(v).numel()), deviceElementSize(g.type(v).dtype));
  d.bytes = bytes;
  d.shape = outType(g, n).str();
  if (d.shape.size() > kMaxShapeText) d.shape = d.shape.substr(0, kMaxShapeText - 3) + "...";
}

}  // namespace mgc
