// MaxUnpool: the values of X written into zeros at their MaxPool indices
// (flat positions in the unpooled tensor of the default shape
// (in - 1)·stride - pads + kernel per spatial axis), as a ScatterElements
// over the flattened tensor; an output_shape larger than the default pads
// each spatial axis at its end, as onnx's reference does.
#include "compiler/onnx/ops_extra.h"

namespace mgc::onnximport {

namespace {

void maxUnpool(NodeContext& c) {
  c.onlyAttrs({"kernel_shape", "pads", "strides"});
  const ValueId x = c.input(0), indices = c.input(1);
  const TensorType xt = c.type(x), it = c.type(indices);
  if (xt.rank() < 3) c.fail("X " + xt.str() + " must have rank >= 3");
  if (it.shape != xt.shape || isFloat(it.dtype)) c.fail("I " + it.str() + " must be integers shaped like X " + xt.str());
  const size_t spatial = size_t(xt.rank() - 2);
  const std::vector<int64_t> kernel = c.attrInts("kernel_shape");
  const std::vector<int64_t> strides = c.attrInts("strides", std::vector<int64_t>(spatial, 1));
  const std::vector<int64_t> pads = c.attrInts("pads", std::vector<int64_t>(2 * spatial, 0));
  if (kernel.size() != spatial || strides.size() != spatial || pads.size() != 2 * spatial)
    c.fail("kernel_shape, strides and pads must match " + std::to_string(spatial) + " spatial axes");
  Shape shape(xt.shape.begin(), xt.shape.begin() + 2);
  for (size_t k = 0; k < spatial; ++k) {
    const int64_t d = (xt.shape[k + 2] - 1) * strides[k] - pads[k] - pads[k + spatial] + kernel[k];
    if (d <= 0) c.fail("the unpooled axis " + std::to_string(k + 2) + " would have size " + std::to_string(d));
    shape.push_back(d);
  }
  const int64_t total = checkedNumel(shape, c.describe() + ": output");
  const ValueId zeros = c.emit(Op::Expand, {c.scalar(xt.dtype, 0.0)}, {{"shape", Shape{total}}});
  const ValueId flatIndices = reshapeTo(c, indices, {xt.numel()});
  ValueId y = c.emit(Op::ScatterElements, {zeros, flatIndices, reshapeTo(c, x, {xt.numel()})},
                     {{"axis", int64_t(0)}, {"reduction", int64_t(0)}});
  y = reshapeTo(c, y, shape);
  if (std::optional<std::vector<int64_t>> out = c.intsInput(2, "output_shape")) {
    if (out->size() != shape.size()) c.fail("output_shape must have " + std::to_string(shape.size()) + " entries");
    std::vector<int64_t> grow(2 * shape.size(), 0);
    for (size_t k = 0; k < shape.size(); ++k) {
      if ((*out)[k] < shape[k] || (k < 2 && (*out)[k] != shape[k]))
        c.fail("output_shape " + TensorType{xt.dtype, *out}.str() + " is smaller than the unpooled " +
               TensorType{xt.dtype, shape}.str());
      grow[k + shape.size()] = (*out)[k] - shape[k];
    }
    y = c.emit(Op::Pad, {y}, {{"pads", grow}, {"value", 0.0}});
  }
  c.setOutput(0, y);
}

}  // namespace

void addMaxUnpoolConverters(ConverterTable& t) { t[{"", "MaxUnpool"}] = maxUnpool; }

}  // namespace mgc::onnximport
