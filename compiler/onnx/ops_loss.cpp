// GatherElements, ScatterElements and the losses built on GatherElements: NegativeLogLikelihoodLoss and
// SoftmaxCrossEntropyLoss (LogSoftmax over the class axis, then NLL).
#include "compiler/onnx/ops_extra.h"

namespace mgc::onnximport {

namespace {

void gatherElements(NodeContext& c) {
  c.onlyAttrs({"axis"});
  ValueId data = c.input(0);
  int64_t axis = c.normAxis(c.attrInt("axis", 0), c.type(data).rank());
  c.emitOutput(0, Op::GatherElements, {data, c.input(1)}, {{"axis", axis}});
}

// ScatterElements (opset >= 11) and its older name Scatter (opsets 9, 10).
void scatterElements(NodeContext& c) {
  c.onlyAttrs({"axis", "reduction"});
  ValueId data = c.input(0);
  int64_t axis = c.normAxis(c.attrInt("axis", 0), c.type(data).rank());
  std::string reduction = c.attrString("reduction", "none");
  int64_t code = reduction == "none" ? 0 : reduction == "add" ? 1 : reduction == "mul" ? 2 : -1;
  if (code < 0) c.unsupported("reduction '" + reduction + "' is not supported");
  c.emitOutput(0, Op::ScatterElements, {data, c.input(1), c.input(2)}, {{"axis", axis}, {"reduction", code}});
}

Attrs allAxes(NodeContext& c, ValueId v) {
  std::vector<int64_t> axes;
  for (int64_t k = 0; k < c.type(v).rank(); ++k) axes.push_back(k);
  return {{"axes", axes}, {"keepdims", int64_t(0)}};
}

// loss[n, d...] = -input[n, target[n, d...], d...] · weight[target], zero
// where target == ignore_index; reduced by `reduction` ("mean" divides by
// the sum of the weights that took part).
void emitNll(NodeContext& c, ValueId input, ValueId target, ValueId weight) {
  const TensorType it = c.type(input), tt = c.type(target);
  if (it.rank() < 2 || tt.rank() != it.rank() - 1) c.fail("input " + it.str() + " and target " + tt.str() + " do not match");
  std::string reduction = c.attrString("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") c.fail("reduction '" + reduction + "' is not valid");
  DType dt = it.dtype;
  ValueId ignored = kNoValue, safe = target;
  if (c.hasAttr("ignore_index")) {
    ignored = c.emit(Op::Equal, {target, c.scalar(tt.dtype, double(c.attrInt("ignore_index")))});
    safe = c.emit(Op::Where, {ignored, c.scalar(tt.dtype, 0), target});  // an ignored label may be out of range
  }
  Shape picked = tt.shape;
  picked.insert(picked.begin() + 1, 1);
  ValueId loss = c.emit(Op::GatherElements, {input, reshapeTo(c, safe, picked)}, {{"axis", int64_t(1)}});
  loss = c.emit(Op::Neg, {reshapeTo(c, loss, tt.shape)});
  ValueId w = kNoValue;  // per-element weight; kNoValue means 1
  if (weight != kNoValue) {
    w = c.emit(Op::Gather, {weight, safe}, {{"axis", int64_t(0)}});
    loss = c.emit(Op::Mul, {loss, w});
  }
  if (ignored != kNoValue) {
    ValueId zero = c.scalar(dt, 0);
    loss = c.emit(Op::Where, {ignored, zero, loss});
    w = c.emit(Op::Where, {ignored, zero, w != kNoValue ? w : c.scalar(dt, 1)});
  }
  if (reduction == "none") return c.setOutput(0, loss);
  if (reduction == "sum") return c.emitOutput(0, Op::ReduceSum, {loss}, allAxes(c, loss));
  if (w == kNoValue) return c.emitOutput(0, Op::ReduceMean, {loss}, allAxes(c, loss));
  if (c.type(w).shape != tt.shape) w = c.emit(Op::Expand, {w}, {{"shape", tt.shape}});
  ValueId total = c.emit(Op::ReduceSum, {loss}, allAxes(c, loss));
  c.emitOutput(0, Op::Div, {total, c.emit(Op::ReduceSum, {w}, allAxes(c, w))});
}

void nllLoss(NodeContext& c) {
  c.onlyAttrs({"ignore_index", "reduction"});
  ValueId input = c.input(0);
  if (!isFloat(c.type(input).dtype)) c.fail("input must be a float tensor, got " + c.type(input).str());
  emitNll(c, input, c.input(1), c.optInput(2));
}

void softmaxCrossEntropy(NodeContext& c) {
  c.onlyAttrs({"ignore_index", "reduction"});
  ValueId scores = c.input(0);
  if (!isFloat(c.type(scores).dtype) || c.type(scores).rank() < 2)
    c.fail("scores must be a float tensor of rank >= 2, got " + c.type(scores).str());
  ValueId logProb = c.emit(Op::LogSoftmax, {scores}, {{"axis", int64_t(1)}});
  if (c.numOutputs() > 1) c.setOutput(1, logProb);
  emitNll(c, logProb, c.input(1), c.optInput(2));
}

}  // namespace

void addLossConverters(ConverterTable& t) {
  t[{"", "GatherElements"}] = gatherElements;
  t[{"", "ScatterElements"}] = scatterElements;
  t[{"", "Scatter"}] = scatterElements;
  t[{"", "NegativeLogLikelihoodLoss"}] = nllLoss;
  t[{"", "SoftmaxCrossEntropyLoss"}] = softmaxCrossEntropy;
}

}  // namespace mgc::onnximport
