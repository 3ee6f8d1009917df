// ONNX ops that are short compositions of IR ops: activations (Softsign,
// Celu, Shrink, ThresholdedRelu), hyperbolic / trigonometric functions,
// IsInf / IsNaN, Mod, Hardmax, Trilu, EyeLike, normalizations
// (InstanceNormalization, LRN, MeanVarianceNormalization), DepthToSpace /
// SpaceToDepth, and helpers shared with the older converter files.
#include "compiler/onnx/ops_extra.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "compiler/onnx/tensor_proto.h"

namespace mgc::onnximport {

namespace {

DType dtypeOf(NodeContext& c, ValueId v) { return c.type(v).dtype; }

ValueId sc(NodeContext& c, ValueId like, double v) { return c.scalar(dtypeOf(c, like), v); }

ValueId sliceAxis(NodeContext& c, ValueId x, int64_t axis, int64_t start, int64_t end, int64_t step) {
  return c.im.sliceAxis(c.name, x, axis, start, end, step);
}

std::vector<int64_t> axesFrom(int64_t first, int64_t rank) {
  std::vector<int64_t> r;
  for (int64_t k = first; k < rank; ++k) r.push_back(k);
  return r;
}

// ---- activations ----

void softsign(NodeContext& c) {
  c.onlyAttrs({});
  ValueId x = c.input(0);
  c.emitOutput(0, Op::Div, {x, c.emit(Op::Add, {c.emit(Op::Abs, {x}), sc(c, x, 1.0)})});
}

// Celu(x) = alpha * Elu_1(x / alpha).
void celu(NodeContext& c) {
  c.onlyAttrs({"alpha"});
  ValueId x = c.input(0);
  double alpha = c.attrFloat("alpha", 1.0);
  if (alpha == 0) c.fail("alpha must not be 0");
  ValueId e = c.emit(Op::Elu, {c.emit(Op::Div, {x, sc(c, x, alpha)})}, {{"alpha", 1.0}});
  c.emitOutput(0, Op::Mul, {e, sc(c, x, alpha)});
}

void shrink(NodeContext& c) {
  c.onlyAttrs({"bias", "lambd"});
  ValueId x = c.input(0);
  double lambd = c.attrFloat("lambd", 0.5), bias = c.attrFloat("bias", 0.0);
  ValueId low = c.emit(Op::Less, {x, sc(c, x, -lambd)});
  ValueId high = c.emit(Op::Greater, {x, sc(c, x, lambd)});
  ValueId upper = c.emit(Op::Where, {high, c.emit(Op::Sub, {x, sc(c, x, bias)}), sc(c, x, 0.0)});
  c.emitOutput(0, Op::Where, {low, c.emit(Op::Add, {x, sc(c, x, bias)}), upper});
}

void thresholdedRelu(NodeContext& c) {
  c.onlyAttrs({"alpha"});
  ValueId x = c.input(0);
  ValueId keep = c.emit(Op::Greater, {x, sc(c, x, c.attrFloat("alpha", 1.0))});
  c.emitOutput(0, Op::Where, {keep, x, sc(c, x, 0.0)});
}

// ---- hyperbolic and trigonometric functions ----

void tan(NodeContext& c) {
  c.onlyAttrs({});
  ValueId x = c.input(0);
  c.emitOutput(0, Op::Div, {c.emit(Op::Sin, {x}), c.emit(Op::Cos, {x})});
}

// Sinh / Cosh = (e^x ∓ e^-x) / 2.
template <Op combine>
void hyperbolic(NodeContext& c) {
  c.onlyAttrs({});
  ValueId x = c.input(0);
  ValueId s = c.emit(combine, {c.emit(Op::Exp, {x}), c.emit(Op::Exp, {c.emit(Op::Neg, {x})})});
  c.emitOutput(0, Op::Mul, {s, sc(c, x, 0.5)});
}

// asinh(x) = sign(x) log(|x| + sqrt(x² + 1)): odd, and no cancellation for x < 0.
void asinh(NodeContext& c) {
  c.onlyAttrs({});
  ValueId x = c.input(0), a = c.emit(Op::Abs, {x});
  ValueId root = c.emit(Op::Sqrt, {c.emit(Op::Add, {c.emit(Op::Mul, {x, x}), sc(c, x, 1.0)})});
  c.emitOutput(0, Op::Mul, {c.emit(Op::Sign, {x}), c.emit(Op::Log, {c.emit(Op::Add, {a, root})})});
}

// acosh(x) = log(x + sqrt(x² - 1)).
void acosh(NodeContext& c) {
  c.onlyAttrs({});
  ValueId x = c.input(0);
  ValueId root = c.emit(Op::Sqrt, {c.emit(Op::Sub, {c.emit(Op::Mul, {x, x}), sc(c, x, 1.0)})});
  c.emitOutput(0, Op::Log, {c.emit(Op::Add, {x, root})});
}

// atanh(x) = log((1 + x) / (1 - x)) / 2.
void atanh(NodeContext& c) {
  c.onlyAttrs({});
  ValueId x = c.input(0), one = sc(c, x, 1.0);
  ValueId q = c.emit(Op::Div, {c.emit(Op::Add, {one, x}), c.emit(Op::Sub, {one, x})});
  c.emitOutput(0, Op::Mul, {c.emit(Op::Log, {q}), sc(c, x, 0.5)});
}

// asin(x) = atan(x / sqrt(1 - x²)); at |x| = 1 the quotient is ±inf and
// atan gives ±π/2. acos(x) = π/2 - asin(x).
ValueId asinOf(NodeContext& c, ValueId x) {
  ValueId root = c.emit(Op::Sqrt, {c.emit(Op::Sub, {sc(c, x, 1.0), c.emit(Op::Mul, {x, x})})});
  return c.emit(Op::Atan, {c.emit(Op::Div, {x, root})});
}

void asin(NodeContext& c) {
  c.onlyAttrs({});
  c.setOutput(0, asinOf(c, c.input(0)));
}

void acos(NodeContext& c) {
  c.onlyAttrs({});
  ValueId x = c.input(0);
  c.emitOutput(0, Op::Sub, {sc(c, x, 1.57079632679489661923), asinOf(c, x)});
}

void isInf(NodeContext& c) {
  c.onlyAttrs({"detect_negative", "detect_positive"});
  ValueId x = c.input(0);
  if (!isFloat(dtypeOf(c, x))) c.fail("expects a float input, got " + c.type(x).str());
  bool neg = c.attrInt("detect_negative", 1) != 0, pos = c.attrInt("detect_positive", 1) != 0;
  double inf = std::numeric_limits<double>::infinity();
  if (!neg && !pos) return c.emitOutput(0, Op::Equal, {x, sc(c, x, std::numeric_limits<double>::quiet_NaN())});
  if (!neg) return c.emitOutput(0, Op::Equal, {x, sc(c, x, inf)});
  if (!pos) return c.emitOutput(0, Op::Equal, {x, sc(c, x, -inf)});
  c.emitOutput(0, Op::Equal, {c.emit(Op::Abs, {x}), sc(c, x, inf)});
}

// NaN is the only value unequal to itself.
void isNaN(NodeContext& c) {
  c.onlyAttrs({});
  ValueId x = c.input(0);
  if (!isFloat(dtypeOf(c, x))) c.fail("expects a float input, got " + c.type(x).str());
  c.emitOutput(0, Op::Not, {c.emit(Op::Equal, {x, x})});
}

// fmod=1: x - y trunc(x / y) (C fmod; the only form for floats). fmod=0
// (integers): the remainder takes the divisor's sign, as Python's %.
void mod(NodeContext& c) {
  c.onlyAttrs({"fmod"});
  ValueId x = c.input(0), y = c.input(1);
  bool fmod = c.attrInt("fmod", 0) != 0;
  DType dt = dtypeOf(c, x);
  if (isFloat(dt) && !fmod) c.fail("fmod must be 1 for floating-point inputs");
  ValueId q = c.emit(Op::Div, {x, y});  // integers: toward zero
  if (isFloat(dt)) {
    ValueId negative = c.emit(Op::Less, {q, sc(c, q, 0.0)});
    q = c.emit(Op::Where, {negative, c.emit(Op::Ceil, {q}), c.emit(Op::Floor, {q})});
  }
  ValueId r = c.emit(Op::Sub, {x, c.emit(Op::Mul, {q, y})});
  const bool isUnsigned = dt == DType::U8 || dt == DType::U16 || dt == DType::U32 || dt == DType::U64;
  if (fmod || isUnsigned) return c.setOutput(0, r);
  ValueId zero = sc(c, r, 0.0);
  ValueId signsDiffer = c.emit(Op::Xor, {c.emit(Op::Less, {r, zero}), c.emit(Op::Less, {y, zero})});
  ValueId adjust = c.emit(Op::And, {c.emit(Op::Not, {c.emit(Op::Equal, {r, zero})}), signsDiffer});
  c.emitOutput(0, Op::Where, {adjust, c.emit(Op::Add, {r, y}), r});
}

// ---- index-pattern ops ----

// One-hot of the (first) maximum along `axis`: Equal(ArgMax, iota).
ValueId hardmaxAlong(NodeContext& c, ValueId x, int64_t axis) {
  const Shape s = c.type(x).shape;
  ValueId am = c.emit(Op::ArgMax, {x}, {{"axis", axis}, {"keepdims", int64_t(1)}});
  Shape is(s.size() - size_t(axis), 1);
  is[0] = s[size_t(axis)];
  HostTensor iota(TensorType{DType::I64, is});
  for (int64_t i = 0; i < is[0]; ++i) iota.setI(i, i);
  ValueId hit = c.emit(Op::Equal, {am, c.constant(std::move(iota))});
  return c.emit(Op::Cast, {hit}, {{"to", int64_t(dtypeOf(c, x))}});
}

// Opset >= 13: along `axis` (default -1); before, over the input flattened
// to 2-D at `axis` (default 1).
void hardmax(NodeContext& c) {
  c.onlyAttrs({"axis"});
  ValueId x = c.input(0);
  const Shape s = c.type(x).shape;
  int64_t rank = int64_t(s.size());
  int64_t axis = c.normAxis(c.attrInt("axis", c.opset >= 13 ? -1 : 1), rank);
  if (c.opset >= 13 || axis == rank - 1) return c.setOutput(0, reshapeTo(c, hardmaxAlong(c, x, axis), s));
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < rank; ++k) (k < axis ? outer : inner) *= s[size_t(k)];
  ValueId y = hardmaxAlong(c, reshapeTo(c, x, {outer, inner}), 1);
  c.emitOutput(0, Op::Reshape, {y}, {{"shape", s}});
}

// Where(mask, x, 0) with a constant [rows, cols] mask of the kept triangle.
void trilu(NodeContext& c) {
  c.onlyAttrs({"upper"});
  ValueId x = c.input(0);
  const Shape s = c.type(x).shape;
  if (s.size() < 2) c.fail("expects rank >= 2, got " + c.type(x).str());
  int64_t k = 0;
  if (const HostTensor* kt = c.constInput(1, "k")) {
    if (kt->numel() != 1) c.fail("k must be a scalar");
    k = kt->getI(0);
  }
  bool upper = c.attrInt("upper", 1) != 0;
  int64_t rows = s[s.size() - 2], cols = s[s.size() - 1];
  HostTensor mask(TensorType{DType::Bool, {rows, cols}});
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) mask.setI(i * cols + j, upper ? j - i >= k : j - i <= k);
  c.emitOutput(0, Op::Where, {c.constant(std::move(mask)), x, sc(c, x, 0.0)});
}

