// ScatterND as ScatterElements over rows: data [d0..d(r-1)] is viewed as
// [prod(d0..d(q-1)), prod(dq..)] (q = the index depth, indices' last dim),
// each index tuple becomes one row number, and each update slice one row:
//
//   %row  = reduce_sum(wrap(%indices) * strides, last axis)      [n]
//   %rows = expand(reshape(%row, [n, 1]), [n, inner])
//   %out  = scatter_elements(reshape(%data, [R, inner]), %rows,
//                            reshape(%updates, [n, inner])) {axis 0, reduction}
//   %y    = reshape(%out, data's shape)
//
// Negative indices count from the end of their dim; duplicates apply in
// index order (ScatterElements' rule), which is what ONNX leaves
// undefined for "none" and defines for add / mul.
#include "compiler/onnx/ops_extra.h"

namespace mgc::onnximport {

namespace {

void scatterND(NodeContext& c) {
  c.onlyAttrs({"reduction"});
  const ValueId data = c.input(0), indices = c.input(1), updates = c.input(2);
  const Shape ds = c.type(data).shape, is = c.type(indices).shape, us = c.type(updates).shape;
  const std::string reduction = c.attrString("reduction", "none");
  const int64_t code = reduction == "none" ? 0 : reduction == "add" ? 1 : reduction == "mul" ? 2 : -1;
  if (code < 0) c.unsupported("reduction '" + reduction + "' is not supported");
  if (is.empty()) c.fail("indices must have rank >= 1");
  const int64_t q = is.back(), r = int64_t(ds.size());
  if (q < 1 || q > r) c.fail("the index depth " + std::to_string(q) + " is outside [1, " + std::to_string(r) + "]");
  Shape want(is.begin(), is.end() - 1);
  want.insert(want.end(), ds.begin() + q, ds.end());
  if (us != want) c.fail("updates have shape " + shapeStr(us) + ", indices and data imply " + shapeStr(want));
  int64_t n = 1, rows = 1, inner = 1;
  for (size_t k = 0; k + 1 < is.size(); ++k) n *= is[k];
  for (int64_t k = 0; k < q; ++k) rows *= ds[size_t(k)];
  for (int64_t k = q; k < r; ++k) inner *= ds[size_t(k)];

  // Row number of each index tuple, negative entries wrapped per dim.
  HostTensor dimsT(TensorType{DType::I64, {q}}), stridesT(TensorType{DType::I64, {q}});
  for (int64_t k = q - 1, s = 1; k >= 0; --k) {
    dimsT.as<int64_t>()[k] = ds[size_t(k)];
    stridesT.as<int64_t>()[k] = s;
    s *= ds[size_t(k)];
  }
  ValueId idx = reshapeTo(c, c.type(indices).dtype == DType::I64 ? indices
                                                                   : c.emit(Op::Cast, {indices}, {{"to", int64_t(DType::I64)}}),
                          {n, q});
  const ValueId dims = c.constant(std::move(dimsT));
  idx = c.emit(Op::Where, {c.emit(Op::Less, {idx, c.scalar(DType::I64, 0)}), c.emit(Op::Add, {idx, dims}), idx});
  ValueId row = c.emit(Op::ReduceSum, {c.emit(Op::Mul, {idx, c.constant(std::move(stridesT))})},
                       {{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t(1)}});  // [n, 1]
  ValueId rowsIdx = inner == 1 ? row : c.emit(Op::Expand, {row}, {{"shape", std::vector<int64_t>{n, inner}}});
  ValueId out = c.emit(Op::ScatterElements,
                       {reshapeTo(c, data, {rows, inner}), rowsIdx, reshapeTo(c, updates, {n, inner})},
                       {{"axis", int64_t(0)}, {"reduction", code}});
  c.emitOutput(0, Op::Reshape, {out}, {{"shape", std::vector<int64_t>(ds)}});
}

}  // namespace

void addScatterNDConverters(ConverterTable& t) { t[{"", "ScatterND"}] = scatterND; }

}  // namespace mgc::onnximport
