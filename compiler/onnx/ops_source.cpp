// Ops whose result the importer computes itself: Constant, Shape and Size
// (shapes are static), ConstantOfShape and Range (no IR op; their inputs
// must be constant). Also the converter table.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "compiler/onnx/importer.h"
#include "compiler/onnx/ops_extra.h"
#include "compiler/onnx/tensor_proto.h"

namespace mgc::onnximport {

namespace {

HostTensor ints1d(const std::vector<int64_t>& v) {
  HostTensor t(TensorType{DType::I64, {int64_t(v.size())}});
  for (size_t i = 0; i < v.size(); ++i) t.as<int64_t>()[i] = v[i];
  return t;
}

void constant(NodeContext& c) {
  c.onlyAttrs({"value", "value_float", "value_floats", "value_int", "value_ints"});
  if (c.proto.attribute_size() != 1) c.fail("needs exactly one value attribute");
  HostTensor t;
  if (c.hasAttr("value")) {
    t = tensorFromProto(c.attrTensor("value"), "attribute 'value'");
  } else if (c.hasAttr("value_float")) {
    t = HostTensor(TensorType{DType::F32, {}});
    t.setF(0, c.attrFloat("value_float"));
  } else if (c.hasAttr("value_floats")) {
    std::vector<double> v = c.attrFloats("value_floats");
    t = HostTensor(TensorType{DType::F32, {int64_t(v.size())}});
    for (size_t i = 0; i < v.size(); ++i) t.setF(int64_t(i), v[i]);
  } else if (c.hasAttr("value_int")) {
    t = ints1d({c.attrInt("value_int")});
    t.type.shape.clear();
  } else {
    t = ints1d(c.attrInts("value_ints"));
  }
  c.setOutputConstant(0, std::move(t));
}

void shape(NodeContext& c) {
  c.onlyAttrs({"start", "end"});
  const Shape s = c.type(c.input(0)).shape;
  int64_t rank = int64_t(s.size());
  auto clampDim = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  int64_t start = clampDim(c.attrInt("start", 0)), end = clampDim(c.attrInt("end", rank));
  std::vector<int64_t> dims;
  for (int64_t k = start; k < end; ++k) dims.push_back(s[size_t(k)]);
  c.setOutputConstant(0, ints1d(dims));
}

void size(NodeContext& c) {
  c.onlyAttrs({});
  HostTensor t(TensorType{DType::I64, {}});
  t.as<int64_t>()[0] = c.type(c.input(0)).numel();
  c.setOutputConstant(0, std::move(t));
}

// A computed constant must fit the fold limit; past it the op is unsupported.
void checkComputed(NodeContext& c, const TensorType& t) {
  checkedNumel(t.shape, "result");
  if (t.bytes() > GraphBuilder::kMaxFoldBytes)
    c.unsupported("result " + t.str() + " is too large to compute at import time");
}

void constantOfShape(NodeContext& c) {
  c.onlyAttrs({"value"});
  auto dims = c.intsInput(0, "shape");
  if (!dims) c.fail("shape input is missing");
  HostTensor value(TensorType{DType::F32, {1}});  // default: one f32 zero
  if (c.hasAttr("value")) value = tensorFromProto(c.attrTensor("value"), "attribute 'value'");
  if (value.numel() != 1) c.fail("value must hold one element, got " + value.type.str());
  TensorType t{value.type.dtype, *dims};
  checkComputed(c, t);
  HostTensor out(t);
  size_t es = dtypeSize(t.dtype);
  for (int64_t i = 0; i < out.numel(); ++i) std::memcpy(out.data.data() + size_t(i) * es, value.data.data(), es);
  c.setOutputConstant(0, std::move(out));
}

// np.arange(start, limit, delta): count = max(ceil((limit - start) / delta), 0).
void range(NodeContext& c) {
  c.onlyAttrs({});
  const HostTensor* in[3] = {c.constInput(0, "start"), c.constInput(1, "limit"), c.constInput(2, "delta")};
  for (const HostTensor* t : in) {
    if (!t || t->numel() != 1) c.fail("start, limit and delta must be scalars");
    if (t->type.dtype != in[0]->type.dtype) c.fail("start, limit and delta must have one dtype");
  }
  DType dt = in[0]->type.dtype;
  if (dt == DType::Bool) c.fail("bool ranges are not valid");
  int64_t count;
  if (isFloat(dt)) {
    double start = in[0]->getF(0), limit = in[1]->getF(0), delta = in[2]->getF(0);
    if (delta == 0 || !std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta))
      c.fail("delta must be nonzero and all operands finite");
    double n = std::ceil((limit - start) / delta);
    if (n > double(kMaxElements)) c.unsupported("range of " + std::to_string(n) + " elements is too large");
    count = n > 0 ? int64_t(n) : 0;
  } else {
    // Exact in 128 bits: limit - start may overflow int64.
    __int128 start = in[0]->getI(0), limit = in[1]->getI(0), delta = in[2]->getI(0);
    if (delta == 0) c.fail("delta is zero");
    __int128 span = limit - start, n = span / delta + ((span % delta != 0) && ((span > 0) == (delta > 0)) ? 1 : 0);
    if (n > __int128(kMaxElements)) c.unsupported("range is too large");
    count = n > 0 ? int64_t(n) : 0;
  }
  TensorType t{dt, {count}};
  checkComputed(c, t);
  HostTensor out(t);
  for (int64_t i = 0; i < count; ++i) {
    if (isFloat(dt)) out.setF(i, in[0]->getF(0) + double(i) * in[2]->getF(0));
    else out.setI(i, int64_t(__int128(in[0]->getI(0)) + __int128(i) * in[2]->getI(0)));  // between start and limit
  }
  c.setOutputConstant(0, std::move(out));
}

}  // namespace

void addSourceConverters(ConverterTable& t) {
  t[{"", "Constant"}] = constant;
  t[{"", "Shape"}] = shape;
  t[{"", "Size"}] = size;
  t[{"", "ConstantOfShape"}] = constantOfShape;
  t[{"", "Range"}] = range;
}

const ConverterTable& converters() {
  static const ConverterTable table = [] {
    ConverterTable t;
    addElementwiseConverters(t);
    addNnConverters(t);
    addShapeConverters(t);
    addReduceConverters(t);
    addSourceConverters(t);
    addExtraConverters(t);
    addLossConverters(t);
    addEinsumConverters(t);
    addMoreConverters(t);
    addRecurrentConverters(t);
    addSequenceConverters(t);
    addResizeConverters(t);
    addCumSumConverters(t);
    addTopKConverters(t);
    addScatterNDConverters(t);
    addTrainingConverters(t);
    addWindowConverters(t);
    addIntegerConverters(t);
    addGridSampleConverters(t);
    addDftConverters(t);
    addDetConverters(t);
    addMaxUnpoolConverters(t);
    return t;
  }();
  return table;
}

}  // namespace mgc::onnximport
