// Private helpers of the reference evaluator (eval*.cpp only).
//
// Elementwise math lives as lambdas in eval.cpp's dispatch switch, so each
// op's definition sits on its own case; the templates below only walk
// tensors. Op families with real loops (nn, shape, reduce) live in their own
// files and are declared here.
#pragma once

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/matmul.h"

namespace mgc::eval {

[[noreturn]] void fail(const Node& n, const std::string& why);

// Row-major strides of `shape`, in elements.
std::vector<int64_t> rowMajorStrides(const Shape& shape);
// Strides that read `in` while walking `out` under numpy broadcasting:
// aligned on the right, 0 on broadcast (size-1 or missing) axes.
std::vector<int64_t> broadcastStrides(const Shape& in, const Shape& out);

// Walks `shape` in row-major order, tracking, for each operand, the linear
// offset of the current position: offset = base + sum(coord[d] * stride[d]).
// One walker serves broadcasting, transposes, slices and expands.
class StridedWalk {
 public:
  StridedWalk(const Shape& shape, std::vector<std::vector<int64_t>> strides, std::vector<int64_t> base = {});
  int64_t operator[](size_t operand) const { return offsets_[operand]; }
  void next();

 private:
  Shape shape_;
  std::vector<std::vector<int64_t>> strides_;
  std::vector<int64_t> coord_, offsets_;
};

// Whole-tensor conversions for the loops that compute in double / int64.
std::vector<double> toDoubles(const HostTensor& t);
std::vector<int64_t> toInt64s(const HostTensor& t);
void storeDoubles(HostTensor& t, const std::vector<double>& v);
void storeInt64s(HostTensor& t, const std::vector<int64_t>& v);
// Stores a double into any dtype: floats round, integers truncate toward
// zero (saturating), bool is v != 0.
void storeF(HostTensor& t, int64_t i, double v);


// Wrapping int64 arithmetic (two's complement), never undefined behaviour.
inline int64_t wrapAdd(int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); }
inline int64_t wrapSub(int64_t a, int64_t b) { return int64_t(uint64_t(a) - uint64_t(b)); }
inline int64_t wrapMul(int64_t a, int64_t b) { return int64_t(uint64_t(a) * uint64_t(b)); }
int64_t intPow(int64_t base, int64_t exp);

inline double nanMax(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : (a < b ? b : a); }
inline double nanMin(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : (b < a ? b : a); }

// ---- elementwise walkers --------------------------------------------------

// y = f(x) computed in double (integer inputs are converted, results stored
// with the output dtype's conversion).
template <class FloatFn>
HostTensor unaryFloat(const HostTensor& x, const TensorType& outT, FloatFn f) {
  HostTensor out(outT);
  int64_t n = x.numel();
  if (x.type.dtype == DType::F32 && outT.dtype == DType::F32) {
    const float* xs = x.as<float>();
    float* ys = out.as<float>();
    for (int64_t i = 0; i < n; ++i) ys[i] = float(f(double(xs[i])));
    return out;
  }
  for (int64_t i = 0; i < n; ++i) storeF(out, i, f(x.getF(i)));
  return out;
}

// Like unaryFloat, but integer tensors go through `fi` on int64 so that
// exact ops (neg, abs, relu, clip, ...) stay exact on i64.
template <class FloatFn, class IntFn>
HostTensor unaryExact(const HostTensor& x, const TensorType& outT, FloatFn ff, IntFn fi) {
  if (isFloat(x.type.dtype)) return unaryFloat(x, outT, ff);
  HostTensor out(outT);
  for (int64_t i = 0, n = x.numel(); i < n; ++i) out.setI(i, fi(x.getI(i)));
  return out;
}

// Calls visit(outIndex, aIndex, bIndex) for every element of the broadcast
// result `out` of operands shaped `a` and `b`.
template <class Visit>
void forEachBroadcast(const Shape& out, const Shape& a, const Shape& b, Visit visit) {
  int64_t n = numel(out);
  if (a == out && b == out) {
    for (int64_t i = 0; i < n; ++i) visit(i, i, i);
    return;
  }
  StridedWalk w(out, {broadcastStrides(a, out), broadcastStrides(b, out)});
  for (int64_t i = 0; i < n; ++i, w.next()) visit(i, w[0], w[1]);
}