void eyeLike(NodeContext& c) {
  c.onlyAttrs({"dtype", "k"});
  const TensorType t = c.type(c.input(0));
  if (t.rank() != 2) c.fail("expects a 2-D input, got " + t.str());
  DType dt = t.dtype;
  if (c.hasAttr("dtype") && !dtypeFromOnnx(int32_t(c.attrInt("dtype")), &dt))
    c.unsupported(std::string("dtype ") + onnxTypeName(int32_t(c.attrInt("dtype"))) + " is not supported");
  int64_t k = c.attrInt("k", 0), rows = t.shape[0], cols = t.shape[1];
  HostTensor eye(TensorType{dt, t.shape});
  for (int64_t i = 0; i < rows; ++i)
    if (i + k >= 0 && i + k < cols) eye.setF(i * cols + i + k, 1.0);
  c.setOutputConstant(0, std::move(eye));
}

// ---- normalizations ----

// Per (n, c) over the spatial axes: (x - mean) / sqrt(var + eps) * scale + bias.
void instanceNorm(NodeContext& c) {
  c.onlyAttrs({"epsilon"});
  ValueId x = c.input(0), scale = c.input(1), bias = c.input(2);
  const Shape s = c.type(x).shape;
  if (s.size() < 3) c.fail("expects rank >= 3, got " + c.type(x).str());
  ValueId normalized = c.im.normalize(c.name, x, axesFrom(2, int64_t(s.size())), c.attrFloat("epsilon", 1e-5)).normalized;
  Shape perChannel(s.size() - 1, 1);
  perChannel[0] = s[1];
  ValueId y = c.emit(Op::Mul, {normalized, reshapeTo(c, scale, perChannel)});
  c.emitOutput(0, Op::Add, {y, reshapeTo(c, bias, perChannel)});
}

