// Integer MatMul and Conv with zero points: MatMulInteger, ConvInteger
// (int32 results) and QLinearMatMul, QLinearConv (requantized to u8 / i8).
//
// The operands are shifted by their zero points in f32, which holds every
// 8-bit difference (|v - zp| <= 255) exactly, and multiplied with the f32
// MatMul / Conv: a sum of at most kExactTerms such products stays below 2^24,
// so each partial sum is an exact integer whatever the order of additions.
// Longer sums are split (MatMul along K, Conv along input channels) and the
// exact partial sums added as int32:
//
//   acc = sum_chunks cast<i32>(matmul(a[..., chunk] - a_zp, b[chunk, :] - b_zp))
//   QLinear*: y = saturate(round_half_even(f32(acc) · (a_scale · b_scale / y_scale)) + y_zp)
//
// as onnx's reference computes them (int32 accumulation, then float scaling).
#include <algorithm>
#include <utility>

#include "compiler/onnx/ops_extra.h"

namespace mgc::onnximport {

namespace {

// 255 · 255 · kExactTerms < 2^24.
constexpr int64_t kExactTerms = 258;
// At most this many partial products per node.
constexpr int64_t kMaxChunks = 64;

bool isByte(DType t) { return t == DType::U8 || t == DType::I8; }

void requireByte(NodeContext& c, ValueId v, const char* what) {
  if (!isByte(c.type(v).dtype))
    c.unsupported(std::string(what) + " of " + c.type(v).str() + " is not supported (uint8 / int8 only)");
}

// A zero point or scale that is a scalar or a one-element tensor, or a
// vector of `dim` entries along axis `axis` of a rank-`rank` operand
// (reshaped to broadcast there).
ValueId alongAxis(NodeContext& c, ValueId p, int64_t axis, int64_t rank, int64_t dim, const char* what) {
  const Shape s = c.type(p).shape;
  if (c.type(p).numel() == 1) return reshapeTo(c, p, {});
  if (s.size() != 1 || s[0] != dim || axis < 0)
    c.fail(std::string(what) + " must be a scalar or hold " + std::to_string(dim) + " values, got " + c.type(p).str());
  Shape b(size_t(rank - axis), 1);
  b[0] = dim;
  return reshapeTo(c, p, b);
}

// v - zp in f32 (zp kNoValue: v in f32).
ValueId shifted(NodeContext& c, ValueId v, ValueId zp) {
  const ValueId f = toF32(c, v);
  return zp == kNoValue ? f : c.emit(Op::Sub, {f, toF32(c, zp)});
}

ValueId toI32(NodeContext& c, ValueId v) { return c.emit(Op::Cast, {v}, {{"to", int64_t(DType::I32)}}); }

int64_t chunkCount(NodeContext& c, int64_t terms, int64_t perChunkTerms, const char* axis) {
  const int64_t per = kExactTerms / perChunkTerms;
  if (per == 0) c.unsupported("a window of " + std::to_string(perChunkTerms) + " products cannot sum exactly in f32");
  const int64_t chunks = (terms + per - 1) / per;
  if (chunks > kMaxChunks)
    c.unsupported(std::string(axis) + " of " + std::to_string(terms) + " needs more than " +
                  std::to_string(kMaxChunks) + " exact partial sums");
  return chunks;
}

// (a - aZp) @ (b - bZp) as int32; zero points already shaped to broadcast.
ValueId integerMatMul(NodeContext& c, ValueId a, ValueId aZp, ValueId b, ValueId bZp) {
  const ValueId af = shifted(c, a, aZp), bf = shifted(c, b, bZp);
  const TensorType at = c.type(af), bt = c.type(bf);
  if (at.rank() < 1 || bt.rank() < 1) c.fail("operands must have rank >= 1");
  const int64_t k = at.shape.back();
  const int64_t per = kExactTerms, chunks = chunkCount(c, k, 1, "a reduction axis");
  if (chunks <= 1) return toI32(c, c.emit(Op::MatMul, {af, bf}));
  const int64_t bAxis = bt.rank() == 1 ? 0 : bt.rank() - 2;
  ValueId acc = kNoValue;
  for (int64_t i = 0; i < chunks; ++i) {
    const int64_t lo = i * per, hi = std::min(k, lo + per);
    const ValueId part = toI32(c, c.emit(Op::MatMul, {c.im.sliceAxis(c.name, af, at.rank() - 1, lo, hi, 1),
                                                      c.im.sliceAxis(c.name, bf, bAxis, lo, hi, 1)}));
    acc = acc == kNoValue ? part : c.emit(Op::Add, {acc, part});
  }
  return acc;
}

// Conv(x - xZp, w - wZp) as int32; wZp already shaped [M,1,...].
ValueId integerConv(NodeContext& c, ValueId x, ValueId xZp, ValueId w, ValueId wZp) {
  const ValueId xf = shifted(c, x, xZp), wf = shifted(c, w, wZp);
  const TensorType wt = c.type(wf);
  if (wt.rank() < 3) c.fail("weight " + wt.str() + " must have rank >= 3");
  int64_t window = 1;
  for (size_t d = 2; d < wt.shape.size(); ++d) window *= wt.shape[d];
  const int64_t channels = wt.shape[1], chunks = chunkCount(c, channels, window, "an input channel axis");
  if (chunks <= 1) return toI32(c, convValue(c, xf, wf, kNoValue));
  if (c.attrInt("group", 1) != 1) c.unsupported("a grouped integer Conv whose window sums more than 258 products");
  const int64_t per = kExactTerms / window;
  ValueId acc = kNoValue;
  for (int64_t i = 0; i < chunks; ++i) {
    const int64_t lo = i * per, hi = std::min(channels, lo + per);
    const ValueId part = toI32(c, convValue(c, c.im.sliceAxis(c.name, xf, 1, lo, hi, 1),
                                            c.im.sliceAxis(c.name, wf, 1, lo, hi, 1), kNoValue));
    acc = acc == kNoValue ? part : c.emit(Op::Add, {acc, part});
  }
  return acc;
}

// Zero points of a MatMul's operands: a's per row (axis rank-2), b's per
// column (axis rank-1); kNoValue when absent.
ValueId matMulZeroPoint(NodeContext& c, int k, ValueId operand, bool rows, const char* what) {
  if (!c.hasInput(k)) return kNoValue;
  const ValueId zp = c.input(k);
  if (c.type(zp).dtype != c.type(operand).dtype)
    c.fail(std::string(what) + " is " + c.type(zp).str() + ", its operand " + c.type(operand).str());
  const TensorType t = c.type(operand);
  const int64_t axis = rows ? t.rank() - 2 : t.rank() - 1;
  return alongAxis(c, zp, axis, t.rank(), axis >= 0 ? t.shape[size_t(axis)] : 0, what);
}

// A scale: a scalar or per row / column like its zero point.
ValueId matMulScale(NodeContext& c, int k, ValueId operand, bool rows, const char* what) {
  const ValueId s = c.input(k);
  if (c.type(s).dtype != DType::F32) c.fail(std::string(what) + " must be f32, got " + c.type(s).str());
  const TensorType t = c.type(operand);
  const int64_t axis = rows ? t.rank() - 2 : t.rank() - 1;
  return alongAxis(c, s, axis, t.rank(), axis >= 0 ? t.shape[size_t(axis)] : 0, what);
}

// acc (int32) · scale / yScale, requantized with y's zero point (input yZpIndex).
void requantize(NodeContext& c, ValueId acc, ValueId scale, int yScaleIndex, int yZpIndex) {
  const ValueId yScale = c.input(yScaleIndex);
  if (c.type(yScale).numel() != 1) c.unsupported("a per-axis y_scale is not supported");
  const ValueId v = c.emit(Op::Mul, {toF32(c, acc), c.emit(Op::Div, {scale, reshapeTo(c, yScale, {})})});
  DType to = DType::U8;
  ValueId zp = kNoValue;
  if (c.hasInput(yZpIndex)) {
    const ValueId z = c.input(yZpIndex);
    requireByte(c, z, "y_zero_point");
    if (c.type(z).numel() != 1) c.unsupported("a per-axis y_zero_point is not supported");
    to = c.type(z).dtype;
    zp = toF32(c, reshapeTo(c, z, {}));
  }
  c.setOutput(0, quantize(c, v, zp, to));
}

void matMulInteger(NodeContext& c) {
  c.onlyAttrs({});
  const ValueId a = c.input(0), b = c.input(1);
  requireByte(c, a, "A");
  requireByte(c, b, "B");
  const ValueId aZp = matMulZeroPoint(c, 2, a, true, "a_zero_point");
  const ValueId bZp = matMulZeroPoint(c, 3, b, false, "b_zero_point");
  c.setOutput(0, integerMatMul(c, a, aZp, b, bZp));
}

void qLinearMatMul(NodeContext& c) {
  c.onlyAttrs({});
  const ValueId a = c.input(0), b = c.input(3);
  requireByte(c, a, "a");
  requireByte(c, b, "b");
  const ValueId aZp = matMulZeroPoint(c, 2, a, true, "a_zero_point");
  const ValueId bZp = matMulZeroPoint(c, 5, b, false, "b_zero_point");
  const ValueId scale =
      c.emit(Op::Mul, {matMulScale(c, 1, a, true, "a_scale"), matMulScale(c, 4, b, false, "b_scale")});
  requantize(c, integerMatMul(c, a, aZp, b, bZp), scale, 6, 7);
}

// x's zero point (a scalar) and w's (scalar or one per output channel).
std::pair<ValueId, ValueId> convZeroPoints(NodeContext& c, ValueId x, int xZpIndex, ValueId w, int wZpIndex) {
  ValueId xZp = kNoValue, wZp = kNoValue;
  if (c.hasInput(xZpIndex)) {
    xZp = c.input(xZpIndex);
    if (c.type(xZp).numel() != 1) c.unsupported("a per-channel x_zero_point is not supported");
    xZp = reshapeTo(c, xZp, {});
  }
  if (c.hasInput(wZpIndex)) {
    const TensorType wt = c.type(w);
    wZp = alongAxis(c, c.input(wZpIndex), 0, wt.rank(), wt.shape[0], "w_zero_point");
  }
  return {xZp, wZp};
}

void convInteger(NodeContext& c) {
  c.onlyAttrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  const ValueId x = c.input(0), w = c.input(1);
  requireByte(c, x, "x");
  requireByte(c, w, "w");
  if (c.type(w).rank() < 3) c.fail("weight " + c.type(w).str() + " must have rank >= 3");
  auto [xZp, wZp] = convZeroPoints(c, x, 2, w, 3);
  c.setOutput(0, integerConv(c, x, xZp, w, wZp));
}

void qLinearConv(NodeContext& c) {
  c.onlyAttrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  const ValueId x = c.input(0), w = c.input(3);
  requireByte(c, x, "x");
  requireByte(c, w, "w");
  const TensorType wt = c.type(w);
  if (wt.rank() < 3) c.fail("weight " + wt.str() + " must have rank >= 3");
  auto [xZp, wZp] = convZeroPoints(c, x, 2, w, 5);
  ValueId acc = integerConv(c, x, xZp, w, wZp);
  const int64_t rank = c.type(acc).rank(), channels = wt.shape[0];
  if (c.hasInput(8)) {
    const ValueId bias = c.input(8);
    if (c.type(bias).dtype != DType::I32) c.fail("bias must be int32, got " + c.type(bias).str());
    acc = c.emit(Op::Add, {acc, alongAxis(c, bias, 1, rank, channels, "bias")});
  }
  if (c.type(c.input(1)).numel() != 1) c.unsupported("a per-channel x_scale is not supported");
  const ValueId scale = c.emit(Op::Mul, {reshapeTo(c, c.input(1), {}), alongAxis(c, c.input(4), 1, rank, channels, "w_scale")});
  requantize(c, acc, scale, 6, 7);
}

}  // namespace

void addIntegerConverters(ConverterTable& t) {
  t[{"", "MatMulInteger"}] = matMulInteger;
  t[{"", "QLinearMatMul"}] = qLinearMatMul;
  t[{"", "ConvInteger"}] = convInteger;
  t[{"", "QLinearConv"}] = qLinearConv;
}

}  // namespace mgc::onnximport