// Arithmetic with numpy broadcasting: floats in double, integers in int64.
template <class FloatFn, class IntFn>
HostTensor binaryArith(const HostTensor& a, const HostTensor& b, const TensorType& outT, FloatFn ff, IntFn fi) {
  HostTensor out(outT);
  DType t = outT.dtype;
  if (t == DType::F32 && a.type.dtype == DType::F32 && b.type.dtype == DType::F32) {
    const float *as = a.as<float>(), *bs = b.as<float>();
    float* os = out.as<float>();
    forEachBroadcast(outT.shape, a.type.shape, b.type.shape,
                     [&](int64_t o, int64_t i, int64_t j) { os[o] = float(ff(double(as[i]), double(bs[j]))); });
  } else if (isFloat(t)) {
    forEachBroadcast(outT.shape, a.type.shape, b.type.shape,
                     [&](int64_t o, int64_t i, int64_t j) { storeF(out, o, ff(a.getF(i), b.getF(j))); });
  } else {
    forEachBroadcast(outT.shape, a.type.shape, b.type.shape,
                     [&](int64_t o, int64_t i, int64_t j) { out.setI(o, fi(a.getI(i), b.getI(j))); });
  }
  return out;
}

// Comparison with broadcasting, bool result. Operands share a dtype; integer
// operands compare as int64 so large i64 values compare exactly.
template <class FloatPred, class IntPred>
HostTensor compare(const HostTensor& a, const HostTensor& b, const TensorType& outT, FloatPred pf, IntPred pi) {
  HostTensor out(outT);
  uint8_t* os = out.as<uint8_t>();
  if (isFloat(a.type.dtype))
    forEachBroadcast(outT.shape, a.type.shape, b.type.shape,
                     [&](int64_t o, int64_t i, int64_t j) { os[o] = pf(a.getF(i), b.getF(j)) ? 1 : 0; });
  else
    forEachBroadcast(outT.shape, a.type.shape, b.type.shape,
                     [&](int64_t o, int64_t i, int64_t j) { os[o] = pi(a.getI(i), b.getI(j)) ? 1 : 0; });
  return out;
}

// Logic op with broadcasting on truth values (non-zero is true).
template <class Pred>
HostTensor logic(const HostTensor& a, const HostTensor& b, const TensorType& outT, Pred p) {
  HostTensor out(outT);
  uint8_t* os = out.as<uint8_t>();
  auto truth = [](const HostTensor& t, int64_t i) { return isFloat(t.type.dtype) ? t.getF(i) != 0 : t.getI(i) != 0; };
  forEachBroadcast(outT.shape, a.type.shape, b.type.shape,
                   [&](int64_t o, int64_t i, int64_t j) { os[o] = p(truth(a, i), truth(b, j)) ? 1 : 0; });
  return out;
}

// ---- op families (one function per op or close group) ----------------------

using Inputs = std::vector<const HostTensor*>;

// eval_elementwise.cpp
HostTensor evalCast(const HostTensor& x, const TensorType& outT);
HostTensor evalPow(const Node& n, const HostTensor& a, const HostTensor& b, const TensorType& outT);
HostTensor evalDiv(const Node& n, const HostTensor& a, const HostTensor& b, const TensorType& outT);
HostTensor evalClip(const Node& n, const HostTensor& x, const TensorType& outT);
HostTensor evalWhere(const HostTensor& c, const HostTensor& a, const HostTensor& b, const TensorType& outT);