// Across channels: x / (bias + alpha/size · Σ x² over `size` neighbours)^beta;
// the windowed sum is a Conv with a ones kernel over [N, 1, C, rest].
void lrn(NodeContext& c) {
  c.onlyAttrs({"alpha", "beta", "bias", "size"});
  ValueId x = c.input(0);
  const Shape s = c.type(x).shape;
  if (s.size() < 3 || !isFloat(dtypeOf(c, x))) c.fail("expects a float input of rank >= 3, got " + c.type(x).str());
  int64_t size = c.attrInt("size");
  if (size <= 0) c.fail("size must be positive");
  int64_t rest = 1;
  for (size_t k = 2; k < s.size(); ++k) rest *= s[k];
  ValueId sq = reshapeTo(c, c.emit(Op::Mul, {x, x}), {s[0], 1, s[1], rest});
  HostTensor ones(TensorType{dtypeOf(c, x), {1, 1, size, 1}});
  for (int64_t i = 0; i < size; ++i) ones.setF(i, 1.0);
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  ValueId sum = c.emit(Op::Conv, {sq, c.constant(std::move(ones))},
                       {{"strides", std::vector<int64_t>{1, 1}}, {"pads", std::vector<int64_t>{before, 0, after, 0}},
                        {"dilations", std::vector<int64_t>{1, 1}}, {"group", int64_t(1)}});
  sum = reshapeTo(c, sum, s);
  ValueId base = c.emit(Op::Add, {c.emit(Op::Mul, {sum, sc(c, x, c.attrFloat("alpha", 1e-4) / double(size))}),
                                  sc(c, x, c.attrFloat("bias", 1.0))});
  c.emitOutput(0, Op::Div, {x, c.emit(Op::Pow, {base, sc(c, x, c.attrFloat("beta", 0.75))})});
}

