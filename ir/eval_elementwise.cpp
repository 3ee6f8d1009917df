// Elementwise ops whose rules depend on dtypes beyond "double or int64":
// Cast, Pow, Div, Clip and Where.
#include "ir/eval_internal.h"

namespace mgc::eval {

HostTensor evalCast(const HostTensor& x, const TensorType& outT) {
  HostTensor out(outT);
  DType from = x.type.dtype, to = outT.dtype;
  for (int64_t i = 0, n = x.numel(); i < n; ++i) {
    if (to == DType::Bool) {
      out.as<uint8_t>()[i] = (isFloat(from) ? x.getF(i) != 0 : x.getI(i) != 0) ? 1 : 0;
    } else if (isFloat(from)) {
      storeF(out, i, x.getF(i));  // float -> int truncates toward zero
    } else if (isFloat(to)) {
      // int64 -> double -> float -> half: each step keeps enough bits that
      // the final rounding equals a direct one.
      out.setF(i, double(x.getI(i)));
    } else {
      out.setI(i, x.getI(i));  // integer narrowing wraps (two's complement)
    }
  }
  return out;
}

HostTensor evalPow(const Node& n, const HostTensor& a, const HostTensor& b, const TensorType& outT) {
  HostTensor out(outT);
  bool intBase = !isFloat(a.type.dtype), intExp = !isFloat(b.type.dtype);
  forEachBroadcast(outT.shape, a.type.shape, b.type.shape, [&](int64_t o, int64_t i, int64_t j) {
    if (!intBase) storeF(out, o, std::pow(a.getF(i), b.getF(j)));
    else if (intExp) out.setI(o, intPow(a.getI(i), b.getI(j)));
    else out.setI(o, truncToInt64(std::pow(double(a.getI(i)), b.getF(j))));
  });
  return out;
}

HostTensor evalDiv(const Node& n, const HostTensor& a, const HostTensor& b, const TensorType& outT) {
  return binaryArith(
      a, b, outT, [](double p, double q) { return p / q; },
      [&](int64_t p, int64_t q) -> int64_t {
        if (q == 0) fail(n, "integer division by zero");
        if (q == -1) return wrapSub(0, p);  // INT64_MIN / -1 wraps instead of trapping
        return p / q;                       // C++ truncates toward zero, as ONNX does
      });
}

HostTensor evalClip(const Node& n, const HostTensor& x, const TensorType& outT) {
  double lo = n.f("min", -INFINITY), hi = n.f("max", INFINITY);
  // Integer bounds: the smallest integer >= lo and the largest <= hi.
  int64_t ilo = truncToInt64(std::ceil(lo)), ihi = truncToInt64(std::floor(hi));
  // min(max(v, lo), hi): when lo > hi everything becomes hi, like numpy.
  return unaryExact(
      x, outT, [=](double v) { return std::min(std::max(v, lo), hi); },
      [=](int64_t v) { return std::min(std::max(v, ilo), ihi); });
}

HostTensor evalWhere(const HostTensor& c, const HostTensor& a, const HostTensor& b, const TensorType& outT) {
  HostTensor out(outT);
  const Shape& s = outT.shape;
  size_t es = dtypeSize(outT.dtype);
  const uint8_t* cond = c.as<uint8_t>();
  StridedWalk w(s, {broadcastStrides(c.type.shape, s), broadcastStrides(a.type.shape, s), broadcastStrides(b.type.shape, s)});
  for (int64_t o = 0, n = numel(s); o < n; ++o, w.next()) {
    const HostTensor& src = cond[w[0]] ? a : b;
    std::memcpy(out.data.data() + size_t(o) * es, src.data.data() + size_t(cond[w[0]] ? w[1] : w[2]) * es, es);
  }
  return out;
}

}  // namespace mgc::eval