// eval_nn.cpp
HostTensor evalMatMul(const HostTensor& a, const HostTensor& b, const TensorType& outT);
// An f32 operand of a MatMul{precision} with each element rounded to fp16 /
// bf16 (ir/matmul.h); `x` itself for F32.
HostTensor roundOperand(const HostTensor& x, MatMulPrecision p);
HostTensor evalConv(const Node& n, const Inputs& in, const TensorType& outT);
// Applies the node's fused epilogue (ir/epilogue.h), if any, to `out`.
void applyEpilogue(const Node& n, const Inputs& in, HostTensor& out);
HostTensor evalMaxPool(const Node& n, const HostTensor& x, const TensorType& outT);
HostTensor evalAvgPool(const Node& n, const HostTensor& x, const TensorType& outT);
HostTensor evalBatchNorm(const Node& n, const Inputs& in, const TensorType& outT);
HostTensor evalLayerNorm(const Node& n, const Inputs& in, const TensorType& outT);
HostTensor evalRMSNorm(const Node& n, const Inputs& in, const TensorType& outT);
HostTensor evalMoments(const HostTensor& x, const TensorType& outT);
// A MatMul / QMatMul's fused prologue (ir/epilogue.h) applied to its first
// operand: RMS-normalized and scaled by the norm weight, or silu(a) * u.
HostTensor evalPrologue(const Node& n, const Inputs& in);
HostTensor evalSoftmax(const Node& n, const HostTensor& x, const TensorType& outT, bool logarithm);
HostTensor evalAttention(const Node& n, const Inputs& in, const TensorType& outT);
HostTensor evalRotary(const Inputs& in, const TensorType& outT, bool tokensMajor = false);
// AdamStep's three results: param', exp_avg', exp_avg_sq' (ir/ops.def).
std::vector<HostTensor> evalAdamStep(const Node& n, const Inputs& in);
// AttentionCache's three results (out, k_cache', v_cache'), by its
// definition in ops.def: rotary, two state writes, attention.
std::vector<HostTensor> evalAttentionCache(const Node& n, const Inputs& in, const std::vector<TensorType>& outT);
// QGatedMlp by its definition in ops.def: the norm, the gate and up
// products, silu(gate) * up, the down product, the residual.
HostTensor evalQGatedMlp(const Node& n, const Inputs& in, const TensorType& outT);

// eval_reduce.cpp
enum class ReduceKind { Sum, Mean, Max, Min, Prod };
HostTensor evalReduce(const Node& n, const HostTensor& x, const TensorType& outT, ReduceKind kind);
HostTensor evalArgMax(const Node& n, const HostTensor& x, const TensorType& outT);

// eval_shape.cpp (data movement: byte copies, exact for every dtype)
HostTensor evalReshape(const HostTensor& x, const TensorType& outT);
HostTensor evalTranspose(const Node& n, const HostTensor& x, const TensorType& outT);
// x with its last two axes swapped (rank >= 2): MatMul's trans_a / trans_b.
HostTensor swapLastTwo(const HostTensor& x);
HostTensor evalConcat(const Node& n, const Inputs& in, const TensorType& outT);
HostTensor evalSlice(const Node& n, const HostTensor& x, const TensorType& outT);
HostTensor evalGather(const Node& n, const HostTensor& data, const HostTensor& idx, const TensorType& outT);
HostTensor evalExpand(const HostTensor& x, const TensorType& outT);
HostTensor evalPad(const Node& n, const HostTensor& x, const TensorType& outT);

// eval_grad.cpp (gradient ops emitted by passes/program/autodiff.cpp)
HostTensor evalConvGradInput(const Node& n, const HostTensor& dy, const HostTensor& w, const TensorType& outT);
HostTensor evalConvGradWeight(const Node& n, const HostTensor& x, const HostTensor& dy, const TensorType& outT);
HostTensor evalMaxPoolGrad(const Node& n, const HostTensor& x, const HostTensor& dy, const TensorType& outT);
HostTensor evalAvgPoolGrad(const Node& n, const HostTensor& dy, const TensorType& outT);
HostTensor evalGatherGrad(const Node& n, const HostTensor& dy, const HostTensor& idx, const TensorType& outT);

// eval_extra.cpp
HostTensor evalGatherElements(const Node& n, const HostTensor& data, const HostTensor& idx, const TensorType& outT);
HostTensor evalScatterElements(const Node& n, const HostTensor& data, const HostTensor& idx, const HostTensor& updates,
                               const TensorType& outT);
HostTensor evalDropoutMask(const Node& n, const HostTensor& step, const TensorType& outT);
// StateWrite along `axis` (negative: from the end).
HostTensor evalStateWrite(int64_t axis, const HostTensor& state, const HostTensor& value, const HostTensor& offset,
                          const TensorType& outT);

}  // namespace mgc::eval
