// CumSum as a product with a triangular 0/1 matrix along its axis:
//
//   %m = transpose(%x) {the axis last}            (skipped when it is last)
//   %s = matmul(%m, T)      T[i, j] = 1 where i contributes to j:
//                           i <= j (default), i < j (exclusive),
//                           i >= j (reverse), i > j (reverse exclusive)
//   %y = transpose(%s) {back}
//
// No scan kernel: the tiled matmul does the sums, and Transpose / MatMul
// give the gradient. T is [L, L], so the axis is bounded (kMaxLength).
#include <numeric>

#include "compiler/onnx/ops_extra.h"

namespace mgc::onnximport {

namespace {

constexpr int64_t kMaxLength = 4096;  // T: 16M entries, 64 MiB of f32

void cumSum(NodeContext& c) {
  c.onlyAttrs({"exclusive", "reverse"});
  const ValueId x = c.input(0);
  const TensorType t = c.type(x);
  if (!isFloat(t.dtype)) c.unsupported(std::string("CumSum of ") + mgb::dtype::name(t.dtype) + " (float tensors only)");
  if (t.rank() == 0) c.fail("input must have rank >= 1");
  std::optional<std::vector<int64_t>> axisIn = c.intsInput(1, "axis");
  if (!axisIn || axisIn->size() != 1) c.fail("axis must hold exactly one value");
  const int64_t rank = t.rank(), axis = c.normAxis((*axisIn)[0], rank);
  const int64_t L = t.shape[size_t(axis)];
  if (L > kMaxLength)
    c.unsupported("CumSum over " + std::to_string(L) + " elements (at most " + std::to_string(kMaxLength) + ")");
  const bool exclusive = c.attrInt("exclusive", 0) != 0, reverse = c.attrInt("reverse", 0) != 0;
  HostTensor tri(TensorType{t.dtype, {L, L}});
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = 0; j < L; ++j) {
      const bool on = reverse ? (exclusive ? i > j : i >= j) : (exclusive ? i < j : i <= j);
      tri.setF(i * L + j, on ? 1.0 : 0.0);
    }
  const ValueId matrix = c.constant(std::move(tri));
  if (axis == rank - 1) {
    c.emitOutput(0, Op::MatMul, {x, matrix});
    return;
  }
  std::vector<int64_t> perm(static_cast<size_t>(rank)), back(static_cast<size_t>(rank));
  std::iota(perm.begin(), perm.end(), int64_t(0));
  perm.erase(perm.begin() + axis);
  perm.push_back(axis);
  for (int64_t d = 0; d < rank; ++d) back[size_t(perm[size_t(d)])] = d;
  const ValueId moved = c.emit(Op::Transpose, {x}, {{"perm", perm}});
  c.emitOutput(0, Op::Transpose, {c.emit(Op::MatMul, {moved, matrix})}, {{"perm", back}});
}

}  // namespace

void addCumSumConverters(ConverterTable& t) { t[{"", "CumSum"}] = cumSum; }

}  // namespace mgc::onnximport
