// Gradient rules of the neural-network ops. MatMul, Softmax and the
// normalizations are expressed with existing ops (what they cost is a few
// elementwise passes); Conv and pooling use the dedicated gradient ops
// (ConvGradInput / ConvGradWeight / MaxPoolGrad / AvgPoolGrad).
#include <numeric>

#include "ir/epilogue.h"
#include "ir/matmul.h"
#include "passes/program/grad_builder.h"

namespace mgc::grad {

namespace {

// Swaps the last two axes of a rank >= 2 value.
ValueId swapLast2(Emitter& e, ValueId v) {
  std::vector<int64_t> perm(e.shape(v).size());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return e.transpose(v, perm);
}

std::vector<int64_t> range(int64_t from, int64_t to) {
  std::vector<int64_t> r;
  for (int64_t k = from; k < to; ++k) r.push_back(k);
  return r;
}

// Copies the listed attributes that are present on `from`.
Attrs pick(const Node& from, std::initializer_list<const char*> names) {
  Attrs a;
  for (const char* k : names)
    if (from.has(k)) a[k] = from.attrs.at(k);
  return a;
}

// Fusion (passes/fuse_*) runs in the compile pipeline, after autodiff.
void refuseFused(const Node& n) {
  if (n.has("epilogue") || n.inputs.size() > size_t(n.op == Op::Conv ? 3 : 2))
    noGradient(n, "has a fused epilogue: differentiate before the fusion passes");
  if (convReluInput(n)) noGradient(n, "reads its input through a fused ReLU: differentiate before the fusion passes");
}

}  // namespace

Grads matMulGrad(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need) {
  refuseFused(n);
  // Operands stored transposed (trans_a / trans_b) are differentiated as
  // explicit transposes; canonicalize folds them back into flags.
  const MatMulLayout layout = matmulLayout(n);
  if (layout.transA || layout.transB) {
    ValueId la = layout.transA ? swapLast2(e, n.inputs[0]) : n.inputs[0];
    ValueId lb = layout.transB ? swapLast2(e, n.inputs[1]) : n.inputs[1];
    Node plain = n;
    plain.inputs = {la, lb};
    plain.attrs.erase("trans_a");
    plain.attrs.erase("trans_b");
    Grads d = matMulGrad(e, plain, dy, need);
    if (layout.transA && d[0] != kNoValue) d[0] = swapLast2(e, d[0]);
    if (layout.transB && d[1] != kNoValue) d[1] = swapLast2(e, d[1]);
    return d;
  }
  // Work on the promoted matrices: a [.., M, K], b [.., K, N], dy [batch.., M, N].
  ValueId a = n.inputs[0], b = n.inputs[1];
  Shape sa = e.shape(a), sb = e.shape(b);
  bool va = sa.size() == 1, vb = sb.size() == 1;
  Shape pa = sa, pb = sb;
  if (va) pa.insert(pa.begin(), 1);
  if (vb) pb.push_back(1);
  Shape batch = broadcastShapes(Shape(pa.begin(), pa.end() - 2), Shape(pb.begin(), pb.end() - 2));
  Shape dyShape = batch;
  dyShape.push_back(pa[pa.size() - 2]);
  dyShape.push_back(pb.back());
  ValueId g = e.reshape(dy, dyShape);
  ValueId da = kNoValue, db = kNoValue;
  if (need[0]) {  // da = dy @ b^T, summed over broadcast batch axes
    ValueId full = e.op(Op::MatMul, {g, swapLast2(e, e.reshape(b, pb))});
    da = e.reshape(e.sumToShape(full, pa), sa);
  }
  if (need[1] && pb.size() == 2 && pa.size() > 2) {
    // b is one matrix shared by every batch (a linear layer's weight): the
    // batch sum is part of one product, db = a'^T @ dy' with the batch
    // folded into the rows (a' [B*M, K], dy' [B*M, N]).
    const int64_t rows = numel(pa) / pa.back();
    ValueId a2 = e.reshape(a, {rows, pa.back()}), g2 = e.reshape(g, {rows, pb.back()});
    db = e.reshape(e.op(Op::MatMul, {swapLast2(e, a2), g2}), sb);
  } else if (need[1]) {  // db = a^T @ dy
    ValueId full = e.op(Op::MatMul, {swapLast2(e, e.reshape(a, pa)), g});
    db = e.reshape(e.sumToShape(full, pb), sb);
  }
  return {da, db};
}

Grads convGrad(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need) {
  refuseFused(n);
  Attrs geometry = pick(n, {"strides", "pads", "dilations", "group"});
  Grads out(n.inputs.size(), kNoValue);
  if (need[0]) {
    Attrs a = geometry;
    a["shape"] = e.shape(n.inputs[0]);
    out[0] = e.op(Op::ConvGradInput, {dy, n.inputs[1]}, a);
  }
  if (need[1]) {
    Attrs a = geometry;
    a["shape"] = e.shape(n.inputs[1]);
    out[1] = e.op(Op::ConvGradWeight, {n.inputs[0], dy}, a);
  }
  if (n.inputs.size() > 2 && need[2]) out[2] = e.reduceSum(dy, {0, 2, 3}, false);
  return out;
}

Grads poolGrad(Emitter& e, const Node& n, ValueId dy) {
  if (n.op == Op::MaxPool)
    return {e.op(Op::MaxPoolGrad, {n.inputs[0], dy}, pick(n, {"kernel", "strides", "pads", "dilations", "ceil_mode"}))};
  Attrs a = pick(n, {"kernel", "strides", "pads", "dilations", "count_include_pad", "ceil_mode"});
  a["shape"] = e.shape(n.inputs[0]);
  return {e.op(Op::AvgPoolGrad, {dy}, a)};
}

Grads softmaxGrad(Emitter& e, const Node& n, ValueId dy) {
  ValueId y = n.outputs[0];
  int64_t axis = n.i("axis", -1);
  if (axis < 0) axis += int64_t(e.shape(y).size());
  if (n.op == Op::Softmax)  // y (dy - sum(dy y))
    return {e.mul(y, e.sub(dy, e.reduceSum(e.mul(dy, y), {axis}, true)))};
  // log-softmax: dy - softmax * sum(dy)
  return {e.sub(dy, e.mul(e.op(Op::Exp, {y}), e.reduceSum(dy, {axis}, true)))};
}

namespace {

// The axes of a LayerNorm / RMSNorm node: normalized [axis, rank), outer
// [0, axis), and the normalized shape (its scale's, up to leading 1s).
struct NormAxes {
  std::vector<int64_t> norm, outer;
  Shape normShape;
};
NormAxes normAxesOf(Emitter& e, const Node& n) {
  const Shape xs = e.shape(n.inputs[0]);
  int64_t rank = int64_t(xs.size()), axis = n.i("axis", -1);
  if (axis < 0) axis += rank;
  return {range(axis, rank), range(0, axis), Shape(xs.begin() + axis, xs.end())};
}

}  // namespace

Grads layerNormGrad(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need) {
  ValueId x = n.inputs[0];
  const auto [normAxes, outerAxes, normShape] = normAxesOf(e, n);
  // recompute the normalized input: xhat = (x - mean) * rstd
  ValueId xc = e.sub(x, e.reduceMean(x, normAxes, true));
  ValueId var = e.reduceMean(e.mul(xc, xc), normAxes, true);
  ValueId rstd = e.op(Op::Reciprocal, {e.op(Op::Sqrt, {e.addScalar(var, n.f("epsilon", 1e-5))})});
  ValueId xhat = e.mul(xc, rstd);
  Grads out(n.inputs.size(), kNoValue);
  if (need[0]) {  // rstd (g - mean(g) - xhat mean(g xhat)), g = dy * scale
    ValueId g = e.mul(dy, e.reshape(n.inputs[1], normShape));
    ValueId centered = e.sub(g, e.reduceMean(g, normAxes, true));
    out[0] = e.mul(rstd, e.sub(centered, e.mul(xhat, e.reduceMean(e.mul(g, xhat), normAxes, true))));
  }
  if (need[1]) out[1] = e.reshape(e.reduceSum(e.mul(dy, xhat), outerAxes, false), e.shape(n.inputs[1]));
  if (n.inputs.size() > 2 && need[2]) out[2] = e.reshape(e.reduceSum(dy, outerAxes, false), e.shape(n.inputs[2]));
  return out;
}

// y = x / r * scale, r = sqrt(s + eps) or sqrt(s) + eps, s = mean(x²):
//   dx = (g - x mean(g x) k) / r,  g = dy * scale,
//   k = dlog r / ds * 2 = 1 / r² (eps inside) or 1 / (r sqrt(s)) (outside)
//   dscale = sum over the outer axes of dy x / r
Grads rmsNormGrad(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need) {
  ValueId x = n.inputs[0];
  const auto [normAxes, outerAxes, normShape] = normAxesOf(e, n);
  const double eps = n.f("epsilon", 1e-5);
  const bool outside = n.i("epsilon_outside", 0) != 0;
  ValueId s = e.reduceMean(e.mul(x, x), normAxes, true);
  ValueId root = e.op(Op::Sqrt, {outside ? s : e.addScalar(s, eps)});
  ValueId invR = e.op(Op::Reciprocal, {outside ? e.addScalar(root, eps) : root});
  Grads out(n.inputs.size(), kNoValue);
  if (need[0]) {
    ValueId g = e.mul(dy, e.reshape(n.inputs[1], normShape));
    ValueId k = outside ? e.mul(invR, e.op(Op::Reciprocal, {root})) : e.mul(invR, invR);
    ValueId proj = e.mul(x, e.mul(e.reduceMean(e.mul(g, x), normAxes, true), k));
    out[0] = e.mul(e.sub(g, proj), invR);
  }
  if (need[1]) out[1] = e.reshape(e.reduceSum(e.mul(dy, e.mul(x, invR)), outerAxes, false), e.shape(n.inputs[1]));
  return out;
}

Grads batchNormGrad(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need) {
  // Inference form: y = (x - mean) * scale * rstd + bias, rstd = 1/sqrt(var + eps),
  // parameters [C] on axis 1.
  ValueId x = n.inputs[0];
  const Shape xs = e.shape(x);
  Shape perChannel(xs.size(), 1);
  perChannel[1] = xs[1];
  std::vector<int64_t> others = range(0, int64_t(xs.size()));
  others.erase(others.begin() + 1);
  auto bc = [&](ValueId p) { return e.reshape(p, perChannel); };
  auto toParam = [&](ValueId v) { return e.reduceSum(v, others, false); };
  ValueId scale = n.inputs[1], mean = n.inputs[3], varEps = e.addScalar(n.inputs[4], n.f("epsilon", 1e-5));
  ValueId rstd = e.op(Op::Reciprocal, {e.op(Op::Sqrt, {varEps})});
  ValueId k = e.mul(scale, rstd);  // dy/dx per channel
  Grads out(5, kNoValue);
  if (need[0]) out[0] = e.mul(dy, bc(k));
  ValueId sumDy = (need[2] || need[3]) ? toParam(dy) : kNoValue;
  ValueId sumDyXc = (need[1] || need[4]) ? toParam(e.mul(dy, e.sub(x, bc(mean)))) : kNoValue;
  if (need[1]) out[1] = e.mul(sumDyXc, rstd);
  if (need[2]) out[2] = sumDy;
  if (need[3]) out[3] = e.neg(e.mul(sumDy, k));
  if (need[4])  // d/dvar of (x - mean) scale (var + eps)^-1/2 = -1/2 (x - mean) scale / (var + eps)^3/2
    out[4] = e.mul(e.mulScalar(e.mul(sumDyXc, k), -0.5), e.op(Op::Reciprocal, {varEps}));
  return out;
}

// ConvGradInput(dy, w) (a transposed convolution, how ConvTranspose is
// imported) is linear in each input and the adjoint of Conv in its first:
// for an upstream gradient g shaped like its output,
//   d dy = Conv(g, w)              (same geometry: the forward convolution)
//   d w  = ConvGradWeight(g, dy)   (<g, CGI(dy, w)> = <Conv(g, w), dy>).
// Conv(g, w) has exactly dy's spatial size: ConvGradInput's output size is
// the forward input size that produced it.
Grads convGradInputGrad(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need) {
  Attrs geometry = pick(n, {"strides", "pads", "dilations", "group"});
  ValueId x = n.inputs[0], w = n.inputs[1];
  Grads out(2, kNoValue);
  if (need[0]) {
    out[0] = e.op(Op::Conv, {dy, w}, geometry);
    if (e.shape(out[0]) != e.shape(x))
      noGradient(n, "the forward convolution of its gradient has shape " + shapeStr(e.shape(out[0])) + ", not " +
                        shapeStr(e.shape(x)));
  }
  if (need[1]) {
    Attrs a = geometry;
    a["shape"] = e.shape(w);
    out[1] = e.op(Op::ConvGradWeight, {dy, x}, a);
  }
  return out;
}

}  // namespace mgc::grad