// (x - E[x]) / (sqrt(E[x²] - E[x]²) + 1e-9), as ONNX's function body.
void meanVarianceNorm(NodeContext& c) {
  c.onlyAttrs({"axes"});
  ValueId x = c.input(0);
  int64_t rank = c.type(x).rank();
  std::vector<int64_t> axes;
  for (int64_t a : c.attrInts("axes", std::vector<int64_t>{0, 2, 3})) axes.push_back(c.normAxis(a, rank));
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  Attrs red{{"axes", axes}, {"keepdims", int64_t(1)}};
  ValueId mean = c.emit(Op::ReduceMean, {x}, red);
  ValueId meanSq = c.emit(Op::ReduceMean, {c.emit(Op::Mul, {x, x})}, red);
  ValueId stdev = c.emit(Op::Sqrt, {c.emit(Op::Sub, {meanSq, c.emit(Op::Mul, {mean, mean})})});
  c.emitOutput(0, Op::Div, {c.emit(Op::Sub, {x, mean}), c.emit(Op::Add, {stdev, sc(c, x, 1e-9)})});
}

// ---- layout ----

ValueId permute(NodeContext& c, ValueId x, const Shape& split, std::vector<int64_t> perm, const Shape& out) {
  ValueId t = c.emit(Op::Transpose, {reshapeTo(c, x, split)}, {{"perm", std::move(perm)}});
  return reshapeTo(c, t, out);
}

