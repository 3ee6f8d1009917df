// Reductions and ArgMax. Integers accumulate in int64 so that shape
// arithmetic (ReduceProd of a shape, ...) stays exact.
#include "ir/eval_internal.h"

namespace mgc::eval {

namespace {

template <class T>
T reduceInit(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::Sum: return T(0);
    case ReduceKind::Mean: return T(0);
    case ReduceKind::Prod: return T(1);
    case ReduceKind::Max:
      return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
    case ReduceKind::Min:
      return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
  }
  return T(0);
}

double combine(ReduceKind kind, double acc, double v) {
  switch (kind) {
    case ReduceKind::Sum: return acc + v;
    case ReduceKind::Mean: return acc + v;
    case ReduceKind::Prod: return acc * v;
    case ReduceKind::Max: return nanMax(acc, v);
    case ReduceKind::Min: return nanMin(acc, v);
  }
  return acc;
}

int64_t combine(ReduceKind kind, int64_t acc, int64_t v) {
  switch (kind) {
    case ReduceKind::Sum: return wrapAdd(acc, v);
    case ReduceKind::Mean: return wrapAdd(acc, v);
    case ReduceKind::Prod: return wrapMul(acc, v);
    case ReduceKind::Max: return std::max(acc, v);
    case ReduceKind::Min: return std::min(acc, v);
  }
  return acc;
}

// Folds every element of X into acc[outIndex]; `w` maps input positions to
// output offsets (stride 0 along reduced axes).
template <class T>
std::vector<T> reduceLoop(const std::vector<T>& X, int64_t outCount, StridedWalk w, ReduceKind kind) {
  std::vector<T> acc(size_t(outCount), reduceInit<T>(kind));
  for (size_t i = 0; i < X.size(); ++i, w.next()) acc[size_t(w[0])] = combine(kind, acc[size_t(w[0])], X[i]);
  if (kind == ReduceKind::Mean) {
    T count = T(outCount ? int64_t(X.size()) / outCount : 0);
    for (T& a : acc) a = count ? a / count : a;  // integer mean truncates toward zero
  }
  return acc;
}

}  // namespace

HostTensor evalReduce(const Node& n, const HostTensor& x, const TensorType& outT, ReduceKind kind) {
  const Shape& s = x.type.shape;
  int rank = x.type.rank();
  auto axes = n.ints("axes", {{}});
  std::vector<bool> reduced(size_t(rank), axes.empty());
  for (int64_t a : axes) reduced[size_t(a < 0 ? a + rank : a)] = true;
  // The output in keepdims form has the same layout either way.
  Shape kept = s;
  for (int d = 0; d < rank; ++d)
    if (reduced[size_t(d)]) kept[size_t(d)] = 1;
  std::vector<int64_t> strides = rowMajorStrides(kept);
  for (int d = 0; d < rank; ++d)
    if (reduced[size_t(d)]) strides[size_t(d)] = 0;
  StridedWalk w(s, {strides});
  HostTensor out(outT);
  if (isFloat(x.type.dtype)) storeDoubles(out, reduceLoop(toDoubles(x), outT.numel(), w, kind));
  else storeInt64s(out, reduceLoop(toInt64s(x), outT.numel(), w, kind));
  return out;
}

HostTensor evalArgMax(const Node& n, const HostTensor& x, const TensorType& outT) {
  int rank = x.type.rank();
  int64_t axis = n.i("axis", 0);
  if (axis < 0) axis += rank;
  int64_t outer = 1, D = rank ? x.type.shape[size_t(axis)] : 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.type.shape[size_t(d)];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x.type.shape[size_t(d)];
  bool floats = isFloat(x.type.dtype);
  // a NaN counts as the maximum (numpy): the first NaN wins
  auto greater = [&](int64_t i, int64_t j) {
    if (!floats) return x.getI(i) > x.getI(j);
    double a = x.getF(i), b = x.getF(j);
    return std::isnan(b) ? false : (std::isnan(a) || a > b);
  };
  HostTensor out(outT);
  int64_t* ys = out.as<int64_t>();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t best = 0, base = o * D * inner + i;
      for (int64_t d = 1; d < D; ++d)
        if (greater(base + d * inner, base + best * inner)) best = d;  // strict: first max wins
      ys[o * inner + i] = best;
    }
  return out;
}

}  // namespace mgc::eval
