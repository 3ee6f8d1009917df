// Gradient rules of reductions and data movement. Everything but Gather is
// expressed with existing ops: reductions broadcast dy back, Pad's gradient
// is Pad with negated pads (negative pads crop), Slice's is a Pad of dy
// spread out to the step.
#include <cstdlib>

#include "passes/program/grad_builder.h"

namespace mgc::grad {

namespace {

// The reduce node's axes (empty attribute = every axis), as a mask.
std::vector<bool> reducedAxes(const Node& n, size_t rank) {
  auto axes = n.ints("axes", {{}});
  std::vector<bool> red(rank, axes.empty());
  for (int64_t a : axes) red[size_t(a < 0 ? a + int64_t(rank) : a)] = true;
  return red;
}

}  // namespace

Grads reduceGrad(Emitter& e, const Node& n, ValueId dy) {
  ValueId x = n.inputs[0], y = n.outputs[0];
  const Shape xs = e.shape(x);
  std::vector<bool> red = reducedAxes(n, xs.size());
  Shape kept = xs;
  int64_t count = 1;
  for (size_t d = 0; d < xs.size(); ++d)
    if (red[d]) {
      kept[d] = 1;
      count *= xs[d];
    }
  ValueId g = e.reshape(dy, kept);  // keepdims form: broadcasts against x
  switch (n.op) {
    case Op::ReduceSum: return {e.expand(g, xs)};
    case Op::ReduceMean: return {e.expand(e.mulScalar(g, 1.0 / double(count)), xs)};
    case Op::ReduceMax: case Op::ReduceMin: {
      // PyTorch amax/amin: dy split evenly among the elements equal to the result
      ValueId hit = e.op(Op::Equal, {x, e.reshape(y, kept)});
      std::vector<int64_t> axes;
      for (size_t d = 0; d < xs.size(); ++d)
        if (red[d]) axes.push_back(int64_t(d));
      ValueId ties = e.reduceSum(e.cast(hit, e.type(dy).dtype), axes, true);
      return {e.maskOrZero(hit, e.expand(e.div(g, ties), xs))};
    }
    default: break;
  }
  noGradient(n, "is not a reduction with a gradient");
}

Grads shapeGrad(Emitter& e, const Node& n, ValueId dy) {
  ValueId x = n.inputs[0];
  switch (n.op) {
    case Op::Reshape: return {e.reshape(dy, e.shape(x))};
    case Op::Transpose: {
      auto perm = n.ints("perm");
      std::vector<int64_t> inverse(perm.size());
      for (size_t k = 0; k < perm.size(); ++k) inverse[size_t(perm[k])] = int64_t(k);
      return {e.transpose(dy, inverse)};
    }
    case Op::Expand: return {e.sumToShape(dy, e.shape(x))};
    case Op::Pad: {  // out[c] = x[c - pad]  =>  dx[i] = dy[i + pad] = pad(dy, -pads)
      auto pads = n.ints("pads");
      for (int64_t& p : pads) p = -p;
      return {e.op(Op::Pad, {dy}, {{"pads", pads}, {"value", 0.0}})};
    }
    default: break;
  }
  noGradient(n, "is not a data movement op with a gradient");
}

Grads concatGrad(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need) {
  const Shape ys = e.shape(dy);
  int64_t axis = n.i("axis");
  if (axis < 0) axis += int64_t(ys.size());
  Grads out;
  int64_t offset = 0;
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    int64_t len = e.shape(n.inputs[k])[size_t(axis)];
    if (need[k]) {
      std::vector<int64_t> starts(ys.size(), 0), ends(ys.begin(), ys.end()), steps(ys.size(), 1);
      starts[size_t(axis)] = offset;
      ends[size_t(axis)] = offset + len;
      out.push_back(e.op(Op::Slice, {dy}, {{"starts", starts}, {"ends", ends}, {"steps", steps}}));
    } else {
      out.push_back(kNoValue);
    }
    offset += len;
  }
  return out;
}

