// Neural-network ONNX ops: MatMul, Gemm, Conv, pools, normalizations,
// Softmax. Windows are normalized to the IR's 2-D form: auto_pad resolved
// to explicit pads [top,left,bottom,right]; 1-D ops run as 2-D with H = 1.
#include <algorithm>

#include "compiler/onnx/importer.h"
#include "compiler/onnx/ops_extra.h"

namespace mgc::onnximport {

namespace {

void matmul(NodeContext& c) {
  c.onlyAttrs({});
  c.emitOutput(0, Op::MatMul, {c.input(0), c.input(1)});
}

// Y = alpha * A' B' + beta * C, as Transpose / MatMul / Mul / Add.
void gemm(NodeContext& c) {
  // Opsets < 7 flag C's broadcasting, which numpy broadcasting covers.
  if (c.opset < 7) c.onlyAttrs({"alpha", "beta", "transA", "transB", "broadcast"});
  else c.onlyAttrs({"alpha", "beta", "transA", "transB"});
  ValueId a = c.input(0), b = c.input(1);
  if (c.type(a).rank() != 2 || c.type(b).rank() != 2)
    c.fail("A and B must be 2-D, got " + c.type(a).str() + " and " + c.type(b).str());
  double alpha = c.attrFloat("alpha", 1.0), beta = c.attrFloat("beta", 1.0);
  Attrs swap{{"perm", std::vector<int64_t>{1, 0}}};
  if (c.attrInt("transA", 0)) a = c.emit(Op::Transpose, {a}, swap);
  if (c.attrInt("transB", 0)) b = c.emit(Op::Transpose, {b}, swap);
  bool addC = c.hasInput(2) && beta != 0.0, scale = alpha != 1.0;
  if (!scale && !addC) return c.emitOutput(0, Op::MatMul, {a, b});
  ValueId y = c.emit(Op::MatMul, {a, b});
  DType dt = c.type(y).dtype;
  if (scale && !addC) return c.emitOutput(0, Op::Mul, {y, c.scalar(dt, alpha)});
  if (scale) y = c.emit(Op::Mul, {y, c.scalar(dt, alpha)});
  ValueId bias = c.input(2);
  if (beta != 1.0) bias = c.emit(Op::Mul, {bias, c.scalar(c.type(bias).dtype, beta)});
  c.emitOutput(0, Op::Add, {y, bias});
}

// One sliding-window op's geometry, already in the IR's 2-D form.
struct Window {
  std::vector<int64_t> kernel, strides, dilations, pads;  // pads: [top,left,bottom,right]
  bool oneD = false;                                      // the ONNX op was 1-D
};

// Reads kernel/strides/dilations/pads/auto_pad for `spatial` input sizes
// (1 or 2 axes) and resolves them to explicit 2-D pads.
Window readWindow(NodeContext& c, const Shape& spatial, std::vector<int64_t> kernel, bool hasDilations) {
  size_t n = spatial.size();
  if (n != 1 && n != 2) c.unsupported(std::to_string(n) + "-D windows are not supported (1-D and 2-D only)");
  if (kernel.size() != n) c.fail("kernel_shape has " + std::to_string(kernel.size()) + " entries for " + std::to_string(n) + " spatial axes");
  std::vector<int64_t> ones(n, 1);
  std::vector<int64_t> strides = c.attrInts("strides", ones);
  std::vector<int64_t> dilations = hasDilations ? c.attrInts("dilations", ones) : ones;
  std::vector<int64_t> pads = c.attrInts("pads", std::vector<int64_t>(2 * n, 0));
  if (strides.size() != n || dilations.size() != n || pads.size() != 2 * n)
    c.fail("strides/dilations/pads do not match " + std::to_string(n) + " spatial axes");
  for (size_t k = 0; k < n; ++k) {
    if (kernel[k] <= 0 || strides[k] <= 0 || dilations[k] <= 0)
      c.fail("kernel, strides and dilations must be positive");
    if (kernel[k] > (int64_t(1) << 32) || strides[k] > (int64_t(1) << 32) || dilations[k] > (int64_t(1) << 32))
      c.fail("kernel, strides or dilations are too large");
  }
  for (int64_t p : pads)
    if (p < 0 || p > (int64_t(1) << 32)) c.fail("pads must be in [0, 2^32]");

  std::string autoPad = c.attrString("auto_pad", "NOTSET");
  if (autoPad == "VALID") {
    pads.assign(2 * n, 0);
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t k = 0; k < n; ++k) {
      int64_t out = (spatial[k] + strides[k] - 1) / strides[k];
      int64_t total = std::max<int64_t>(0, (out - 1) * strides[k] + (kernel[k] - 1) * dilations[k] + 1 - spatial[k]);
      int64_t small = total / 2, large = total - small;  // the odd pixel goes to the end for SAME_UPPER
      pads[k] = autoPad == "SAME_UPPER" ? small : large;
      pads[k + n] = autoPad == "SAME_UPPER" ? large : small;
    }
  } else if (autoPad != "NOTSET") {
    c.fail("auto_pad '" + autoPad + "' is not valid");
  }