void depthToSpace(NodeContext& c) {
  c.onlyAttrs({"blocksize", "mode"});
  ValueId x = c.input(0);
  const Shape s = c.type(x).shape;
  int64_t b = c.attrInt("blocksize");
  if (s.size() != 4 || b <= 0 || s[1] % (b * b)) c.fail("expects [N, C, H, W] with C divisible by blocksize², got " + c.type(x).str());
  std::string mode = c.attrString("mode", "DCR");
  int64_t n = s[0], ch = s[1] / (b * b), h = s[2], w = s[3];
  Shape out{n, ch, h * b, w * b};
  if (mode == "DCR") return c.setOutput(0, permute(c, x, {n, b, b, ch, h, w}, {0, 3, 4, 1, 5, 2}, out));
  if (mode == "CRD") return c.setOutput(0, permute(c, x, {n, ch, b, b, h, w}, {0, 1, 4, 2, 5, 3}, out));
  c.fail("mode must be DCR or CRD, got '" + mode + "'");
}

void spaceToDepth(NodeContext& c) {
  c.onlyAttrs({"blocksize"});
  ValueId x = c.input(0);
  const Shape s = c.type(x).shape;
  int64_t b = c.attrInt("blocksize");
  if (s.size() != 4 || b <= 0 || s[2] % b || s[3] % b) c.fail("expects [N, C, H, W] with H, W divisible by blocksize, got " + c.type(x).str());
  int64_t n = s[0], ch = s[1], h = s[2] / b, w = s[3] / b;
  c.setOutput(0, permute(c, x, {n, ch, h, b, w, b}, {0, 3, 5, 1, 2, 4}, {n, ch * b * b, h, w}));
}

// ---- ConvTranspose ----

