// Shared helpers of the reference evaluator: strides, the strided walker,
// dtype conversions that never hit undefined behaviour.
#include "ir/eval_internal.h"

namespace mgc::eval {

void fail(const Node& n, const std::string& why) {
  throw Error("node '" + n.name + "' (" + opName(n.op) + "): " + why);
}

std::vector<int64_t> rowMajorStrides(const Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

std::vector<int64_t> broadcastStrides(const Shape& in, const Shape& out) {
  std::vector<int64_t> inStrides = rowMajorStrides(in), s(out.size(), 0);
  size_t lead = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d)
    if (in[d] != 1) s[lead + d] = inStrides[d];
  return s;
}

StridedWalk::StridedWalk(const Shape& shape, std::vector<std::vector<int64_t>> strides, std::vector<int64_t> base)
    : shape_(shape), strides_(std::move(strides)), coord_(shape.size(), 0) {
  offsets_ = base.empty() ? std::vector<int64_t>(strides_.size(), 0) : std::move(base);
}

void StridedWalk::next() {
  for (size_t d = shape_.size(); d-- > 0;) {
    ++coord_[d];
    for (size_t k = 0; k < strides_.size(); ++k) offsets_[k] += strides_[k][d];
    if (coord_[d] < shape_[d]) return;
    // carry: rewind this axis and advance the next outer one
    for (size_t k = 0; k < strides_.size(); ++k) offsets_[k] -= strides_[k][d] * shape_[d];
    coord_[d] = 0;
  }
}

std::vector<double> toDoubles(const HostTensor& t) {
  int64_t n = t.numel();
  std::vector<double> v(static_cast<size_t>(n));
  if (t.type.dtype == DType::F32) {
    const float* f = t.as<float>();
    for (int64_t i = 0; i < n; ++i) v[size_t(i)] = f[i];
  } else {
    for (int64_t i = 0; i < n; ++i) v[size_t(i)] = t.getF(i);
  }
  return v;
}

std::vector<int64_t> toInt64s(const HostTensor& t) {
  std::vector<int64_t> v(size_t(t.numel()));
  for (int64_t i = 0, n = t.numel(); i < n; ++i) v[size_t(i)] = t.getI(i);
  return v;
}

void storeF(HostTensor& t, int64_t i, double v) {
  DType d = t.type.dtype;
  if (isFloat(d)) t.setF(i, v);
  else if (d == DType::Bool) t.as<uint8_t>()[i] = v != 0;
  else t.setI(i, truncToInt64(v));
}

void storeDoubles(HostTensor& t, const std::vector<double>& v) {
  if (t.type.dtype == DType::F32) {
    float* f = t.as<float>();
    for (size_t i = 0; i < v.size(); ++i) f[i] = float(v[i]);
    return;
  }
  for (size_t i = 0; i < v.size(); ++i) storeF(t, int64_t(i), v[i]);
}

void storeInt64s(HostTensor& t, const std::vector<int64_t>& v) {
  for (size_t i = 0; i < v.size(); ++i) t.setI(int64_t(i), v[i]);
}

int64_t intPow(int64_t base, int64_t exp) {
  if (exp < 0) {
    // 1 / base^|exp| truncated toward zero: only +-1 survive.
    if (base == 1) return 1;
    if (base == -1) return (exp & 1) ? -1 : 1;
    return 0;
  }
  int64_t r = 1;
  while (exp > 0) {
    if (exp & 1) r = wrapMul(r, base);
    base = wrapMul(base, base);
    exp >>= 1;
  }
  return r;
}

}  // namespace mgc::eval
