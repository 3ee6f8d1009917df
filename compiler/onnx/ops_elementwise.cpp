// Elementwise ONNX ops: unary, binary, variadic chains, activations with
// attributes, Clip, Cast, identity-likes.
#include <limits>

#include "compiler/onnx/importer.h"
#include "compiler/onnx/tensor_proto.h"

namespace mgc::onnximport {

namespace {

template <Op op>
void unary(NodeContext& c) {
  c.onlyAttrs({});
  c.emitOutput(0, op, {c.input(0)});
}

template <Op op>
void binary(NodeContext& c) {
  // "broadcast"/"axis" belong to opset < 7, which the importer rejects.
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
  castTo(c, c.input(0), int32_t(c.attrInt("to")));
}

void castLike(NodeContext& c) {
  c.onlyAttrs({});
  static const int32_t kOnnxOf[] = {onnx::TensorProto::FLOAT, onnx::TensorProto::FLOAT16, onnx::TensorProto::DOUBLE,
                                    onnx::TensorProto::INT64, onnx::TensorProto::INT32,   onnx::TensorProto::INT8,
                                    onnx::TensorProto::UINT8, onnx::TensorProto::BOOL};
  static_assert(sizeof(kOnnxOf) / sizeof(kOnnxOf[0]) == size_t(kNumDTypes), "DType table out of sync");
  castTo(c, c.input(0), kOnnxOf[size_t(c.type(c.input(1)).dtype)]);
}

void identity(NodeContext& c) {
  c.onlyAttrs({});
  c.setOutput(0, c.input(0));
}

// Inference: Dropout is the identity; the mask output has no meaning here.
void dropout(NodeContext& c) {
  c.onlyAttrs({"ratio", "seed", "is_test"});
  if (c.opset >= 12 && c.hasInput(2)) {
    const HostTensor* training = c.constInput(2, "training_mode");
    if (training->numel() != 1 || training->getI(0) != 0) c.unsupported("training_mode is not supported");
  }
  c.requireUnused(1, "the dropout mask is not supported");
  c.setOutput(0, c.input(0));
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
