// GraphBuilder: naming, folding while building, composites (builder.h).
#include "ir/builder.h"

#include <algorithm>

#include "ir/eval.h"

namespace mgc {

int64_t checkedNumel(const Shape& s, const std::string& what) {
  int64_t n = 1;
  for (int64_t d : s) {
    if (d < 0) throw Error(what + ": negative dimension in " + shapeStr(s));
    if (d != 0 && n > GraphBuilder::kMaxElements / d) throw Error(what + ": shape " + shapeStr(s) + " is too large");
    n *= d;
  }
  return n;
}

std::string GraphBuilder::freshName(const std::string& base) const {
  std::string candidate = base;
  for (int k = 1; g.find(candidate) != kNoValue || reserved.count(candidate); ++k)
    candidate = base + "." + std::to_string(k);
  return candidate;
}

ValueId GraphBuilder::addConstant(const std::string& name, HostTensor t) {
  foldedBytes_ += t.data.size();
  return g.addConstant(name, std::move(t));
}

ValueId GraphBuilder::constant(const std::string& nodeName, HostTensor t) {
  return addConstant(freshName(nodeName + "/const"), std::move(t));
}

ValueId GraphBuilder::scalar(const std::string& nodeName, DType t, double v) {
  HostTensor h(TensorType{t, {}});
  h.setF(0, v);
  return constant(nodeName, std::move(h));
}

ValueId GraphBuilder::emit(Op op, std::vector<ValueId> inputs, Attrs attrs, const std::string& nodeName,
                           const std::string& outName) {
  Node n{op, nodeName, std::move(inputs), {}, std::move(attrs)};
  std::vector<TensorType> types = inferTypes(g, n);
  const TensorType& t = types.at(0);
  checkedNumel(t.shape, "result " + t.str() + " of " + opName(op));
  std::string name = outName.empty() ? freshName(nodeName + "/" + opName(op)) : outName;

  bool allConstant = std::all_of(n.inputs.begin(), n.inputs.end(),
                                 [&](ValueId v) { return v == kNoValue || g.value(v).isConstant(); });
  const bool readsKept =
      std::any_of(n.inputs.begin(), n.inputs.end(), [&](ValueId v) { return keepUnfolded.count(v) != 0; });
  if (allConstant && !readsKept && t.bytes() <= kMaxFoldBytes && foldedBytes_ + t.bytes() <= kFoldBudgetBytes) {
    static const HostTensor kAbsent;
    std::vector<const HostTensor*> hosts;
    for (ValueId v : n.inputs) hosts.push_back(v == kNoValue ? &kAbsent : g.value(v).constant.get());
    std::vector<HostTensor> results = evalNode(g, n, hosts);
    return addConstant(name, std::move(results.at(0)));
  }
  ValueId v = g.addValue(name, t);
  g.addNodeWithOutputs(op, nodeName, n.inputs, {v}, n.attrs);
  return v;
}

ValueId GraphBuilder::reshapeTo(const std::string& nodeName, ValueId v, const Shape& shape) {
  if (g.type(v).shape == shape) return v;
  return emit(Op::Reshape, {v}, {{"shape", shape}}, nodeName);
}

ValueId GraphBuilder::sliceAxis(const std::string& nodeName, ValueId x, int64_t axis, int64_t start, int64_t end,
                                int64_t step) {
  const Shape s = g.type(x).shape;
  std::vector<int64_t> st(s.size(), 0), en(s.begin(), s.end()), sp(s.size(), 1);
  st[size_t(axis)] = start;
  en[size_t(axis)] = end;
  sp[size_t(axis)] = step;
  return emit(Op::Slice, {x}, {{"starts", st}, {"ends", en}, {"steps", sp}}, nodeName);
}

ValueId GraphBuilder::reverseAxis(const std::string& nodeName, ValueId x, int64_t axis) {
  int64_t dim = g.type(x).shape[size_t(axis)];
  if (dim <= 1) return x;
  return sliceAxis(nodeName, x, axis, dim - 1, -1, -1);
}

GraphBuilder::Normalized GraphBuilder::normalize(const std::string& nodeName, ValueId x,
                                                 const std::vector<int64_t>& axes, double epsilon) {
  Attrs red{{"axes", axes}, {"keepdims", int64_t(1)}};
  Normalized r;
  r.mean = emit(Op::ReduceMean, {x}, red, nodeName);
  ValueId d = emit(Op::Sub, {x, r.mean}, {}, nodeName);
  r.variance = emit(Op::ReduceMean, {emit(Op::Mul, {d, d}, {}, nodeName)}, red, nodeName);
  ValueId eps = scalar(nodeName, g.type(x).dtype, epsilon);
  ValueId inv = emit(Op::Reciprocal, {emit(Op::Sqrt, {emit(Op::Add, {r.variance, eps}, {}, nodeName)}, {}, nodeName)},
                     {}, nodeName);
  r.invStd = inv;
  r.normalized = emit(Op::Mul, {d, inv}, {}, nodeName);
  return r;
}

ValueId GraphBuilder::rmsNorm(const std::string& nodeName, ValueId x, ValueId weight, double epsilon) {
  const int64_t last = int64_t(g.type(x).rank()) - 1;
  if (last < 0) throw Error(nodeName + ": rms_norm needs rank >= 1, got " + g.type(x).str());
  ValueId meanSquare = emit(Op::ReduceMean, {emit(Op::Mul, {x, x}, {}, nodeName)},
                            {{"axes", std::vector<int64_t>{last}}, {"keepdims", int64_t(1)}}, nodeName);
  ValueId eps = scalar(nodeName, g.type(x).dtype, epsilon);
  ValueId inv = emit(Op::Reciprocal, {emit(Op::Sqrt, {emit(Op::Add, {meanSquare, eps}, {}, nodeName)}, {}, nodeName)},
                     {}, nodeName);
  return emit(Op::Mul, {emit(Op::Mul, {x, inv}, {}, nodeName), weight}, {}, nodeName);
}

bool GraphBuilder::attentionFuses(const TensorType& q, const TensorType& k, const TensorType& v,
                                  const TensorType* mask) {
  const size_t rank = size_t(q.rank());
  if (rank < 2 || rank - 2 > kAttentionMaxLeading || size_t(k.rank()) != rank || size_t(v.rank()) != rank) return false;
  if (q.dtype != DType::F32 || k.dtype != DType::F32 || v.dtype != DType::F32) return false;
  const int64_t T = q.shape[rank - 2], D = q.shape[rank - 1], S = k.shape[rank - 2], Dv = v.shape[rank - 1];
  if (D > kAttentionMaxHeadDim || Dv > kAttentionMaxHeadDim || S < 1 || k.shape[rank - 1] != D ||
      v.shape[rank - 2] != S)
    return false;
  for (size_t a = 0; a + 2 < rank; ++a)
    if ((k.shape[a] != q.shape[a] && k.shape[a] != 1) || v.shape[a] != k.shape[a]) return false;
  return !mask || (mask->shape == Shape{T, S} && mask->dtype == DType::F32);
}

ValueId GraphBuilder::attention(const std::string& nodeName, ValueId q, ValueId k, ValueId v, ValueId mask,
                                double scale) {
  const int64_t rank = int64_t(g.type(k).rank());
  if (rank < 2) throw Error(nodeName + ": attention needs k of rank >= 2, got " + g.type(k).str());
  if (attentionFuses(g.type(q), g.type(k), g.type(v), mask != kNoValue ? &g.type(mask) : nullptr)) {
    std::vector<ValueId> in{q, k, v};
    if (mask != kNoValue) in.push_back(mask);
    return emit(Op::Attention, std::move(in), {{"scale", scale}}, nodeName);
  }
  std::vector<int64_t> perm;
  for (int64_t a = 0; a < rank; ++a) perm.push_back(a);
  std::swap(perm[size_t(rank - 2)], perm[size_t(rank - 1)]);
  ValueId kT = emit(Op::Transpose, {k}, {{"perm", perm}}, nodeName);
  ValueId scores = emit(Op::MatMul, {q, kT}, {}, nodeName);
  scores = emit(Op::Mul, {scores, scalar(nodeName, g.type(scores).dtype, scale)}, {}, nodeName);
  if (mask != kNoValue) scores = emit(Op::Add, {scores, mask}, {}, nodeName);
  ValueId p = emit(Op::Softmax, {scores}, {{"axis", int64_t(g.type(scores).rank()) - 1}}, nodeName);
  return emit(Op::MatMul, {p, v}, {}, nodeName);
}

namespace {

// The last dimension of a rotary embedding's input, which must be even.
int64_t rotaryWidth(const std::string& nodeName, const TensorType& t) {
  if (t.rank() == 0 || t.shape.back() % 2 != 0)
    throw Error(nodeName + ": rotary embedding needs an even last dimension, got " + t.str());
  return t.shape.back();
}

}  // namespace

ValueId GraphBuilder::rotaryHalf(const std::string& nodeName, ValueId x, ValueId cos, ValueId sin) {
  const int64_t d = rotaryWidth(nodeName, g.type(x));
  HostTensor sign(TensorType{g.type(sin).dtype, {d}});
  for (int64_t i = 0; i < d; ++i) sign.setF(i, i < d / 2 ? -1.0 : 1.0);
  return rotaryHalfSigned(nodeName, x, cos, emit(Op::Mul, {sin, constant(nodeName, std::move(sign))}, {}, nodeName));
}

ValueId GraphBuilder::rotaryHalfSigned(const std::string& nodeName, ValueId x, ValueId cos, ValueId signedSin) {
  const int64_t d = rotaryWidth(nodeName, g.type(x)), last = int64_t(g.type(x).rank()) - 1;
  const TensorType& xt = g.type(x);
  if (xt.rank() >= 2 && xt.dtype == DType::F32) {  // cos and sin [T, D]: one Rotary node
    const TensorType rows{DType::F32, {xt.shape[size_t(last - 1)], d}};
    if (g.type(cos) == rows && g.type(signedSin) == rows) return emit(Op::Rotary, {x, cos, signedSin}, {}, nodeName);
  }
  // The halves swapped by one gather (no slices, no concat): element i
  // reads i + d/2, wrapping.
  HostTensor swap(TensorType{DType::I64, {d}});
  for (int64_t i = 0; i < d; ++i) swap.as<int64_t>()[i] = (i + d / 2) % d;
  ValueId swapped = emit(Op::Gather, {x, constant(nodeName, std::move(swap))}, {{"axis", last}}, nodeName);
  return emit(Op::Add, {emit(Op::Mul, {x, cos}, {}, nodeName), emit(Op::Mul, {swapped, signedSin}, {}, nodeName)}, {},
              nodeName);
}

ValueId GraphBuilder::causalMask(const std::string& nodeName, ValueId queryPositions, ValueId keyPositions,
                                 DType dtype) {
  const TensorType &q = g.type(queryPositions), &k = g.type(keyPositions);
  if (q.rank() != 1 || k.rank() != 1 || q.dtype != k.dtype)
    throw Error(nodeName + ": causal mask needs two position vectors of one dtype, got " + q.str() + " and " + k.str());
  ValueId rows = reshapeTo(nodeName, queryPositions, {q.shape[0], 1});
  ValueId future = emit(Op::Greater, {keyPositions, rows}, {}, nodeName);  // [Tq, Tk]
  return emit(Op::Where, {future, scalar(nodeName, dtype, -3.4028234663852886e38), scalar(nodeName, dtype, 0.0)}, {}, nodeName);
}

}  // namespace mgc
