// TopK as K rounds of ArgMax (no sort kernel): round r takes the first
// maximum of what is left along the axis, gathers its value from x, and
// masks that position out with -inf:
//
//   %i_r = argmax(%left_r) {axis, keepdims = 1}        (of -x for largest = 0)
//   %v_r = gather_elements(%x, %i_r) {axis}
//   %left_{r+1} = where(equal(positions, %i_r), -inf, %left_r)
//   values = concat(%v_0 .. %v_{K-1}), indices = concat(%i_0 ..)
//
// Equal values come out lowest index first (ArgMax takes the first
// maximum), as TopK's sorted output requires. K is bounded (kMaxK): each
// round is a few dispatches.
#include <cmath>

#include "compiler/onnx/ops_extra.h"

namespace mgc::onnximport {

namespace {

constexpr int64_t kMaxK = 64;

void topK(NodeContext& c) {
  c.onlyAttrs({"axis", "largest", "sorted"});
  if (c.opset < 10) c.unsupported("TopK before opset 10 (k as an attribute) is not supported");
  const ValueId x = c.input(0);
  const TensorType t = c.type(x);
  if (!isFloat(t.dtype)) c.unsupported("TopK of " + t.str() + " (float tensors only)");
  if (t.rank() == 0) c.fail("input must have rank >= 1");
  std::optional<std::vector<int64_t>> kIn = c.intsInput(1, "k");
  if (!kIn || kIn->size() != 1) c.fail("k must hold exactly one value");
  const int64_t rank = t.rank(), axis = c.normAxis(c.attrInt("axis", -1), rank), k = (*kIn)[0];
  const int64_t dim = t.shape[size_t(axis)];
  if (k < 0 || k > dim) c.fail("k = " + std::to_string(k) + " is outside [0, " + std::to_string(dim) + "]");
  if (k > kMaxK) c.unsupported("TopK with k = " + std::to_string(k) + " (at most " + std::to_string(kMaxK) + ")");
  if (k == 0) c.unsupported("TopK with k = 0 (an empty output)");
  const bool largest = c.attrInt("largest", 1) != 0;
  Shape along(size_t(rank), 1);
  along[size_t(axis)] = dim;
  HostTensor positions(TensorType{DType::I64, along});
  for (int64_t i = 0; i < dim; ++i) positions.as<int64_t>()[i] = i;
  const ValueId pos = c.constant(std::move(positions));
  const ValueId minusInf = c.scalar(t.dtype, -INFINITY);
  ValueId left = largest ? x : c.emit(Op::Neg, {x});
  std::vector<ValueId> values, indices;
  for (int64_t r = 0; r < k; ++r) {
    ValueId i = c.emit(Op::ArgMax, {left}, {{"axis", axis}, {"keepdims", int64_t(1)}});
    values.push_back(c.emit(Op::GatherElements, {x, i}, {{"axis", axis}}));
    indices.push_back(i);
    if (r + 1 < k) left = c.emit(Op::Where, {c.emit(Op::Equal, {pos, i}), minusInf, left});
  }
  const Attrs cat{{"axis", axis}};
  if (k == 1) {
    c.setOutput(0, values[0]);
    c.setOutput(1, indices[0]);
    return;
  }
  c.emitOutput(0, Op::Concat, values, cat);
  c.emitOutput(1, Op::Concat, indices, cat);
}

}  // namespace

void addTopKConverters(ConverterTable& t) { t[{"", "TopK"}] = topK; }

}  // namespace mgc::onnximport
