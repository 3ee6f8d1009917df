// Shape rules: one case per op; a missing case is a build error (-Wswitch).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "ir/attention_layout.h"
#include "ir/epilogue.h"
#include "ir/fused_eltwise.h"
#include "ir/fused_reduce.h"
#include "ir/graph.h"
#include "ir/matmul.h"
#include "ir/qweights.h"

namespace mgc {

namespace {

[[noreturn]] void fail(const Node& n, const std::string& why) {
  throw Error("node '" + n.name + "' (" + opName(n.op) + "): " + why);
}

int64_t normAxis(const Node& n, int64_t axis, int rank) {
  if (axis < -rank || axis >= std::max(rank, 1)) fail(n, "axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

int64_t poolOut(int64_t in, int64_t k, int64_t s, int64_t padBegin, int64_t padEnd, int64_t d, bool ceilMode) {
  int64_t eff = (k - 1) * d + 1;
  int64_t num = in + padBegin + padEnd - eff;
  int64_t out = (ceilMode ? (num + s - 1) / s : num / s) + 1;
  // ceil mode: the last window must start inside the input or left padding
  if (ceilMode && (out - 1) * s >= in + padBegin) --out;
  return out;
}

// Spatial output size of a Conv / pooling window over x (NCHW) with the
// node's strides/pads/dilations: what a gradient op's dy must be shaped.
Shape windowOutShape(const Node& n, const Shape& x, int64_t channels, int64_t kh, int64_t kw, bool ceilMode) {
  auto st = n.ints("strides", {{1, 1}}), pd = n.ints("pads", {{0, 0, 0, 0}}), dl = n.ints("dilations", {{1, 1}});
  if (x.size() != 4 || st.size() != 2 || pd.size() != 4 || dl.size() != 2)
    fail(n, "shape/strides/pads/dilations have wrong length");
  Shape s{x[0], channels, 0, 0};
  int64_t k[2] = {kh, kw};
  for (size_t d = 0; d < 2; ++d) {
    if (k[d] <= 0 || st[d] <= 0 || dl[d] <= 0) fail(n, "kernel, strides and dilations must be positive");
    s[2 + d] = poolOut(x[2 + d], k[d], st[d], pd[d], pd[d + 2], dl[d], ceilMode);
  }
  return s;
}

}  // namespace

Shape broadcastShapes(const Shape& a, const Shape& b) {
  size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1)
      throw Error("shapes " + shapeStr(a) + " and " + shapeStr(b) + " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// QMatMul(x, words, [scales]): x f32 [..., K] times W [N, K] packed as
// ir/qweights.h says → f32 [..., N].
static TensorType qmatmulType(const Node& n, const TensorType& x, const TensorType& words, const TensorType* scales) {
  WeightFormat f = WeightFormat(n.i("format", -1));
  if (n.i("format", -1) <= int64_t(WeightFormat::F32) || n.i("format", -1) > int64_t(WeightFormat::Ternary))
    fail(n, "format " + std::to_string(n.i("format", -1)) + " is not a packed weight format (1..4)");
  const WeightFormatInfo& info = weightFormatInfo(f);
  if (x.dtype != DType::F32 || x.rank() < 1) fail(n, "x must be f32 of rank >= 1, got " + x.str());
  if (words.dtype != DType::I32 || words.rank() != 2) fail(n, "packed weights must be i32 [N, words], got " + words.str());
  const int64_t N = words.shape[0], K = x.shape.back();
  if (words.shape[1] * weightsPerWord(f) != K)
    fail(n, std::string(info.name) + " weights " + words.str() + " do not hold K = " + std::to_string(K) + " (" +
                std::to_string(weightsPerWord(f)) + " per word)");
  const int64_t group = n.i("group", 0);
  const std::string problem = quantizeProblem(f, K, group);
  if (!problem.empty()) fail(n, problem);
  if (info.scaled != (scales != nullptr))
    fail(n, std::string(info.name) + (info.scaled ? " needs" : " takes no") + " scales");
  if (scales && (scales->dtype != DType::F32 || scales->shape != Shape{N, K / group}))
    fail(n, "scales must be f32 " + shapeStr({N, K / group}) + ", got " + scales->str());
  Shape s = x.shape;
  s.back() = N;
  return {DType::F32, s};
}

std::vector<TensorType> inferTypes(const Graph& g, const Node& n) {
  const OpInfo& info = opInfo(n.op);
  int nin = int(n.inputs.size());
  if (nin < info.minInputs || nin > info.maxInputs)
    fail(n, "expects " + std::to_string(info.minInputs) + ".." + std::to_string(info.maxInputs) + " inputs, got " +
                std::to_string(nin));
  for (int k = 0; k < nin; ++k) {
    ValueId v = n.inputs[size_t(k)];
    // Conv's bias (slot 2, possibly followed by epilogue operands) and
    // LayerNorm's bias (last) may be absent.
    bool optional = ((n.op == Op::Conv || n.op == Op::QMatMul) && k == 2) || (n.op == Op::LayerNorm && k == 2) ||
                    (n.op == Op::Attention && k == 3) || (n.op == Op::AttentionCache && (k == 8 || k >= 10)) ||
                    (n.op == Op::QGatedMlp && k >= 4);
    if (v == kNoValue && !optional) fail(n, "input " + std::to_string(k) + " is missing");
    if (v != kNoValue && (v < 0 || size_t(v) >= g.values.size())) fail(n, "input " + std::to_string(k) + " is not a value");
  }
  auto in = [&](int k) -> const TensorType& { return g.type(n.inputs[size_t(k)]); };
  auto hasIn = [&](int k) { return k < nin && n.inputs[size_t(k)] != kNoValue; };
  const TensorType& x = in(0);
  int rank = x.rank();

  switch (n.op) {
    case Op::Identity: case Op::Neg: case Op::Abs: case Op::Exp: case Op::Log: case Op::Sqrt:
    case Op::Reciprocal: case Op::Relu: case Op::Sigmoid: case Op::Tanh: case Op::Erf: case Op::Floor:
    case Op::Ceil: case Op::Round: case Op::Sin: case Op::Cos: case Op::Atan: case Op::Sign: case Op::Softplus:
    case Op::HardSwish: case Op::LeakyRelu: case Op::Elu: case Op::HardSigmoid: case Op::Clip: case Op::Gelu:
      return {x};
    case Op::Not:
      if (x.dtype != DType::Bool) fail(n, "expects a bool input, got " + x.str());
      return {x};
    case Op::Cast: {
      int64_t to = n.i("to");
      if (to < 0 || to >= kNumDTypes) fail(n, "bad target dtype " + std::to_string(to));
      return {TensorType{DType(to), x.shape}};
    }
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Pow: case Op::Max: case Op::Min:
    case Op::Equal: case Op::Less: case Op::LessOrEqual: case Op::Greater: case Op::GreaterOrEqual:
    case Op::And: case Op::Or: case Op::Xor: {
      const TensorType& y = in(1);
      if (n.op != Op::Pow && x.dtype != y.dtype) fail(n, "operand dtypes differ: " + x.str() + " vs " + y.str());
      Shape s;
      try {
        s = broadcastShapes(x.shape, y.shape);
      } catch (const Error& e) {
        fail(n, e.what());
      }
      bool cmp = n.op == Op::Equal || n.op == Op::Less || n.op == Op::LessOrEqual || n.op == Op::Greater ||
                 n.op == Op::GreaterOrEqual || n.op == Op::And || n.op == Op::Or || n.op == Op::Xor;
      return {TensorType{cmp ? DType::Bool : x.dtype, s}};
    }
    case Op::Where: {
      if (x.dtype != DType::Bool) fail(n, "condition must be bool, got " + x.str());
      if (in(1).dtype != in(2).dtype) fail(n, "branch dtypes differ");
      try {
        return {TensorType{in(1).dtype, broadcastShapes(x.shape, broadcastShapes(in(1).shape, in(2).shape))}};
      } catch (const Error& e) {
        fail(n, e.what());
      }
    }
    case Op::MatMul: {
      const MatMulLayout layout = matmulLayout(n);
      if ((layout.transA && x.rank() < 2) || (layout.transB && in(1).rank() < 2))
        fail(n, "trans_a / trans_b need an operand of rank >= 2");
      Shape a = logicalOperand(x.shape, layout.transA), b = logicalOperand(in(1).shape, layout.transB);
      if (a.empty() || b.empty()) fail(n, "operands must have rank >= 1");
      if (x.dtype != in(1).dtype) fail(n, "operand dtypes differ");
      bool va = a.size() == 1, vb = b.size() == 1;
      if (va) a.insert(a.begin(), 1);
      if (vb) b.push_back(1);
      if (a.back() != b[b.size() - 2])
        fail(n, "inner dimensions differ: " + shapeStr(a) + " x " + shapeStr(b) +
                   (layout.transA || layout.transB ? " (after trans_a / trans_b)" : ""));
      Shape ba(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2), s;
      try {
        s = broadcastShapes(ba, bb);
      } catch (const Error& e) {
        fail(n, e.what());
      }
      if (!va) s.push_back(a[a.size() - 2]);
      if (!vb) s.push_back(b.back());
      TensorType out{x.dtype, s};
      checkEpilogueOperands(g, n, out);
      checkPrologue(g, n);
      if (n.has("precision")) {
        MatMulPrecision p;
        if (!parsePrecision(n.s("precision"), &p) || p == MatMulPrecision::F32)
          fail(n, "precision must be \"fp16\" or \"bf16\", got \"" + n.s("precision") + "\"");
        if (std::string why = lowPrecisionRefusal(n, x, in(1)); !why.empty())
          fail(n, "precision = \"" + n.s("precision") + "\" needs a tiled product, but " + why);
      }
      return {out};
    }
    case Op::QMatMul: {
      const TensorType out = qmatmulType(n, x, in(1), hasIn(2) ? &in(2) : nullptr);
      checkEpilogueOperands(g, n, out);
      checkPrologue(g, n);
      return {out};
    }
    case Op::Rotary: {
      // tokens_major: x stored [..., T, H, D], the result [..., H, T, D].
      const bool tokensMajor = n.i("tokens_major", 0) != 0;
      const int64_t D = rank >= 2 ? x.shape.back() : 0;
      if (rank < (tokensMajor ? 3 : 2) || D % 2 != 0)
        fail(n, std::string("expects x ") + (tokensMajor ? "[..., T, H, D]" : "[..., T, D]") + " with D even, got " +
                    x.str());
      const Shape rows{x.shape[size_t(rank - (tokensMajor ? 3 : 2))], D};
      for (int k = 1; k < 3; ++k)
        if (in(k).shape != rows || in(k).dtype != x.dtype)
          fail(n, "cos / sin " + in(k).str() + " is not " + TensorType{x.dtype, rows}.str());
      if (!tokensMajor) return {x};
      TensorType out = x;
      std::swap(out.shape[size_t(rank - 3)], out.shape[size_t(rank - 2)]);
      return {out};
    }
    case Op::AdamStep: {
      if (x.dtype != DType::F32) fail(n, "expects an f32 parameter, got " + x.str());
      for (int k = 1; k < 4; ++k)
        if (in(k) != x) fail(n, "input " + std::to_string(k) + " " + in(k).str() + " is not like the parameter " + x.str());
      if (in(4) != TensorType{DType::F32, {4}}) fail(n, "coef must be f32[4], got " + in(4).str());
      return {x, x, x};
    }
    case Op::Attention: {
      // Checked on the logical shapes; a tokens-major operand is stored with its rows first
      // (ir/attention_layout.h).
      const int64_t tm = attentionTokensMajor(n);
      if (tm < 0 || tm > kAttnAllOperands)
        fail(n, "tokens_major must be a mask of bits 1 q, 2 k, 4 v, 8 out, got " + std::to_string(tm));
      if (tm != 0 && rank < 4)
        fail(n, "tokens_major operands need rank >= 4 (a batch and heads before the rows), got q " + in(0).str());
      const TensorType q{in(0).dtype, attentionLogical(n, kAttnQ, in(0).shape)};
      const TensorType k{in(1).dtype, attentionLogical(n, kAttnK, in(1).shape)};
      const TensorType v{in(2).dtype, attentionLogical(n, kAttnV, in(2).shape)};
      if (rank < 2 || k.rank() != q.rank() || v.rank() != q.rank())
        fail(n, "expects q, k, v of one rank >= 2, got " + q.str() + ", " + k.str() + ", " + v.str());
      const int64_t T = q.shape[size_t(rank - 2)], S = k.shape[size_t(rank - 2)];
      if (k.shape.back() != q.shape.back()) fail(n, "q " + q.str() + " and k " + k.str() + " differ in their last dim");
      if (k.dtype != q.dtype || v.dtype != q.dtype) fail(n, "q, k, v must have one dtype");
      for (int64_t a = 0; a + 2 < rank; ++a) {
        if (k.shape[size_t(a)] != q.shape[size_t(a)] && k.shape[size_t(a)] != 1)
          fail(n, "k " + k.str() + " does not broadcast to q " + q.str());
        if (v.shape[size_t(a)] != k.shape[size_t(a)]) fail(n, "v " + v.str() + " and k " + k.str() + " differ");
      }
      if (v.shape[size_t(rank - 2)] != S) fail(n, "v " + v.str() + " and k " + k.str() + " differ in length");
      if (hasIn(3) && (in(3).shape != Shape{T, S} || in(3).dtype != q.dtype))
        fail(n, "mask " + in(3).str() + " is not [" + std::to_string(T) + ", " + std::to_string(S) + "] of q's dtype");
      if (n.has("precision")) {
        MatMulPrecision p;
        if (!parsePrecision(n.s("precision"), &p) || p == MatMulPrecision::F32)
          fail(n, "precision must be \"fp16\", got \"" + n.s("precision") + "\"");
        if (std::string why = attentionLowPrecisionRefusal(n, in(0), in(1), in(2), p); !why.empty())
          fail(n, "precision = \"" + n.s("precision") + "\" needs the fp16 attention kernel, but " + why);
      }
      Shape s = q.shape;
      s.back() = v.shape.back();
      return {TensorType{q.dtype, attentionStored(s, tm & kAttnOut)}};
    }
    case Op::AttentionCache: {  // (q, k, v, k_cache, v_cache, offset, cos, signed_sin, [mask])
      const TensorType &k = in(1), &v = in(2), &kc = in(3), &vc = in(4), &off = in(5);
      for (int i = 0; i < 5; ++i)
        if (in(i).rank() != 4 || in(i).dtype != DType::F32)
          fail(n, "q, k, v, k_cache and v_cache must be f32 [B, heads, rows, dim], got " + in(i).str());
      const int64_t B = x.shape[0], H = x.shape[1], T = x.shape[2], D = x.shape[3], KV = k.shape[1],
                    S = kc.shape[2], Dv = v.shape[3];
      if (k.shape != Shape{B, KV, T, D} || v.shape != Shape{B, KV, T, Dv})
        fail(n, "k " + k.str() + " / v " + v.str() + " do not match q " + x.str() + " (k [B, KV, T, D], v [B, KV, T, Dv])");
      if (KV < 1 || H % KV != 0) fail(n, "q's " + std::to_string(H) + " heads are not a multiple of k's " + std::to_string(KV));
      if (kc.shape != Shape{B, KV, S, D} || vc.shape != Shape{B, KV, S, Dv} || S < T || D % 2 != 0)
        fail(n, "caches " + kc.str() + " / " + vc.str() + " are not [B, KV, S, D] / [B, KV, S, Dv] with S >= T and D even");
      if ((off.dtype != DType::I32 && off.dtype != DType::I64) || off.numel() != 1)
        fail(n, "offset must be a one-element i32 or i64 tensor, got " + off.str());
      for (int i = 6; i < 8; ++i)
        if (in(i).shape != Shape{T, D} || in(i).dtype != DType::F32)
          fail(n, "cos / sin " + in(i).str() + " is not " + TensorType{DType::F32, {T, D}}.str());
      if (hasIn(8) && (in(8).shape != Shape{T, S} || in(8).dtype != DType::F32))
        fail(n, "mask " + in(8).str() + " is not f32[" + std::to_string(T) + "," + std::to_string(S) + "]");
      if (n.i("causal", 0) != 0 && (n.i("causal", 0) != 1 || hasIn(8)))
        fail(n, "causal must be 0 or 1, and 1 takes no mask input (the mask is the offset's causal one)");
      if (nin <= 9) return {TensorType{DType::F32, {B, H, T, Dv}}, kc, vc};
      // The output projection: out viewed [B, T, H Dv] (T = 1) times o.
      if (!hasIn(9)) fail(n, "o_proj scales or residual without its weights (input 9)");
      if (T != 1) fail(n, "the output projection needs one query row per head (T = 1), got q " + x.str());
      const TensorType* noScales = nullptr;
      const TensorType out = qmatmulType(n, TensorType{DType::F32, {B, T, H * Dv}}, in(9), hasIn(10) ? &in(10) : noScales);
      if (hasIn(11) && in(11) != out) fail(n, "residual " + in(11).str() + " is not the output's type " + out.str());
      return {out, kc, vc};
    }
    case Op::QGatedMlp: {  // (x, gate_words, up_words, down_words, [gate_scales, up_scales, down_scales, norm, residual])
      const TensorType* noScales = nullptr;
      auto scalesAt = [&](int k) { return hasIn(k) ? &in(k) : noScales; };
      const TensorType gate = qmatmulType(n, x, in(1), scalesAt(4)), up = qmatmulType(n, x, in(2), scalesAt(5));
      if (gate != up) fail(n, "gate " + in(1).str() + " and up " + in(2).str() + " weights differ in shape");
      const int64_t K = x.shape.back();
      if (K > 0 && x.numel() != K) fail(n, "x " + x.str() + " must have one row (a decode step)");
      const TensorType out = qmatmulType(n, gate, in(3), scalesAt(6));
      if (hasIn(7) && (in(7).shape != Shape{K} || in(7).dtype != DType::F32))
        fail(n, "norm weight " + in(7).str() + " is not f32[" + std::to_string(K) + "]");
      if (hasIn(7) != n.has("norm_eps")) fail(n, "norm_eps and the norm weight come together");
      if (hasIn(7) && !(n.f("norm_eps") >= 0 && std::isfinite(n.f("norm_eps"))))
        fail(n, "norm_eps must be finite and >= 0");
      if (hasIn(8) && in(8) != out) fail(n, "residual " + in(8).str() + " is not the output's type " + out.str());
      return {out};
    }
    case Op::Conv: {
      const TensorType& w = in(1);
      if (rank != 4 || w.rank() != 4) fail(n, "expects 4-D input and weight, got " + x.str() + ", " + w.str());
      int64_t group = n.i("group", 1);
      auto st = n.ints("strides", {{1, 1}}), pd = n.ints("pads", {{0, 0, 0, 0}}), dl = n.ints("dilations", {{1, 1}});
      if (st.size() != 2 || pd.size() != 4 || dl.size() != 2) fail(n, "strides/pads/dilations have wrong length");
      if (group <= 0 || x.shape[1] % group || w.shape[0] % group || x.shape[1] / group != w.shape[1])
        fail(n, "channels " + std::to_string(x.shape[1]) + " do not match weight " + w.str() + " with group " +
                    std::to_string(group));
      if (hasIn(2) && (in(2).rank() != 1 || in(2).shape[0] != w.shape[0])) fail(n, "bias shape " + in(2).str());
      Shape s{x.shape[0], w.shape[0], 0, 0};
      for (int k = 0; k < 2; ++k) {
        if (st[size_t(k)] <= 0 || dl[size_t(k)] <= 0) fail(n, "strides and dilations must be positive");
        s[size_t(2 + k)] = poolOut(x.shape[size_t(2 + k)], w.shape[size_t(2 + k)], st[size_t(k)], pd[size_t(k)],
                                   pd[size_t(k + 2)], dl[size_t(k)], false);
        if (s[size_t(2 + k)] <= 0) fail(n, "output would be empty");
      }
      TensorType out{x.dtype, s};
      checkEpilogueOperands(g, n, out);
      if (const int64_t r = n.i("relu_input", 0); r != 0 && r != 1) fail(n, "relu_input must be 0 or 1");
      if (n.has("precision")) {
        MatMulPrecision p;
        if (!parsePrecision(n.s("precision"), &p) || p == MatMulPrecision::F32)
          fail(n, "precision must be \"fp16\", got \"" + n.s("precision") + "\"");
        if (std::string why = convLowPrecisionRefusal(n, x, w, p); !why.empty())
          fail(n, "precision = \"" + n.s("precision") + "\" needs an implicit-GEMM convolution, but " + why);
      }
      return {out};
    }
    case Op::MaxPool: case Op::AvgPool: {
      if (rank != 4) fail(n, "expects a 4-D input, got " + x.str());
      auto ks = n.ints("kernel"), st = n.ints("strides", {{1, 1}}), pd = n.ints("pads", {{0, 0, 0, 0}});
      auto dl = n.ints("dilations", {{1, 1}});
      if (ks.size() != 2 || st.size() != 2 || pd.size() != 4 || dl.size() != 2) fail(n, "kernel/strides/pads have wrong length");
      bool ceilMode = n.i("ceil_mode", 0) != 0;
      Shape s{x.shape[0], x.shape[1], 0, 0};
      for (int k = 0; k < 2; ++k) {
        if (ks[size_t(k)] <= 0 || st[size_t(k)] <= 0 || dl[size_t(k)] <= 0) fail(n, "kernel, strides and dilations must be positive");
        s[size_t(2 + k)] = poolOut(x.shape[size_t(2 + k)], ks[size_t(k)], st[size_t(k)], pd[size_t(k)], pd[size_t(k + 2)],
                                   dl[size_t(k)], ceilMode);
        if (s[size_t(2 + k)] <= 0) fail(n, "output would be empty");
      }
      TensorType out{x.dtype, s};
      checkEpilogueOperands(g, n, out);
      return {out};
    }
    case Op::BatchNorm:
      if (rank < 2) fail(n, "expects rank >= 2");
      for (int k = 1; k < 5; ++k)
        if (in(k).shape != Shape{x.shape[1]}) fail(n, "parameter " + std::to_string(k) + " has shape " + in(k).str());
      return {x};
    case Op::LayerNorm: case Op::RMSNorm: {
      int64_t axis = normAxis(n, n.i("axis", -1), rank);
      Shape norm(x.shape.begin() + axis, x.shape.end());
      for (int k = 1; k < std::min(nin, 3); ++k)
        if (hasIn(k) && in(k).shape != norm && numel(in(k).shape) != numel(norm))
          fail(n, "scale/bias shape " + in(k).str() + " does not match " + shapeStr(norm));
      if (hasIn(3)) {  // the rows' chunk moments [R, P, 2]
        const Shape& m = in(3).shape;
        const int64_t D = numel(norm), R = D ? numel(x.shape) / D : 0;
        if (x.dtype != DType::F32 || in(3).dtype != DType::F32 || m.size() != 3 || m[0] != R || m[2] != 2 ||
            m[1] < 1 || D % m[1] != 0)
          fail(n, "moments " + in(3).str() + " are not f32[" + std::to_string(R) + ", P, 2] with P dividing the " +
                      std::to_string(D) + " values of a row of f32 x");
      }
      return {x};
    }
    case Op::Moments: {
      if (rank < 1 || x.dtype != DType::F32 || x.shape.back() < 1)
        fail(n, "expects f32 rows of at least one value, got " + x.str());
      TensorType out = x;
      out.shape.back() = 2;
      return {out};
    }
    case Op::Softmax: case Op::LogSoftmax:
      normAxis(n, n.i("axis", -1), rank);
      return {x};
    case Op::ReduceSum: case Op::ReduceMean: case Op::ReduceMax: case Op::ReduceMin: case Op::ReduceProd: {
      auto axes = n.ints("axes", {{}});
      if (rank == 0 && !axes.empty()) fail(n, "cannot reduce a scalar over axes");
      std::vector<bool> red(size_t(rank), axes.empty());
      for (int64_t a : axes) red[size_t(normAxis(n, a, rank))] = true;
      bool keep = n.i("keepdims", 1) != 0;
      Shape s;
      for (int k = 0; k < rank; ++k) {
        if (!red[size_t(k)]) s.push_back(x.shape[size_t(k)]);
        else if (keep) s.push_back(1);
      }
      return {TensorType{x.dtype, s}};
    }
    case Op::ArgMax: {
      if (rank == 0) fail(n, "expects rank >= 1");
      int64_t axis = normAxis(n, n.i("axis", 0), rank);
      Shape s = x.shape;
      if (n.i("keepdims", 1)) s[size_t(axis)] = 1;
      else s.erase(s.begin() + axis);
      return {TensorType{DType::I64, s}};
    }
    case Op::Reshape: {
      Shape s = n.ints("shape");
      for (int64_t d : s)
        if (d < 0) fail(n, "target shape " + shapeStr(s) + " is not resolved");
      if (numel(s) != x.numel()) fail(n, "cannot reshape " + x.str() + " to " + shapeStr(s));
      return {TensorType{x.dtype, s}};
    }
    case Op::Transpose: {
      auto perm = n.ints("perm");
      if (int(perm.size()) != rank) fail(n, "perm length differs from rank");
      std::vector<bool> seen(size_t(rank), false);
      Shape s;
      for (int64_t p : perm) {
        if (p < 0 || p >= rank || seen[size_t(p)]) fail(n, "perm is not a permutation");
        seen[size_t(p)] = true;
        s.push_back(x.shape[size_t(p)]);
      }
      return {TensorType{x.dtype, s}};
    }
    case Op::Concat: {
      if (rank == 0) fail(n, "cannot concatenate scalars");
      int64_t axis = normAxis(n, n.i("axis"), rank);
      Shape s = x.shape;
      for (int k = 1; k < nin; ++k) {
        const TensorType& t = in(k);
        if (t.rank() != rank || t.dtype != x.dtype) fail(n, "input " + std::to_string(k) + " " + t.str() + " does not match " + x.str());
        for (int d = 0; d < rank; ++d)
          if (d != axis && t.shape[size_t(d)] != x.shape[size_t(d)]) fail(n, "input shapes differ off the concat axis");
        s[size_t(axis)] += t.shape[size_t(axis)];
      }
      return {TensorType{x.dtype, s}};
    }
    case Op::Slice: {
      auto st = n.ints("starts"), en = n.ints("ends"), sp = n.ints("steps");
      if (int(st.size()) != rank || int(en.size()) != rank || int(sp.size()) != rank) fail(n, "starts/ends/steps must have one entry per axis");
      Shape s(static_cast<size_t>(rank), 0);
      for (size_t k = 0; k < size_t(rank); ++k) {
        if (sp[k] == 0) fail(n, "step is zero");
        int64_t cnt = sp[k] > 0 ? (en[k] - st[k] + sp[k] - 1) / sp[k] : (st[k] - en[k] - sp[k] - 1) / -sp[k];
        s[k] = std::max<int64_t>(cnt, 0);
      }
      return {TensorType{x.dtype, s}};
    }
    case Op::Gather: {
      if (rank == 0) fail(n, "data must have rank >= 1");
      int64_t axis = normAxis(n, n.i("axis", 0), rank);
      const TensorType& idx = in(1);
      if (idx.dtype != DType::I64 && idx.dtype != DType::I32) fail(n, "indices must be i32 or i64, got " + idx.str());
      Shape s(x.shape.begin(), x.shape.begin() + axis);
      s.insert(s.end(), idx.shape.begin(), idx.shape.end());
      s.insert(s.end(), x.shape.begin() + axis + 1, x.shape.end());
      return {TensorType{x.dtype, s}};
    }
    case Op::Expand: {
      try {
        return {TensorType{x.dtype, broadcastShapes(x.shape, n.ints("shape"))}};
      } catch (const Error& e) {
        fail(n, e.what());
      }
    }
    case Op::Pad: {
      auto pads = n.ints("pads");
      if (int(pads.size()) != 2 * rank) fail(n, "pads must have 2*rank entries");
      Shape s = x.shape;
      for (size_t k = 0; k < size_t(rank); ++k) {
        s[k] += pads[k] + pads[k + size_t(rank)];
        if (s[k] < 0) fail(n, "padding makes a dimension negative");
      }
      return {TensorType{x.dtype, s}};
    }
    case Op::ConvGradInput: case Op::ConvGradWeight: {
      // inputs: (dy, w) -> dx of `shape`, or (x, dy) -> dw of `shape`
      bool wantInput = n.op == Op::ConvGradInput;
      const TensorType& dy = wantInput ? x : in(1);
      Shape xs = wantInput ? n.ints("shape") : x.shape, ws = wantInput ? in(1).shape : n.ints("shape");
      int64_t group = n.i("group", 1);
      if (xs.size() != 4 || ws.size() != 4 || group <= 0 || xs[1] % group || ws[0] % group || xs[1] / group != ws[1])
        fail(n, "input " + shapeStr(xs) + " and weight " + shapeStr(ws) + " do not match with group " + std::to_string(group));
      if (dy.shape != windowOutShape(n, xs, ws[0], ws[2], ws[3], false))
        fail(n, "output gradient " + dy.str() + " does not match the convolution of " + shapeStr(xs));
      return {TensorType{dy.dtype, wantInput ? xs : ws}};
    }
    case Op::MaxPoolGrad: case Op::AvgPoolGrad: {
      // MaxPoolGrad(x, dy) -> dx like x; AvgPoolGrad(dy){shape} -> dx of `shape`
      bool isMax = n.op == Op::MaxPoolGrad;
      const TensorType& dy = isMax ? in(1) : x;
      Shape xs = isMax ? x.shape : n.ints("shape");
      auto ks = n.ints("kernel");
      if (xs.size() != 4 || ks.size() != 2) fail(n, "expects a 4-D input and a 2-D kernel");
      if (dy.shape != windowOutShape(n, xs, xs[1], ks[0], ks[1], n.i("ceil_mode", 0) != 0))
        fail(n, "output gradient " + dy.str() + " does not match pooling " + shapeStr(xs));
      return {TensorType{dy.dtype, xs}};
    }
    case Op::GatherGrad: {
      Shape ds = n.ints("shape");
      const TensorType& idx = in(1);
      if (ds.empty()) fail(n, "data shape must have rank >= 1");
      int64_t axis = normAxis(n, n.i("axis", 0), int(ds.size()));
      if (idx.dtype != DType::I64 && idx.dtype != DType::I32) fail(n, "indices must be i32 or i64, got " + idx.str());
      Shape want(ds.begin(), ds.begin() + axis);
      want.insert(want.end(), idx.shape.begin(), idx.shape.end());
      want.insert(want.end(), ds.begin() + axis + 1, ds.end());
      if (x.shape != want) fail(n, "output gradient " + x.str() + " does not match gathering " + shapeStr(ds));
      return {TensorType{x.dtype, ds}};
    }
    case Op::GatherElements: {
      const TensorType& idx = in(1);
      if (rank == 0) fail(n, "data must have rank >= 1");
      int64_t axis = normAxis(n, n.i("axis", 0), rank);
      if (idx.dtype != DType::I64 && idx.dtype != DType::I32) fail(n, "indices must be i32 or i64, got " + idx.str());
      bool same = idx.rank() == rank;
      for (int k = 0; same && k < rank; ++k) same = k == axis || idx.shape[size_t(k)] == x.shape[size_t(k)];
      if (!same) fail(n, "indices " + idx.str() + " must match data " + x.str() + " except on axis " + std::to_string(axis));
      if (x.shape[size_t(axis)] == 0 && idx.numel() > 0) fail(n, "cannot index an empty axis");
      return {TensorType{x.dtype, idx.shape}};
    }
    case Op::ScatterElements: {
      const TensorType &idx = in(1), &upd = in(2);
      if (rank == 0) fail(n, "data must have rank >= 1");
      int64_t axis = normAxis(n, n.i("axis", 0), rank);
      if (idx.dtype != DType::I64 && idx.dtype != DType::I32) fail(n, "indices must be i32 or i64, got " + idx.str());
      if (upd.dtype != x.dtype || upd.shape != idx.shape) fail(n, "updates " + upd.str() + " must be like indices " + idx.str() + " in data's dtype");
      int64_t red = n.i("reduction", 0);
      if (red < 0 || red > 2) fail(n, "reduction must be 0 (none), 1 (add) or 2 (mul)");
      bool same = idx.rank() == rank;
      for (int k = 0; same && k < rank; ++k) same = k == axis || idx.shape[size_t(k)] == x.shape[size_t(k)];
      if (!same) fail(n, "indices " + idx.str() + " must match data " + x.str() + " except on axis " + std::to_string(axis));
      if (x.shape[size_t(axis)] == 0 && idx.numel() > 0) fail(n, "cannot index an empty axis");
      return {x};
    }
    case Op::DropoutMask: {
      if (x != TensorType{DType::F32, {}}) fail(n, "step must be an f32 scalar, got " + x.str());
      double ratio = n.f("ratio", 0.5);
      if (!(ratio >= 0 && ratio < 1)) fail(n, "ratio must be in [0, 1), got " + std::to_string(ratio));
      int64_t seed = n.i("seed", 0);
      if (seed < 0 || seed > int64_t(UINT32_MAX)) fail(n, "seed must be in [0, 2^32), got " + std::to_string(seed));
      Shape s = n.ints("shape");
      for (int64_t d : s)
        if (d < 0) fail(n, "shape " + shapeStr(s) + " has a negative dimension");
      TensorType out{DType::F32, s};
      if (out.numel() > int64_t(UINT32_MAX)) fail(n, "more than 2^32 elements");
      return {out};
    }
    case Op::StateWrite: {
      const TensorType &val = in(1), &off = in(2);
      if (rank == 0) fail(n, "state must have rank >= 1");
      int64_t axis = normAxis(n, n.i("axis", 0), rank);
      if (val.dtype != x.dtype || val.rank() != rank) fail(n, "value " + val.str() + " must have the dtype and rank of state " + x.str());
      for (int k = 0; k < rank; ++k) {
        int64_t want = x.shape[size_t(k)], got = val.shape[size_t(k)];
        if (k == axis ? got > want : got != want)
          fail(n, "value " + val.str() + " must match state " + x.str() + " except on axis " + std::to_string(axis) +
                      " (at most the state's size there)");
      }
      if ((off.dtype != DType::I32 && off.dtype != DType::I64) || off.numel() != 1)
        fail(n, "offset must be a one-element i32 or i64 tensor, got " + off.str());
      if (nin > 3) {  // rotary on the way in
        if (nin != 5 || !hasIn(3) || !hasIn(4)) fail(n, "a rotary state write takes cos and signed_sin (5 inputs)");
        const int64_t D = val.shape.back();
        if (val.dtype != DType::F32 || rank < 2 || axis != rank - 2 || D % 2 != 0)
          fail(n, "a rotary state write needs f32 [..., J, D] (D even) written along axis " + std::to_string(rank - 2) +
                      ", got " + val.str() + " along " + std::to_string(axis));
        const Shape rows{val.shape[size_t(axis)], D};
        for (int k = 3; k < 5; ++k)
          if (in(k).shape != rows || in(k).dtype != val.dtype)
            fail(n, "cos / sin " + in(k).str() + " is not " + TensorType{val.dtype, rows}.str());
      }
      return {x};
    }
    case Op::FusedEltwise: {
      Graph sub = expandFusedEltwise(g, n);  // throws naming n
      return {sub.type(sub.outputs[0])};
    }
    case Op::FusedReduce: {
      Graph sub = expandFusedReduce(g, n);  // throws naming n
      return {sub.type(sub.outputs[0])};
    }
  }
  fail(n, "unknown op");
}

}  // namespace mgc