// The transposed convolution is the input gradient of the convolution whose
// weight is W [Cin, Cout/group, k...]: ConvGradInput(x, W) with the output
// shape that ConvTranspose defines. An output larger than the full result
// (negative pads) gets zero rows (plus bias) by a Pad; output_padding past
// the stride is refused.
void convTranspose(NodeContext& c) {
  c.onlyAttrs({"auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape", "pads", "strides"});
  ValueId x = c.input(0), w = c.input(1), bias = c.optInput(2);
  const TensorType xt = c.type(x), wt = c.type(w);
  if (xt.rank() < 3 || wt.rank() != xt.rank())
    c.fail("input " + xt.str() + " and weight " + wt.str() + " must have the same rank >= 3");
  size_t n = size_t(xt.rank() - 2);
  if (n > 2) c.unsupported(std::to_string(n) + "-D windows are not supported (1-D and 2-D only)");
  if (!isFloat(xt.dtype)) c.unsupported("ConvTranspose of " + xt.str() + " is not supported (floats only)");
  int64_t group = c.attrInt("group", 1);
  if (group <= 0 || xt.shape[1] != wt.shape[0] || wt.shape[0] % group)
    c.fail("input " + xt.str() + " does not match weight " + wt.str() + " with group " + std::to_string(group));
  std::vector<int64_t> kernel(wt.shape.begin() + 2, wt.shape.end());
  if (c.hasAttr("kernel_shape") && c.attrInts("kernel_shape") != kernel) c.fail("kernel_shape does not match the weight " + wt.str());
  std::vector<int64_t> ones(n, 1), zeros(n, 0);
  std::vector<int64_t> strides = c.attrInts("strides", ones), dil = c.attrInts("dilations", ones);
  std::vector<int64_t> outPad = c.attrInts("output_padding", zeros), pads = c.attrInts("pads", std::vector<int64_t>(2 * n, 0));
  if (strides.size() != n || dil.size() != n || outPad.size() != n || pads.size() != 2 * n)
    c.fail("strides/dilations/output_padding/pads do not match " + std::to_string(n) + " spatial axes");
  std::string autoPad = c.attrString("auto_pad", "NOTSET");
  std::vector<int64_t> outShape;
  if (c.hasAttr("output_shape")) {
    outShape = c.attrInts("output_shape");
    if (outShape.size() == n + 2) outShape.erase(outShape.begin(), outShape.begin() + 2);
    if (outShape.size() != n) c.fail("output_shape has " + std::to_string(outShape.size()) + " entries");
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t k = 0; k < n; ++k) outShape.push_back(xt.shape[2 + k] * strides[k]);
  } else if (autoPad == "VALID") {
    pads.assign(2 * n, 0);
  } else if (autoPad != "NOTSET") {
    c.fail("auto_pad '" + autoPad + "' is not valid");
  }
  Shape spatial(n);
  std::vector<int64_t> grow(2 * n, 0);  // zero rows beyond the full result: [begins, ends]
  for (size_t k = 0; k < n; ++k) {
    if (strides[k] <= 0 || dil[k] <= 0) c.fail("strides and dilations must be positive");
    if (outPad[k] < 0 || outPad[k] >= strides[k]) c.unsupported("output_padding past the stride is not supported");
    int64_t full = strides[k] * (xt.shape[2 + k] - 1) + outPad[k] + (kernel[k] - 1) * dil[k] + 1;
    if (!outShape.empty()) {  // pads follow from the requested size
      int64_t total = full - outShape[k];
      int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);  // floor, as the spec's Python
      bool upper = autoPad == "SAME_UPPER";
      pads[k] = upper ? half : total - half;
      pads[k + n] = total - pads[k];
    }
    if (pads[k] < 0) grow[k] = -pads[k], pads[k] = 0;
    if (pads[k + n] < 0) grow[k + n] = -pads[k + n], pads[k + n] = 0;
    spatial[k] = full - pads[k] - pads[k + n];
    if (spatial[k] <= 0) c.fail("output would be empty");
  }
  bool oneD = n == 1;
  if (oneD) {
    x = reshapeTo(c, x, {xt.shape[0], xt.shape[1], 1, xt.shape[2]});
    w = reshapeTo(c, w, {wt.shape[0], wt.shape[1], 1, wt.shape[2]});
    strides = {1, strides[0]};
    dil = {1, dil[0]};
    pads = {0, pads[0], 0, pads[1]};
    grow = {0, grow[0], 0, grow[1]};
    spatial.insert(spatial.begin(), 1);
  }
  int64_t cout = wt.shape[1] * group;
  Shape dx{xt.shape[0], cout, spatial[0], spatial[1]};
  ValueId y = c.emit(Op::ConvGradInput, {x, w},
                     {{"strides", strides}, {"pads", pads}, {"dilations", dil}, {"group", group}, {"shape", dx}});
  if (std::any_of(grow.begin(), grow.end(), [](int64_t g) { return g != 0; })) {
    y = c.emit(Op::Pad, {y}, {{"pads", std::vector<int64_t>{0, 0, grow[0], grow[1], 0, 0, grow[2], grow[3]}}, {"value", 0.0}});
    dx = c.type(y).shape;
  }
  if (bias != kNoValue) y = c.emit(Op::Add, {y, reshapeTo(c, bias, {cout, 1, 1})});
  Shape out = dx;
  if (oneD) out.erase(out.begin() + 2);
  c.setOutput(0, reshapeTo(c, y, out));
}

}  // namespace

