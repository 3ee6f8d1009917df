// More compositions: (Dynamic)QuantizeLinear / DequantizeLinear, GatherND
// (a Gather over flattened leading axes), ReverseSequence (GatherElements
// with computed indices), BitShift on uint8 (multiply / divide by 2^y),
// OneHot (indices compared with 0..depth-1 along the new axis, then Where).
#include <algorithm>

#include "compiler/onnx/ops_extra.h"

namespace mgc::onnximport {

ValueId toF32(NodeContext& c, ValueId v) {
  return c.type(v).dtype == DType::F32 ? v : c.emit(Op::Cast, {v}, {{"to", int64_t(DType::F32)}});
}

ValueId quantize(NodeContext& c, ValueId scaled, ValueId zpF32, DType to) {
  ValueId q = c.emit(Op::Round, {scaled});
  if (zpF32 != kNoValue) q = c.emit(Op::Add, {q, zpF32});
  double lo = to == DType::U8 ? 0 : -128, hi = to == DType::U8 ? 255 : 127;
  q = c.emit(Op::Clip, {q}, {{"min", lo}, {"max", hi}});
  return c.emit(Op::Cast, {q}, {{"to", int64_t(to)}});
}

namespace {

// A per-axis parameter ([C] for axis a of rank r) reshaped to broadcast; a
// scalar stays as is.
ValueId perAxis(NodeContext& c, ValueId p, int64_t axis, int64_t rank) {
  const Shape s = c.type(p).shape;
  if (s.empty() || (s.size() == 1 && s[0] == 1)) return p;
  if (s.size() != 1) c.fail("scale / zero point must be a scalar or 1-D, got " + c.type(p).str());
  if (axis < 0 || axis >= rank) c.fail("axis is out of range for a per-axis scale / zero point");
  Shape b(size_t(rank - axis), 1);
  b[0] = s[0];
  return reshapeTo(c, p, b);
}

// The axis of per-axis parameters; -1 when out of range (then only scalar
// parameters are valid: the attribute's default 1 does not fit a 1-D x).
int64_t quantAxis(NodeContext& c, int64_t rank) {
  int64_t a = c.attrInt("axis", 1);
  if (a < -rank || a >= rank) return -1;
  return a < 0 ? a + rank : a;
}

void dequantizeLinear(NodeContext& c) {
  c.onlyAttrs({"axis"});
  ValueId x = c.input(0);
  int64_t rank = c.type(x).rank(), axis = quantAxis(c, rank);
  ValueId v = toF32(c, x);
  if (c.hasInput(2)) v = c.emit(Op::Sub, {v, perAxis(c, toF32(c, c.input(2)), axis, rank)});
  c.emitOutput(0, Op::Mul, {v, perAxis(c, c.input(1), axis, rank)});
}


void quantizeLinear(NodeContext& c) {
  c.onlyAttrs({"axis"});
  ValueId x = c.input(0);
  int64_t rank = c.type(x).rank(), axis = quantAxis(c, rank);
  DType to = c.hasInput(2) ? c.type(c.input(2)).dtype : DType::U8;
  if (to != DType::U8 && to != DType::I8) c.unsupported("quantizing to " + std::string(dtypeName(to)) + " is not supported");
  ValueId scaled = c.emit(Op::Div, {toF32(c, x), perAxis(c, c.input(1), axis, rank)});
  ValueId zp = c.hasInput(2) ? perAxis(c, toF32(c, c.input(2)), axis, rank) : kNoValue;
  c.setOutput(0, quantize(c, scaled, zp, to));
}

// scale = (max(0, max x) - min(0, min x)) / 255, zp = saturate(round(-min / scale)).
void dynamicQuantizeLinear(NodeContext& c) {
  c.onlyAttrs({});
  ValueId x = toF32(c, c.input(0));
  std::vector<int64_t> axes;
  for (int64_t k = 0; k < c.type(x).rank(); ++k) axes.push_back(k);
  Attrs all{{"axes", axes}, {"keepdims", int64_t(0)}};
  ValueId zero = c.scalar(DType::F32, 0);
  ValueId lo = c.emit(Op::Min, {c.emit(Op::ReduceMin, {x}, all), zero});
  ValueId hi = c.emit(Op::Max, {c.emit(Op::ReduceMax, {x}, all), zero});
  ValueId scale = c.emit(Op::Div, {c.emit(Op::Sub, {hi, lo}), c.scalar(DType::F32, 255)});
  ValueId zp = quantize(c, c.emit(Op::Div, {c.emit(Op::Neg, {lo}), scale}), kNoValue, DType::U8);
  c.setOutput(0, quantize(c, c.emit(Op::Div, {x, scale}), toF32(c, zp), DType::U8));
  if (c.numOutputs() > 1) c.setOutput(1, scale);
  if (c.numOutputs() > 2) c.setOutput(2, zp);
}

// data [b..., d_b .. d_{b+k-1}, rest...], indices [b..., m..., k]: flatten
// the batch and indexed axes into one, compute the flat row per index
// tuple, and Gather rows.
void gatherND(NodeContext& c) {
  c.onlyAttrs({"batch_dims"});
  ValueId data = c.input(0), idx = c.input(1);
  const Shape ds = c.type(data).shape, is = c.type(idx).shape;
  int64_t b = c.attrInt("batch_dims", 0);
  if (is.empty() || b < 0 || b >= int64_t(is.size()) || b > int64_t(ds.size())) c.fail("batch_dims / ranks are not valid");
  int64_t k = is.back();
  if (k < 1 || b + k > int64_t(ds.size())) c.fail("index tuples of " + std::to_string(k) + " do not fit data " + c.type(data).str());
  for (int64_t a = 0; a < b; ++a)
    if (ds[size_t(a)] != is[size_t(a)]) c.fail("batch dimensions of data and indices differ");
  DType it = c.type(idx).dtype;
  // Row of each index tuple: Σ idx_j · stride_j, negatives wrapped per axis.
  HostTensor dims(TensorType{it, {k}}), strides(TensorType{it, {k}});
  int64_t rows = 1;
  for (int64_t j = k - 1; j >= 0; --j) {
    dims.setI(j, ds[size_t(b + j)]);
    strides.setI(j, rows);
    rows *= ds[size_t(b + j)];
  }
  ValueId dimsV = c.constant(std::move(dims));
  ValueId wrapped = c.emit(Op::Where, {c.emit(Op::Less, {idx, c.scalar(it, 0)}), c.emit(Op::Add, {idx, dimsV}), idx});
  Attrs last{{"axes", std::vector<int64_t>{int64_t(is.size()) - 1}}, {"keepdims", int64_t(0)}};
  ValueId row = c.emit(Op::ReduceSum, {c.emit(Op::Mul, {wrapped, c.constant(std::move(strides))})}, last);
  Shape tupleShape(is.begin(), is.end() - 1);  // [b..., m...]
  int64_t batch = 1;
  for (int64_t a = 0; a < b; ++a) batch *= ds[size_t(a)];
  if (b > 0) {  // + flat batch position · rows
    int64_t per = 1;
    for (size_t a = size_t(b); a < tupleShape.size(); ++a) per *= tupleShape[a];
    HostTensor offs(TensorType{it, tupleShape});
    for (int64_t i = 0; i < offs.numel(); ++i) offs.setI(i, (i / per) * rows);
    row = c.emit(Op::Add, {row, c.constant(std::move(offs))});
  }
  Shape flat{batch * rows};
  flat.insert(flat.end(), ds.begin() + b + k, ds.end());
  ValueId g = c.emit(Op::Gather, {reshapeTo(c, data, flat), row}, {{"axis", int64_t(0)}});
  Shape out = tupleShape;
  out.insert(out.end(), ds.begin() + b + k, ds.end());
  c.setOutput(0, reshapeTo(c, g, out));
}

// out[t, b] = x[len_b - 1 - t, b] for t < len_b, else x[t, b].
void reverseSequence(NodeContext& c) {
  c.onlyAttrs({"batch_axis", "time_axis"});
  ValueId x = c.input(0), lens = c.input(1);
  const Shape s = c.type(x).shape;
  int64_t rank = int64_t(s.size());
  if (rank < 2) c.fail("expects rank >= 2, got " + c.type(x).str());
  int64_t ta = c.normAxis(c.attrInt("time_axis", 0), rank), ba = c.normAxis(c.attrInt("batch_axis", 1), rank);
  if (ta == ba || (ta > 1 || ba > 1)) c.fail("time_axis and batch_axis must be 0 and 1 in some order");
  DType lt = c.type(lens).dtype;
  Shape ts(size_t(rank), 1), bs(size_t(rank), 1);
  ts[size_t(ta)] = s[size_t(ta)];
  bs[size_t(ba)] = s[size_t(ba)];
  HostTensor iota(TensorType{lt, ts});
  for (int64_t t = 0; t < s[size_t(ta)]; ++t) iota.setI(t, t);
  ValueId t = c.constant(std::move(iota)), len = reshapeTo(c, lens, bs);
  ValueId rev = c.emit(Op::Sub, {c.emit(Op::Sub, {len, c.scalar(lt, 1)}), t});
  ValueId idx = c.emit(Op::Where, {c.emit(Op::Less, {t, len}), rev, t});
  idx = c.emit(Op::Expand, {idx}, {{"shape", s}});
  c.emitOutput(0, Op::GatherElements, {x, idx}, {{"axis", ta}});
}

// Unsigned integers: x · 2^y or x / 2^y in i32, wrapping to x's type. A
// shift of the type's width or more gives 0; u64 values live in 32-bit
// words on the device like i64 ones (the runtime refuses inputs past
// 2^31 - 1), so a u64 result keeps its low 32 bits there.
void bitShift(NodeContext& c) {
  c.onlyAttrs({"direction"});
  ValueId x = c.input(0), y = c.input(1);
  const DType dt = c.type(x).dtype;
  int bits = 0;
  switch (dt) {
    case DType::U8: bits = 8; break;
    case DType::U16: bits = 16; break;
    case DType::U32: bits = 32; break;
    case DType::U64: bits = 64; break;
    default: c.unsupported("BitShift of " + c.type(x).str() + " is not supported (unsigned integers only)");
  }
  std::string dir = c.attrString("direction");
  if (dir != "LEFT" && dir != "RIGHT") c.fail("direction must be LEFT or RIGHT, got '" + dir + "'");
  // Left shifts are clamped to min(width, 32): 2^32 wraps to 0 in i32, and
  // 2^8 / 2^16 shift every bit out once the result wraps to u8 / u16.
  ValueId y32 = c.emit(Op::Cast, {y}, {{"to", int64_t(DType::I32)}});
  ValueId x32 = c.emit(Op::Cast, {x}, {{"to", int64_t(DType::I32)}});
  ValueId two = c.scalar(DType::I32, 2), r;
  if (dir == "LEFT") {
    r = c.emit(Op::Mul, {x32, c.emit(Op::Pow, {two, c.emit(Op::Min, {y32, c.scalar(DType::I32, std::min(bits, 32))})})});
  } else {
    // x < 2^31 in an i32, so a shift of 31 or more leaves 0 (and 2^30 is
    // the largest divisor, never a wrapped 0).
    ValueId p = c.emit(Op::Pow, {two, c.emit(Op::Min, {y32, c.scalar(DType::I32, 30)})});
    ValueId big = c.emit(Op::GreaterOrEqual, {y32, c.scalar(DType::I32, 31)});
    r = c.emit(Op::Where, {big, c.scalar(DType::I32, 0), c.emit(Op::Div, {x32, p})});
  }
  c.emitOutput(0, Op::Cast, {r}, {{"to", int64_t(dt)}});
}

}  // namespace

// OneHot(indices, depth, values [off, on]){axis}: a new axis of length
// depth at `axis`; out = on where the (wrapped) index equals the position
// along it, else off. depth must be a constant; indices may be floats
// (truncated, as the reference does) and negative (counted from depth).
void oneHot(NodeContext& c) {
  c.onlyAttrs({"axis"});
  const ValueId indices = c.input(0), values = c.input(2);
  const HostTensor* depthT = c.constInput(1, "depth");
  if (!depthT) c.fail("depth must be a constant");
  if (depthT->numel() != 1) c.fail("depth must hold one value, got " + depthT->type.str());
  const int64_t depth = depthT->getI(0);
  if (depth < 1 || depth > (int64_t(1) << 24)) c.fail("depth " + std::to_string(depth) + " is outside [1, 2^24]");
  const TensorType vt = c.type(values);
  if (vt.numel() != 2) c.fail("values must hold [off, on], got " + vt.str());
  const Shape is = c.type(indices).shape;
  const int64_t outRank = int64_t(is.size()) + 1, axis = c.normAxis(c.attrInt("axis", -1), outRank);
  ValueId idx = c.type(indices).dtype == DType::I64 ? indices : c.emit(Op::Cast, {indices}, {{"to", int64_t(DType::I64)}});
  ValueId dimsV = c.scalar(DType::I64, double(depth));
  idx = c.emit(Op::Where, {c.emit(Op::Less, {idx, c.scalar(DType::I64, 0)}), c.emit(Op::Add, {idx, dimsV}), idx});
  Shape withAxis = is;
  withAxis.insert(withAxis.begin() + axis, 1);
  Shape along(size_t(outRank), 1);
  along[size_t(axis)] = depth;
  HostTensor positions(TensorType{DType::I64, along});
  for (int64_t i = 0; i < depth; ++i) positions.as<int64_t>()[i] = i;
  ValueId hit = c.emit(Op::Equal, {reshapeTo(c, idx, withAxis), c.constant(std::move(positions))});
  ValueId flat = reshapeTo(c, values, {2});
  auto pick = [&](int64_t k) {
    HostTensor at(TensorType{DType::I64, {}});
    at.as<int64_t>()[0] = k;
    return c.emit(Op::Gather, {flat, c.constant(std::move(at))}, {{"axis", int64_t(0)}});
  };
  c.emitOutput(0, Op::Where, {hit, pick(1), pick(0)});
}

void addMoreConverters(ConverterTable& t) {
  t[{"", "OneHot"}] = oneHot;
  t[{"", "DequantizeLinear"}] = dequantizeLinear;
  t[{"", "QuantizeLinear"}] = quantizeLinear;
  t[{"", "DynamicQuantizeLinear"}] = dynamicQuantizeLinear;
  t[{"", "GatherND"}] = gatherND;
  t[{"", "ReverseSequence"}] = reverseSequence;
  t[{"", "BitShift"}] = bitShift;
}

}  // namespace mgc::onnximport