Grads sliceGrad(Emitter& e, const Node& n, ValueId dy) {
  // Per axis: the slice reads `count` elements from `first` on with `step`.
  // Reverse dy where the step is negative (so it runs low to high), spread
  // it out to stride |step| with zeros (reshape [.., count, 1, ..] → pad to
  // [.., count, |step|, ..] → reshape → crop the trailing zeros), then pad
  // it into place.
  const Shape xs = e.shape(n.inputs[0]);
  auto starts = n.ints("starts"), steps = n.ints("steps");
  ValueId g = dy;
  size_t rank = xs.size();
  std::vector<int64_t> pads(2 * rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    Shape s = e.shape(g);
    int64_t count = s[d], step = steps[d];
    if (count == 0) continue;
    int64_t low = step > 0 ? starts[d] : starts[d] + (count - 1) * step;
    if (step < 0) {
      std::vector<int64_t> st(rank, 0), en(s.begin(), s.end()), sp(rank, 1);
      st[d] = count - 1;
      en[d] = -1;
      sp[d] = -1;
      g = e.op(Op::Slice, {g}, {{"starts", st}, {"ends", en}, {"steps", sp}});
    }
    int64_t stride = std::llabs(step), span = (count - 1) * stride + 1;
    if (stride > 1) {
      Shape split = s;
      split.insert(split.begin() + int64_t(d) + 1, 1);
      std::vector<int64_t> spread(2 * (rank + 1), 0);
      spread[(rank + 1) + d + 1] = stride - 1;  // pad after, on the new axis
      ValueId wide = e.op(Op::Pad, {e.reshape(g, split)}, {{"pads", spread}, {"value", 0.0}});
      Shape merged = s;
      merged[d] = count * stride;
      std::vector<int64_t> crop(2 * rank, 0);
      crop[rank + d] = -(stride - 1);  // negative pad crops the zeros after the last element
      g = e.op(Op::Pad, {e.reshape(wide, merged)}, {{"pads", crop}, {"value", 0.0}});
    }
    pads[d] = low;
    pads[rank + d] = xs[d] - low - span;
  }
  if (e.type(dy).numel() == 0) return {e.filled(0.0, e.type(n.inputs[0]))};
  return {e.op(Op::Pad, {g}, {{"pads", pads}, {"value", 0.0}})};
}

Grads gatherGrad(Emitter& e, const Node& n, ValueId dy) {
  Attrs a{{"axis", n.i("axis", 0)}, {"shape", e.shape(n.inputs[0])}};
  return {e.op(Op::GatherGrad, {dy, n.inputs[1]}, a), kNoValue};
}

// GatherElements picks data[.., idx, ..]: its adjoint adds dy back at the
// picked places, duplicates summing (ScatterElements with reduction add into
// zeros). The zeros are an Expand of a scalar, not a data-sized constant.
Grads gatherElementsGrad(Emitter& e, const Node& n, ValueId dy) {
  const TensorType data = e.type(n.inputs[0]);
  ValueId zeros = e.expand(e.scalar(0, data.dtype), data.shape);
  return {e.op(Op::ScatterElements, {zeros, n.inputs[1], dy}, {{"axis", n.i("axis", 0)}, {"reduction", int64_t(1)}}),
          kNoValue};
}

// ScatterElements: the updates' gradient is dy read back at the indices
// (PyTorch's scatter backward; with duplicate indices under reduction none
// every duplicate gets it, as in PyTorch). data's gradient is dy where no
// update overwrote it (reduction none: the written places are zeroed by
// scattering zeros) or dy everywhere (add). Multiply has no rule.
Grads scatterElementsGrad(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need) {
  int64_t reduction = n.i("reduction", 0), axis = n.i("axis", 0);
  if (reduction == 2) noGradient(n, "ScatterElements with reduction 'mul' has no gradient rule");
  ValueId idx = n.inputs[1], upd = n.inputs[2];
  Grads out(3, kNoValue);
  if (need[0]) {
    out[0] = reduction == 1 ? dy
                            : e.op(Op::ScatterElements, {dy, idx, e.expand(e.scalar(0, e.type(upd).dtype), e.shape(upd))},
                                   {{"axis", axis}, {"reduction", int64_t(0)}});
  }
  if (need[2]) out[2] = e.op(Op::GatherElements, {dy, idx}, {{"axis", axis}});
  return out;
}

}  // namespace mgc::grad