ValueId reverseAxis(NodeContext& c, ValueId x, int64_t axis) { return c.im.reverseAxis(c.name, x, axis); }

ValueId argMaxLast(NodeContext& c, ValueId x, int64_t axis, int64_t keepdims) {
  int64_t dim = c.type(x).shape[size_t(axis)];
  ValueId first = c.emit(Op::ArgMax, {reverseAxis(c, x, axis)}, {{"axis", axis}, {"keepdims", keepdims}});
  return c.emit(Op::Sub, {c.scalar(DType::I64, double(dim - 1)), first});
}

ValueId padByMode(NodeContext& c, ValueId x, const std::vector<int64_t>& pads, const std::string& mode) {
  if (mode != "reflect" && mode != "edge") c.unsupported("mode '" + mode + "' is not supported");
  size_t rank = pads.size() / 2;
  for (size_t a = 0; a < rank; ++a) {
    int64_t before = pads[a], after = pads[a + rank], dim = c.type(x).shape[a];
    if (before < 0 || after < 0) {  // crop first
      int64_t lo = std::max<int64_t>(0, -before), hi = dim - std::max<int64_t>(0, -after);
      if (hi < lo) c.fail("negative pads remove more than axis " + std::to_string(a) + " holds");
      x = sliceAxis(c, x, int64_t(a), lo, hi, 1);
      dim = hi - lo;
      before = std::max<int64_t>(0, before);
      after = std::max<int64_t>(0, after);
    }
    if (before == 0 && after == 0) continue;
    if (dim == 0) c.fail("cannot pad an empty axis in mode '" + mode + "'");
    std::vector<ValueId> parts;
    if (mode == "reflect") {
      if (before >= dim || after >= dim)
        c.unsupported("reflect pads of " + std::to_string(std::max(before, after)) + " on an axis of " + std::to_string(dim) +
                      " are not supported");
      if (before) parts.push_back(sliceAxis(c, x, int64_t(a), before, 0, -1));
      parts.push_back(x);
      if (after) parts.push_back(sliceAxis(c, x, int64_t(a), dim - 2, dim - 2 - after, -1));
    } else {
      auto edge = [&](int64_t at, int64_t count) {
        Shape s = c.type(x).shape;
        s[a] = count;
        return c.emit(Op::Expand, {sliceAxis(c, x, int64_t(a), at, at + 1, 1)}, {{"shape", s}});
      };
      if (before) parts.push_back(edge(0, before));
      parts.push_back(x);
      if (after) parts.push_back(edge(dim - 1, after));
    }
    x = c.emit(Op::Concat, parts, {{"axis", int64_t(a)}});
  }
  return x;
}

