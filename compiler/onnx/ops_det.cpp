// Det of [..., M, M] for M <= 3 as the cofactor expansion over sliced
// elements (M = 2: ad - bc; M = 3: expansion along the first row).
// Larger matrices would need a pivoted LU, which the IR has no op for; they
// are refused.
#include "compiler/onnx/ops_extra.h"

namespace mgc::onnximport {

namespace {

constexpr int64_t kMaxOrder = 3;

void det(NodeContext& c) {
  c.onlyAttrs({});
  const ValueId x = c.input(0);
  const TensorType t = c.type(x);
  if (!isFloat(t.dtype)) c.fail("expects a float input, got " + t.str());
  const int64_t rank = t.rank();
  if (rank < 2 || t.shape[size_t(rank - 1)] != t.shape[size_t(rank - 2)])
    c.fail("input " + t.str() + " must be [..., M, M]");
  const int64_t m = t.shape[size_t(rank - 1)];
  if (m == 0) c.unsupported("Det of 0x0 matrices");
  if (m > kMaxOrder) c.unsupported("Det of " + std::to_string(m) + "x" + std::to_string(m) + " matrices (at most 3x3)");
  auto at = [&](int64_t i, int64_t j) {
    return c.im.sliceAxis(c.name, c.im.sliceAxis(c.name, x, rank - 2, i, i + 1, 1), rank - 1, j, j + 1, 1);
  };
  auto mul = [&](ValueId a, ValueId b) { return c.emit(Op::Mul, {a, b}); };
  auto sub = [&](ValueId a, ValueId b) { return c.emit(Op::Sub, {a, b}); };
  // The 2x2 minor of rows r0, r1 and columns c0, c1.
  auto minor = [&](int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
    return sub(mul(at(r0, c0), at(r1, c1)), mul(at(r0, c1), at(r1, c0)));
  };
  ValueId d;
  if (m == 1) d = at(0, 0);
  else if (m == 2) d = minor(0, 1, 0, 1);
  else
    d = c.emit(Op::Add, {sub(mul(at(0, 0), minor(1, 2, 1, 2)), mul(at(0, 1), minor(1, 2, 0, 2))),
                         mul(at(0, 2), minor(1, 2, 0, 1))});
  c.setOutput(0, reshapeTo(c, d, Shape(t.shape.begin(), t.shape.end() - 2)));
}

}  // namespace

void addDetConverters(ConverterTable& t) { t[{"", "Det"}] = det; }

}  // namespace mgc::onnximport
