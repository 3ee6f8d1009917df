// Reference evaluation of GatherElements (byte copies: exact for every
// dtype), ScatterElements, DropoutMask and StateWrite.
#include <cstring>

#include "ir/dropout.h"
#include "ir/eval_internal.h"

namespace mgc::eval {

// data and indices viewed as [outer, axis, inner] (they agree off the axis):
// out[o, j, r] = data[o, idx[o, j, r], r].
HostTensor evalGatherElements(const Node& n, const HostTensor& data, const HostTensor& idx, const TensorType& outT) {
  const Shape& s = data.type.shape;
  int64_t axis = n.i("axis", 0);
  if (axis < 0) axis += data.type.rank();
  int64_t outer = 1, D = s[size_t(axis)], inner = 1, J = idx.type.shape[size_t(axis)];
  for (int64_t d = 0; d < axis; ++d) outer *= s[size_t(d)];
  for (size_t d = size_t(axis) + 1; d < s.size(); ++d) inner *= s[d];
  size_t es = dtypeSize(data.type.dtype);
  HostTensor out(outT);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < J; ++j)
      for (int64_t r = 0; r < inner; ++r) {
        int64_t at = (o * J + j) * inner + r, i = idx.getI(at);
        if (i < -D || i >= D) fail(n, "index " + std::to_string(i) + " out of range for axis of size " + std::to_string(D));
        if (i < 0) i += D;
        std::memcpy(out.data.data() + size_t(at) * es, data.data.data() + size_t((o * D + i) * inner + r) * es, es);
      }
  return out;
}

// out = data; then for every index element in order: out[o, idx, r] =
// update (reduction 0), += update (1) or *= update (2).
HostTensor evalScatterElements(const Node& n, const HostTensor& data, const HostTensor& idx, const HostTensor& updates,
                               const TensorType& outT) {
  const Shape& s = data.type.shape;
  int64_t axis = n.i("axis", 0), reduction = n.i("reduction", 0);
  if (axis < 0) axis += data.type.rank();
  int64_t outer = 1, D = s[size_t(axis)], inner = 1, J = idx.type.shape[size_t(axis)];
  for (int64_t d = 0; d < axis; ++d) outer *= s[size_t(d)];
  for (size_t d = size_t(axis) + 1; d < s.size(); ++d) inner *= s[d];
  HostTensor out = data;
  out.type = outT;
  bool fl = isFloat(outT.dtype);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < J; ++j)
      for (int64_t r = 0; r < inner; ++r) {
        int64_t at = (o * J + j) * inner + r, i = idx.getI(at);
        if (i < -D || i >= D) fail(n, "index " + std::to_string(i) + " out of range for axis of size " + std::to_string(D));
        if (i < 0) i += D;
        int64_t dst = (o * D + i) * inner + r;
        if (fl) {
          double u = updates.getF(at), v = out.getF(dst);
          out.setF(dst, reduction == 0 ? u : reduction == 1 ? v + u : v * u);
        } else {
          int64_t u = updates.getI(at), v = out.getI(dst);
          out.setI(dst, reduction == 0 ? u : reduction == 1 ? wrapAdd(v, u) : wrapMul(v, u));
        }
      }
  return out;
}

// The counter-based mask of ir/dropout.h, element by element.
HostTensor evalDropoutMask(const Node& n, const HostTensor& step, const TensorType& outT) {
  const double ratio = n.f("ratio", 0.5);
  const uint32_t key = dropout::stepKey(uint32_t(n.i("seed", 0)), float(step.getF(0)));
  const uint32_t thresh = dropout::threshold(ratio);
  const float keep = dropout::scale(ratio);
  HostTensor out(outT);
  for (int64_t i = 0; i < out.numel(); ++i) out.setF(i, dropout::dropped(key, uint32_t(i), thresh) ? 0.0f : keep);
  return out;
}

// state with value's rows copied in at offset along axis (byte copies);
// an offset outside [0, D - J] writes nothing, as on the GPU.
HostTensor evalStateWrite(int64_t axis, const HostTensor& state, const HostTensor& value, const HostTensor& offset,
                          const TensorType& outT) {
  const Shape& s = state.type.shape;
  if (axis < 0) axis += state.type.rank();
  int64_t outer = 1, D = s[size_t(axis)], inner = 1, J = value.type.shape[size_t(axis)];
  for (int64_t d = 0; d < axis; ++d) outer *= s[size_t(d)];
  for (size_t d = size_t(axis) + 1; d < s.size(); ++d) inner *= s[d];
  HostTensor out = state;
  out.type = outT;
  const int64_t at = offset.getI(0);
  if (at < 0 || at > D - J) return out;
  const size_t es = dtypeSize(state.type.dtype), row = size_t(J * inner) * es;
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(out.data.data() + size_t((o * D + at) * inner) * es, value.data.data() + size_t(o) * row, row);
  return out;
}

// Each step rounded to f32, as the separate ops of the unfused update.
std::vector<HostTensor> evalAdamStep(const Node& n, const Inputs& in) {
  const HostTensor &p = *in[0], &g = *in[1], &m = *in[2], &v = *in[3], &coef = *in[4];
  const float b1 = float(n.f("beta1", 0.9)), b2 = float(n.f("beta2", 0.999)), eps = float(n.f("eps", 1e-8));
  const float c1 = float(1.0 - n.f("beta1", 0.9)), c2 = float(1.0 - n.f("beta2", 0.999));
  const float wd = float(n.f("weight_decay", 0.0));
  const float keep = float(coef.getF(0)), stepSize = float(coef.getF(1)), bc2 = float(coef.getF(2)),
              scale = float(coef.getF(3));
  if (scale == 0) return {p, m, v};  // a skipped step (ir/ops.def)
  std::vector<HostTensor> out(3, HostTensor(p.type));
  for (int64_t i = 0; i < p.numel(); ++i) {
    const float param = float(p.getF(i));
    float grad = float(g.getF(i)) * scale;
    if (wd != 0) grad = grad + float(param * wd);
    const float mNext = float(float(m.getF(i)) * b1) + float(grad * c1);
    const float vNext = float(float(v.getF(i)) * b2) + float(float(grad * grad) * c2);
    const float denom = float(std::sqrt(vNext) / bc2) + eps;
    out[0].setF(i, float(param * keep) - float(float(mNext / denom) * stepSize));
    out[1].setF(i, mNext);
    out[2].setF(i, vNext);
  }
  return out;
}

}  // namespace mgc::eval
