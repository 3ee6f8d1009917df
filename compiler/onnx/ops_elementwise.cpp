// Elementwise ONNX ops: unary, binary, variadic chains, activations with
// attributes, Clip, Cast, identity-likes.
#include <limits>

#include <cstdio>

#include "compiler/onnx/importer.h"
#include "compiler/onnx/tensor_proto.h"

namespace mgc::onnximport {

namespace {

template <Op op>
void unary(NodeContext& c) {
  c.onlyAttrs({});
  c.emitOutput(0, op, {c.input(0)});
}

// Opsets < 7: B broadcasts to A only when broadcast=1, its axes lined up
// with A's from `axis` (default: the trailing axes). Reshaping B to A's rank
// with trailing 1s turns that into numpy broadcasting.
ValueId legacyBroadcastOperand(NodeContext& c) {
  ValueId a = c.input(0), b = c.input(1);
  const Shape sa = c.type(a).shape, sb = c.type(b).shape;
  if (c.attrInt("broadcast", 0) == 0) {
    if (sa != sb) c.fail("shapes " + c.type(a).str() + " and " + c.type(b).str() + " differ and broadcast is not set");
    return b;
  }
  int64_t ra = int64_t(sa.size()), rb = int64_t(sb.size());
  if (rb > ra) c.fail("B " + c.type(b).str() + " has a higher rank than A " + c.type(a).str());
  int64_t axis = c.hasAttr("axis") ? c.attrInt("axis") : ra - rb;
  if (axis < 0) axis += ra;
  if (axis < 0 || axis + rb > ra) c.fail("axis " + std::to_string(c.attrInt("axis")) + " does not fit B " + c.type(b).str());
  Shape t = sb;
  for (int64_t k = 0; k < rb; ++k)
    if (sb[size_t(k)] != 1 && sb[size_t(k)] != sa[size_t(axis + k)])
      c.fail("B " + c.type(b).str() + " does not broadcast to A " + c.type(a).str() + " at axis " + std::to_string(axis));
  t.resize(size_t(ra - axis), 1);
  return reshapeTo(c, b, t);
}

template <Op op>
void binary(NodeContext& c) {
  if (c.opset < 7) {
    c.onlyAttrs({"broadcast", "axis"});
    return c.emitOutput(0, op, {c.input(0), legacyBroadcastOperand(c)});
  }
  c.onlyAttrs({});
  c.emitOutput(0, op, {c.input(0), c.input(1)});
}

// Max / Min / Sum with any number of inputs: a left-to-right chain.
template <Op op>
void variadic(NodeContext& c) {
  c.onlyAttrs({});
  int n = c.numInputs();
  if (n == 1) return c.setOutput(0, c.input(0));
  ValueId acc = c.input(0);
  for (int k = 1; k < n - 1; ++k) acc = c.emit(op, {acc, c.input(k)});
  c.emitOutput(0, op, {acc, c.input(n - 1)});
}

void mean(NodeContext& c) {
  c.onlyAttrs({});
  int n = c.numInputs();
  ValueId acc = c.input(0);
  for (int k = 1; k < n; ++k) acc = c.emit(Op::Add, {acc, c.input(k)});
  c.emitOutput(0, Op::Div, {acc, c.scalar(c.type(acc).dtype, n)});
}

void where(NodeContext& c) {
  c.onlyAttrs({});
  c.emitOutput(0, Op::Where, {c.input(0), c.input(1), c.input(2)});
}

void leakyRelu(NodeContext& c) {
  c.onlyAttrs({"alpha"});
  c.emitOutput(0, Op::LeakyRelu, {c.input(0)}, {{"alpha", c.attrFloat("alpha", 0.01)}});
}

void elu(NodeContext& c) {
  c.onlyAttrs({"alpha"});
  c.emitOutput(0, Op::Elu, {c.input(0)}, {{"alpha", c.attrFloat("alpha", 1.0)}});
}

// Selu(x) = gamma * Elu_alpha(x).
void selu(NodeContext& c) {
  c.onlyAttrs({"alpha", "gamma"});
  ValueId x = c.input(0);
  ValueId e = c.emit(Op::Elu, {x}, {{"alpha", c.attrFloat("alpha", 1.67326319217681884765625)}});
  c.emitOutput(0, Op::Mul, {e, c.scalar(c.type(x).dtype, c.attrFloat("gamma", 1.05070102214813232421875))});
}

void hardSigmoid(NodeContext& c) {
  c.onlyAttrs({"alpha", "beta"});
  c.emitOutput(0, Op::HardSigmoid, {c.input(0)},
               {{"alpha", c.attrFloat("alpha", 0.2)}, {"beta", c.attrFloat("beta", 0.5)}});
}

// PRelu(x, slope) = x < 0 ? x * slope : x.
void prelu(NodeContext& c) {
  c.onlyAttrs({});
  ValueId x = c.input(0), slope = c.input(1);
  // Opsets < 7: a 1-D slope of C entries is per channel (axis 1).
  const Shape xs = c.type(x).shape, ss = c.type(slope).shape;
  if (c.opset < 7 && ss.size() == 1 && ss[0] != 1 && xs.size() >= 2 && xs[1] == ss[0]) {
    Shape perChannel(xs.size() - 1, 1);
    perChannel[0] = ss[0];
    slope = reshapeTo(c, slope, perChannel);
  }
  ValueId negative = c.emit(Op::Less, {x, c.scalar(c.type(x).dtype, 0)});
  ValueId scaled = c.emit(Op::Mul, {x, slope});
  c.emitOutput(0, Op::Where, {negative, scaled, x});
}

// Bounds: attributes before opset 11, optional scalar inputs after; an
// absent bound is infinite.
void clip(NodeContext& c) {
  double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
  if (c.opset < 11) {
    c.onlyAttrs({"min", "max"});
    lo = c.attrFloat("min", lo);
    hi = c.attrFloat("max", hi);
  } else {
    c.onlyAttrs({});
    // Bounds computed at run time: max(x, min) then min(·, max), as Clip-11 defines.
    bool dynamic = false;
    for (int k = 1; k < 3; ++k) dynamic = dynamic || (c.hasInput(k) && !c.im.g.value(c.input(k)).isConstant());
    if (dynamic) {
      ValueId y = c.input(0);
      if (c.hasInput(1)) y = c.emit(Op::Max, {y, c.input(1)});
      if (c.hasInput(2)) y = c.emit(Op::Min, {y, c.input(2)});
      return c.setOutput(0, y);
    }
    auto bound = [&](int k, const char* what, double def) {
      const HostTensor* t = c.constInput(k, what);
      if (!t) return def;
      if (t->numel() != 1) c.fail(std::string(what) + " must be a scalar, got " + t->type.str());
      return t->getF(0);
    };
    lo = bound(1, "min", lo);
    hi = bound(2, "max", hi);
  }
  c.emitOutput(0, Op::Clip, {c.input(0)}, {{"min", lo}, {"max", hi}});
}

// Gelu: default domain (opset 20, accepted early) and com.microsoft.
void gelu(NodeContext& c) {
  c.onlyAttrs({"approximate"});
  std::string approx = c.attrString("approximate", "none");
  if (approx != "none" && approx != "tanh") c.fail("approximate must be 'none' or 'tanh', got '" + approx + "'");
  c.emitOutput(0, Op::Gelu, {c.input(0)}, {{"approximate", int64_t(approx == "tanh" ? 1 : 0)}});
}

void castTo(NodeContext& c, ValueId x, int32_t onnxType) {
  DType to;
  if (!dtypeFromOnnx(onnxType, &to)) c.unsupported(std::string("cast to ") + onnxTypeName(onnxType) + " is not supported");
  if (c.type(x).dtype == to) return c.setOutput(0, x);
  c.emitOutput(0, Op::Cast, {x}, {{"to", int64_t(to)}});
}

void cast(NodeContext& c) {
  c.onlyAttrs({"to"});
  if (c.opset < 6) {  // Cast-1 names the type as a string ("FLOAT")
    onnx::TensorProto::DataType t;
    std::string name = c.attrString("to");
    if (!onnx::TensorProto::DataType_Parse(name, &t)) c.fail("'to' names no ONNX type: '" + name + "'");
    return castTo(c, c.input(0), int32_t(t));
  }
  castTo(c, c.input(0), int32_t(c.attrInt("to")));
}

void castLike(NodeContext& c) {
  c.onlyAttrs({});
  static const int32_t kOnnxOf[] = {onnx::TensorProto::FLOAT, onnx::TensorProto::FLOAT16, onnx::TensorProto::DOUBLE,
                                    onnx::TensorProto::INT64, onnx::TensorProto::INT32,   onnx::TensorProto::INT8,
                                    onnx::TensorProto::UINT8, onnx::TensorProto::BOOL,  onnx::TensorProto::BFLOAT16,
                                    onnx::TensorProto::INT16, onnx::TensorProto::UINT16, onnx::TensorProto::UINT32,
                                    onnx::TensorProto::UINT64};
  static_assert(sizeof(kOnnxOf) / sizeof(kOnnxOf[0]) == size_t(kNumDTypes), "DType table out of sync");
  castTo(c, c.input(0), kOnnxOf[size_t(c.type(c.input(1)).dtype)]);
}

void identity(NodeContext& c) {
  c.onlyAttrs({});
  c.setOutput(0, c.input(0));
}

// Dropout with ratio 0, or outside training mode, is the identity (its
// mask all true). Training imports (ImportOptions::keepParameters) keep a
// Dropout whose ratio is > 0 as a marker, Identity{dropout_ratio}, whatever
// its training_mode (a TRAINING-mode export sets it; an EVAL one does not):
// passes/program/training.cpp makes it x * dropout_mask in train_step and a
// plain identity in infer. An inference import of a Dropout that is random
// (training_mode true, ratio > 0) is refused: its output is random.
void dropout(NodeContext& c) {
  c.onlyAttrs({"ratio", "seed", "is_test"});
  double ratio = 0.5;
  if (c.opset < 12) {
    ratio = c.attrFloat("ratio", 0.5);
  } else if (c.hasInput(1) && (c.im.keepParameters || c.im.g.value(c.input(1)).isConstant())) {
    // (a run-time ratio keeps the default 0.5: it matters only in training mode, refused below)
    const HostTensor* r = c.constInput(1, "ratio");
    if (r->numel() != 1) c.fail("ratio must be a scalar");
    ratio = r->getF(0);
  }
  bool trainingMode = false;
  if (c.opset >= 12 && c.hasInput(2)) {
    const HostTensor* training = c.constInput(2, "training_mode");
    if (training->numel() != 1) c.fail("training_mode must be a scalar");
    trainingMode = training->getI(0) != 0;
  }
  if (ratio > 0 && c.im.keepParameters) {
    if (!(ratio < 1)) c.unsupported("training dropout needs a ratio in [0, 1)");
    c.requireUnused(1, "the mask of a training-mode Dropout is random and not exposed");
    c.emitOutput(0, Op::Identity, {c.input(0)}, {{"dropout_ratio", ratio}});
    return;
  }
  if (trainingMode && ratio > 0)
  {
    char r[32];
    std::snprintf(r, sizeof r, "%g", ratio);
    c.unsupported(std::string("a Dropout with training_mode true (ratio ") + r +
                  ") is random, so not supported for inference: compile with --train, or export the model in eval mode");
  }
  c.setOutput(0, c.input(0));
  if (c.outputUsed(1)) {  // the identity keeps every element: an all-true mask (of x's type before opset 10)
    HostTensor mask(TensorType{c.opset >= 10 ? DType::Bool : c.type(c.input(0)).dtype, c.type(c.input(0)).shape});
    for (int64_t i = 0; i < mask.numel(); ++i) mask.setF(i, 1.0);
    c.setOutputConstant(1, std::move(mask));
  }
}

}  // namespace

void addElementwiseConverters(ConverterTable& t) {
  t[{"", "Neg"}] = unary<Op::Neg>;
  t[{"", "Abs"}] = unary<Op::Abs>;
  t[{"", "Exp"}] = unary<Op::Exp>;
  t[{"", "Log"}] = unary<Op::Log>;
  t[{"", "Sqrt"}] = unary<Op::Sqrt>;
  t[{"", "Reciprocal"}] = unary<Op::Reciprocal>;
  t[{"", "Relu"}] = unary<Op::Relu>;
  t[{"", "Sigmoid"}] = unary<Op::Sigmoid>;
  t[{"", "Tanh"}] = unary<Op::Tanh>;
  t[{"", "Erf"}] = unary<Op::Erf>;
  t[{"", "Floor"}] = unary<Op::Floor>;
  t[{"", "Ceil"}] = unary<Op::Ceil>;
  t[{"", "Round"}] = unary<Op::Round>;
  t[{"", "Sin"}] = unary<Op::Sin>;
  t[{"", "Cos"}] = unary<Op::Cos>;
  t[{"", "Atan"}] = unary<Op::Atan>;
  t[{"", "Sign"}] = unary<Op::Sign>;
  t[{"", "Not"}] = unary<Op::Not>;
  t[{"", "Softplus"}] = unary<Op::Softplus>;
  t[{"", "HardSwish"}] = unary<Op::HardSwish>;
  t[{"", "Add"}] = binary<Op::Add>;
  t[{"", "Sub"}] = binary<Op::Sub>;
  t[{"", "Mul"}] = binary<Op::Mul>;
  t[{"", "Div"}] = binary<Op::Div>;
  t[{"", "Pow"}] = binary<Op::Pow>;
  t[{"", "Equal"}] = binary<Op::Equal>;
  t[{"", "Less"}] = binary<Op::Less>;
  t[{"", "LessOrEqual"}] = binary<Op::LessOrEqual>;
  t[{"", "Greater"}] = binary<Op::Greater>;
  t[{"", "GreaterOrEqual"}] = binary<Op::GreaterOrEqual>;
  t[{"", "And"}] = binary<Op::And>;
  t[{"", "Or"}] = binary<Op::Or>;
  t[{"", "Xor"}] = binary<Op::Xor>;
  t[{"", "Max"}] = variadic<Op::Max>;
  t[{"", "Min"}] = variadic<Op::Min>;
  t[{"", "Sum"}] = variadic<Op::Add>;
  t[{"", "Mean"}] = mean;
  t[{"", "Where"}] = where;
  t[{"", "LeakyRelu"}] = leakyRelu;
  t[{"", "Elu"}] = elu;
  t[{"", "Selu"}] = selu;
  t[{"", "HardSigmoid"}] = hardSigmoid;
  t[{"", "PRelu"}] = prelu;
  t[{"", "Clip"}] = clip;
  t[{"", "Gelu"}] = gelu;
  t[{"com.microsoft", "Gelu"}] = gelu;
  t[{"", "Cast"}] = cast;
  t[{"", "CastLike"}] = castLike;
  t[{"", "Identity"}] = identity;
  t[{"", "Dropout"}] = dropout;
}

}  // namespace mgc::onnximport