void batchNormTraining(NodeContext& c) {
  ValueId x = c.input(0), scale = c.input(1), bias = c.input(2), runMean = c.input(3), runVar = c.input(4);
  const Shape s = c.type(x).shape;
  if (s.size() < 2) c.fail("expects rank >= 2, got " + c.type(x).str());
  std::vector<int64_t> axes{0};
  for (int64_t k = 2; k < int64_t(s.size()); ++k) axes.push_back(k);
  GraphBuilder::Normalized n = c.im.normalize(c.name, x, axes, c.attrFloat("epsilon", 1e-5));
  const ValueId mean = n.mean, var = n.variance;  // population variance
  Shape perChannel(s.size() - 1, 1);
  perChannel[0] = s[1];
  // y = x * gain + shift with per-channel gain = scale / std and shift =
  // bias - mean * gain: one pass over x, and a gradient with few full-size
  // tensors (as passes/program/training.cpp's rewrite of BatchNorm).
  ValueId gain = c.emit(Op::Mul, {reshapeTo(c, scale, perChannel), n.invStd});
  ValueId shift = c.emit(Op::Sub, {reshapeTo(c, bias, perChannel), c.emit(Op::Mul, {mean, gain})});
  c.emitOutput(0, Op::Add, {c.emit(Op::Mul, {x, gain}), shift});
  double momentum = c.attrFloat("momentum", 0.9);
  auto running = [&](int k, ValueId old, ValueId current) {
    if (!c.outputUsed(k)) return;
    ValueId cur = reshapeTo(c, current, {s[1]});
    ValueId kept = c.emit(Op::Mul, {old, sc(c, old, momentum)});
    c.emitOutput(k, Op::Add, {kept, c.emit(Op::Mul, {cur, sc(c, cur, 1.0 - momentum)})});
  };
  running(1, runMean, mean);
  running(2, runVar, var);
}

void layerNormStatistics(NodeContext& c, ValueId x, int64_t axis, double epsilon) {
  if (!c.outputUsed(1) && !c.outputUsed(2)) return;
  if (dtypeOf(c, x) != DType::F32) x = c.emit(Op::Cast, {x}, {{"to", int64_t(DType::F32)}});
  Attrs red{{"axes", axesFrom(axis, c.type(x).rank())}, {"keepdims", int64_t(1)}};
  ValueId mean = c.emit(Op::ReduceMean, {x}, red);
  if (c.numOutputs() > 1) c.setOutput(1, mean);
  if (!c.outputUsed(2)) return;
  ValueId d = c.emit(Op::Sub, {x, mean});
  ValueId var = c.emit(Op::ReduceMean, {c.emit(Op::Mul, {d, d})}, red);
  c.emitOutput(2, Op::Reciprocal, {c.emit(Op::Sqrt, {c.emit(Op::Add, {var, c.scalar(DType::F32, epsilon)})})});
}

void addExtraConverters(ConverterTable& t) {
  t[{"", "Softsign"}] = softsign;
  t[{"", "Celu"}] = celu;
  t[{"", "Shrink"}] = shrink;
  t[{"", "ThresholdedRelu"}] = thresholdedRelu;
  t[{"", "Tan"}] = tan;
  t[{"", "Sinh"}] = hyperbolic<Op::Sub>;
  t[{"", "Cosh"}] = hyperbolic<Op::Add>;
  t[{"", "Asinh"}] = asinh;
  t[{"", "Acosh"}] = acosh;
  t[{"", "Atanh"}] = atanh;
  t[{"", "Asin"}] = asin;
  t[{"", "Acos"}] = acos;
  t[{"", "IsInf"}] = isInf;
  t[{"", "IsNaN"}] = isNaN;
  t[{"", "Mod"}] = mod;
  t[{"", "Hardmax"}] = hardmax;
  t[{"", "Trilu"}] = trilu;
  t[{"", "EyeLike"}] = eyeLike;
  t[{"", "InstanceNormalization"}] = instanceNorm;
  t[{"", "LRN"}] = lrn;
  t[{"", "MeanVarianceNormalization"}] = meanVarianceNorm;
  t[{"", "DepthToSpace"}] = depthToSpace;
  t[{"", "SpaceToDepth"}] = spaceToDepth;
  t[{"", "ConvTranspose"}] = convTranspose;
}

}  // namespace mgc::onnximport