  Window w;
  w.oneD = n == 1;
  if (w.oneD) {  // 1-D as 2-D with a height-1 axis in front
    w.kernel = {1, kernel[0]};
    w.strides = {1, strides[0]};
    w.dilations = {1, dilations[0]};
    w.pads = {0, pads[0], 0, pads[1]};
  } else {
    w.kernel = kernel;
    w.strides = strides;
    w.dilations = dilations;
    w.pads = pads;
  }
  return w;
}

Shape spatialOf(const TensorType& t) { return Shape(t.shape.begin() + std::min<int64_t>(2, t.rank()), t.shape.end()); }

// [N,C,L] → [N,C,1,L] for 1-D windows.
ValueId to2d(NodeContext& c, ValueId v) {
  Shape s = c.type(v).shape;
  s.insert(s.begin() + 2, 1);
  return reshapeTo(c, v, s);
}

// Emits the windowed op (as output 0), reshaping a 1-D op's result back.
void emitWindowed(NodeContext& c, const Window& w, Op op, std::vector<ValueId> inputs, Attrs attrs) {
  if (!w.oneD) return c.emitOutput(0, op, std::move(inputs), std::move(attrs));
  ValueId y = c.emit(op, std::move(inputs), std::move(attrs));
  Shape s = c.type(y).shape;
  s.erase(s.begin() + 2);
  c.emitOutput(0, Op::Reshape, {y}, {{"shape", s}});
}

// A 1-D or 2-D Conv's IR inputs and attributes (1-D as 2-D).
struct ConvNode {
  Window w;
  std::vector<ValueId> inputs;
  Attrs attrs;
};

ConvNode prepareConv(NodeContext& c, ValueId x, ValueId wt, ValueId bias) {
  const TensorType xt = c.type(x), wtt = c.type(wt);
  if (xt.rank() < 3 || wtt.rank() != xt.rank())
    c.fail("input " + xt.str() + " and weight " + wtt.str() + " must have the same rank >= 3");
  std::vector<int64_t> kernel(wtt.shape.begin() + 2, wtt.shape.end());
  if (c.hasAttr("kernel_shape") && c.attrInts("kernel_shape") != kernel)
    c.fail("kernel_shape does not match the weight " + wtt.str());
  ConvNode n;
  n.w = readWindow(c, spatialOf(xt), kernel, true);
  if (n.w.oneD) {
    x = to2d(c, x);
    wt = to2d(c, wt);
  }
  n.inputs = {x, wt};
  if (bias != kNoValue) n.inputs.push_back(bias);
  n.attrs = {{"strides", n.w.strides}, {"pads", n.w.pads}, {"dilations", n.w.dilations}, {"group", c.attrInt("group", 1)}};
  return n;
}

void conv(NodeContext& c) {
  c.onlyAttrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  const ValueId x = c.input(0), wt = c.input(1);
  if (c.type(x).rank() == 5 && c.type(wt).rank() == 5) return conv3d(c);
  ConvNode n = prepareConv(c, x, wt, c.optInput(2));
  emitWindowed(c, n.w, Op::Conv, n.inputs, n.attrs);
}

void maxPool(NodeContext& c) {
  c.onlyAttrs({"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"});
  c.requireUnused(1, "MaxPool indices are not supported");
  ValueId x = c.input(0);
  if (c.type(x).rank() == 5 && isFloat(c.type(x).dtype)) return pool3d(c, Op::MaxPool);
  Window w = readWindow(c, spatialOf(c.type(x)), c.attrInts("kernel_shape"), true);
  if (w.oneD) x = to2d(c, x);
  Attrs attrs{{"kernel", w.kernel}, {"strides", w.strides}, {"pads", w.pads}, {"dilations", w.dilations},
              {"ceil_mode", c.attrInt("ceil_mode", 0)}};
  DType dt = c.type(x).dtype;
  if (dt == DType::I8 || dt == DType::U8) {  // pooling computes in f32, which holds every 8-bit value exactly
    ValueId y = c.emit(Op::MaxPool, {c.emit(Op::Cast, {x}, {{"to", int64_t(DType::F32)}})}, attrs);
    if (w.oneD) {
      Shape s = c.type(y).shape;
      s.erase(s.begin() + 2);
      y = reshapeTo(c, y, s);
    }
    return c.emitOutput(0, Op::Cast, {y}, {{"to", int64_t(dt)}});
  }
  emitWindowed(c, w, Op::MaxPool, {x}, attrs);
}

void averagePool(NodeContext& c) {
  c.onlyAttrs({"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"});
  ValueId x = c.input(0);
  if (c.type(x).rank() == 5) return pool3d(c, Op::AvgPool);
  Window w = readWindow(c, spatialOf(c.type(x)), c.attrInts("kernel_shape"), false);
  if (w.oneD) x = to2d(c, x);
  emitWindowed(c, w, Op::AvgPool, {x},
               {{"kernel", w.kernel}, {"strides", w.strides}, {"pads", w.pads},
                {"count_include_pad", c.attrInt("count_include_pad", 0)}, {"ceil_mode", c.attrInt("ceil_mode", 0)}});
}

// GlobalAveragePool / GlobalMaxPool: a keepdims reduction over the spatial axes.
template <Op reduce>
void globalPool(NodeContext& c) {
  c.onlyAttrs({});
  ValueId x = c.input(0);
  int rank = c.type(x).rank();
  if (rank < 3) c.fail("expects rank >= 3, got " + c.type(x).str());
  std::vector<int64_t> axes;
  for (int k = 2; k < rank; ++k) axes.push_back(k);
  c.emitOutput(0, reduce, {x}, {{"axes", axes}, {"keepdims", int64_t(1)}});
}

void batchNorm(NodeContext& c) {
  c.onlyAttrs({"epsilon", "momentum", "spatial", "training_mode", "is_test"});
  if (c.attrInt("spatial", 1) != 1) c.unsupported("spatial=0 is not supported");
  // Before opset 7, is_test=0 (the default) means training: batch statistics.
  if (c.opset < 7 && c.attrInt("is_test", 0) == 0) c.unsupported("is_test=0 (training) is not supported (inference only)");
  if (c.attrInt("training_mode", 0) != 0) return batchNormTraining(c);
  c.requireUnused(1, "training outputs (running mean/var) are not supported");
  c.emitOutput(0, Op::BatchNorm, {c.input(0), c.input(1), c.input(2), c.input(3), c.input(4)},
               {{"epsilon", c.attrFloat("epsilon", 1e-5)}});
}

void layerNorm(NodeContext& c) {
  c.onlyAttrs({"axis", "epsilon", "stash_type"});
  ValueId x = c.input(0);
  int64_t axis = c.normAxis(c.attrInt("axis", -1), c.type(x).rank());
  std::vector<ValueId> ins{x, c.input(1)};
  if (c.hasInput(2)) ins.push_back(c.input(2));
  c.emitOutput(0, Op::LayerNorm, ins, {{"axis", axis}, {"epsilon", c.attrFloat("epsilon", 1e-5)}});
  layerNormStatistics(c, x, axis, c.attrFloat("epsilon", 1e-5));
}

// Opset >= 13: along one axis (default -1). Before: the input is flattened
// to 2-D at `axis` (default 1) and normalized over the second dimension,
// which is Reshape → Softmax(axis 1) → Reshape unless axis is the last.
template <Op op>
void softmax(NodeContext& c) {
  c.onlyAttrs({"axis"});
  ValueId x = c.input(0);
  const Shape shape = c.type(x).shape;
  int64_t rank = int64_t(shape.size());
  int64_t axis = c.normAxis(c.attrInt("axis", c.opset >= 13 ? -1 : 1), rank);
  if (c.opset >= 13 || axis == rank - 1) return c.emitOutput(0, op, {x}, {{"axis", axis}});
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < rank; ++k) (k < axis ? outer : inner) *= shape[size_t(k)];
  ValueId flat = reshapeTo(c, x, {outer, inner});
  ValueId y = c.emit(op, {flat}, {{"axis", int64_t(1)}});
  c.emitOutput(0, Op::Reshape, {y}, {{"shape", shape}});
}

}  // namespace

ValueId convValue(NodeContext& c, ValueId x, ValueId wt, ValueId bias) {
  ConvNode n = prepareConv(c, x, wt, bias);
  ValueId y = c.emit(Op::Conv, n.inputs, n.attrs);
  if (!n.w.oneD) return y;
  Shape s = c.type(y).shape;
  s.erase(s.begin() + 2);
  return reshapeTo(c, y, s);
}

void addNnConverters(ConverterTable& t) {
  t[{"", "MatMul"}] = matmul;
  t[{"", "Gemm"}] = gemm;
  t[{"", "Conv"}] = conv;
  t[{"", "MaxPool"}] = maxPool;
  t[{"", "AveragePool"}] = averagePool;
  t[{"", "GlobalAveragePool"}] = globalPool<Op::ReduceMean>;
  t[{"", "GlobalMaxPool"}] = globalPool<Op::ReduceMax>;
  t[{"", "BatchNormalization"}] = batchNorm;
  t[{"", "LayerNormalization"}] = layerNorm;
  t[{"", "Softmax"}] = softmax<Op::Softmax>;
  t[{"", "LogSoftmax"}] = softmax<Op::LogSoftmax>;
}

}  // namespace mgc::onnximport
