// Losses as IR subgraphs (loss.h).
#include "passes/program/loss.h"

#include "passes/program/grad_builder.h"

namespace mgc {

namespace {

std::vector<int64_t> allAxes(size_t rank) {
  std::vector<int64_t> a;
  for (size_t d = 0; d < rank; ++d) a.push_back(int64_t(d));
  return a;
}

// Mean over every element, as a rank-0 tensor.
ValueId meanAll(grad::Emitter& e, ValueId v) {
  if (e.shape(v).empty()) return v;
  return e.op(Op::ReduceMean, {v}, {{"axes", allAxes(e.shape(v).size())}, {"keepdims", int64_t(0)}});
}

// The class axis o.classAxis of logits of rank `rank`, normalized; throws
// when it does not exist (rank < 2 has no class axis besides the batch).
int64_t classAxisOf(const TensorType& logits, const LossOptions& o) {
  int64_t rank = logits.rank(), axis = o.classAxis < 0 ? o.classAxis + rank : o.classAxis;
  if (rank < 2 || axis < 1 || axis >= rank)
    throw Error("cross-entropy: class axis " + std::to_string(o.classAxis) + " does not fit logits " + logits.str() +
                " (axis 1 for [N, C, ...], -1 for [N, ..., C])");
  return axis;
}

ValueId crossEntropy(grad::Emitter& e, ValueId logits, ValueId labels, const LossOptions& o) {
  const Shape ls = e.shape(logits), ts = e.shape(labels);
  DType it = e.type(labels).dtype;
  const int64_t axis = classAxisOf(e.type(logits), o);
  const Shape expect = lossTargetType(e.type(logits), o).shape;
  if (ts != expect || (it != DType::I64 && it != DType::I32))
    throw Error("cross-entropy: labels must be i64/i32 " + shapeStr(expect) + " for logits " + e.type(logits).str() +
                " (class axis " + std::to_string(axis) + "), got " + e.type(labels).str());
  const double smoothing = o.labelSmoothing;
  if (smoothing < 0 || smoothing > 1) throw Error("cross-entropy: label smoothing must be in [0, 1]");
  int64_t C = ls[size_t(axis)];
  DType ft = e.type(logits).dtype;
  // one-hot: labels with a 1 inserted at the class axis == iota over C there
  Shape iotaShape(ls.size(), 1), labelShape = ls;
  iotaShape[size_t(axis)] = C;
  labelShape[size_t(axis)] = 1;
  HostTensor iota(TensorType{it, iotaShape});
  for (int64_t c = 0; c < C; ++c) iota.setI(c, c);
  ValueId classes = e.g.addConstant(e.g.uniqueName("loss.classes"), std::move(iota));
  ValueId onehot = e.cast(e.op(Op::Equal, {e.reshape(labels, labelShape), classes}), ft);
  ValueId q = smoothing == 0 ? onehot : e.addScalar(e.mulScalar(onehot, 1 - smoothing), smoothing / double(C));
  ValueId logp = e.op(Op::LogSoftmax, {logits}, {{"axis", axis}});
  ValueId perItem = e.op(Op::ReduceSum, {e.mul(q, logp)}, {{"axes", std::vector<int64_t>{axis}}, {"keepdims", int64_t(0)}});
  return e.neg(meanAll(e, perItem));
}

}  // namespace

TensorType lossTargetType(const TensorType& prediction, const LossOptions& o) {
  if (o.kind != LossKind::CrossEntropy) return prediction;
  Shape s = prediction.shape;
  s.erase(s.begin() + classAxisOf(prediction, o));
  return TensorType{DType::I64, s};
}

ValueId addLoss(Graph& g, ValueId prediction, ValueId target, const LossOptions& o) {
  grad::Emitter e(g, "loss");
  const TensorType p = g.type(prediction);  // copies: emitting reallocates g.values
  if (!isFloat(p.dtype)) throw Error("loss: prediction '" + g.value(prediction).name + "' is " + p.str() + ", not float");
  if (o.kind == LossKind::CrossEntropy) return crossEntropy(e, prediction, target, o);
  const TensorType t = g.type(target);
  if (t.dtype != p.dtype || broadcastShapes(p.shape, t.shape) != p.shape)
    throw Error("loss: target " + t.str() + " does not match prediction " + p.str());
  switch (o.kind) {
    case LossKind::MSE: {
      ValueId d = e.sub(prediction, target);
      return meanAll(e, e.mul(d, d));
    }
    case LossKind::L1: return meanAll(e, e.op(Op::Abs, {e.sub(prediction, target)}));
    case LossKind::BCEWithLogits:
      return meanAll(e, e.sub(e.op(Op::Softplus, {prediction}), e.mul(prediction, target)));
    case LossKind::CrossEntropy: break;  // handled above
  }
  throw Error("loss: unknown kind");
}

}  // namespace mgc
