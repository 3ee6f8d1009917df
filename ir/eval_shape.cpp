// Data movement: Reshape, Transpose, Concat, Slice, Gather, Expand, Pad.
// Every op copies whole elements as bytes, so they are exact for every
// dtype (i64 shape tensors in constant folding rely on this).
#include "ir/eval_internal.h"

namespace mgc::eval {

namespace {

// out[o] = x[walk offset] for every output element.
HostTensor gatherByWalk(const HostTensor& x, const TensorType& outT, StridedWalk w) {
  HostTensor out(outT);
  size_t es = dtypeSize(outT.dtype);
  for (int64_t o = 0, n = outT.numel(); o < n; ++o, w.next())
    std::memcpy(out.data.data() + size_t(o) * es, x.data.data() + size_t(w[0]) * es, es);
  return out;
}

int64_t normalizedAxis(int64_t axis, int rank) { return axis < 0 ? axis + rank : axis; }

}  // namespace

HostTensor evalReshape(const HostTensor& x, const TensorType& outT) {
  HostTensor out;
  out.type = outT;
  out.data = x.data;
  return out;
}

HostTensor evalTranspose(const Node& n, const HostTensor& x, const TensorType& outT) {
  auto perm = n.ints("perm");
  std::vector<int64_t> in = rowMajorStrides(x.type.shape), strides;
  for (int64_t p : perm) strides.push_back(in[size_t(p)]);
  return gatherByWalk(x, outT, StridedWalk(outT.shape, {strides}));
}

HostTensor swapLastTwo(const HostTensor& x) {
  const size_t r = x.type.shape.size();
  std::vector<int64_t> strides = rowMajorStrides(x.type.shape);
  TensorType t = x.type;
  std::swap(t.shape[r - 1], t.shape[r - 2]);
  std::swap(strides[r - 1], strides[r - 2]);
  return gatherByWalk(x, t, StridedWalk(t.shape, {strides}));
}

HostTensor evalConcat(const Node& n, const Inputs& in, const TensorType& outT) {
  int rank = outT.rank();
  int64_t axis = normalizedAxis(n.i("axis"), rank);
  size_t es = dtypeSize(outT.dtype);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= outT.shape[size_t(d)];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= outT.shape[size_t(d)];
  HostTensor out(outT);
  uint8_t* dst = out.data.data();
  for (int64_t o = 0; o < outer; ++o)
    for (const HostTensor* t : in) {
      size_t chunk = size_t(t->type.shape[size_t(axis)] * inner) * es;
      if (chunk == 0) continue;  // an empty input: nothing to copy (and data() may be null)
      std::memcpy(dst, t->data.data() + size_t(o) * chunk, chunk);
      dst += chunk;
    }
  return out;
}

HostTensor evalSlice(const Node& n, const HostTensor& x, const TensorType& outT) {
  auto starts = n.ints("starts"), steps = n.ints("steps");
  std::vector<int64_t> in = rowMajorStrides(x.type.shape), strides(in.size());
  int64_t base = 0;
  for (size_t d = 0; d < in.size(); ++d) {
    int64_t count = outT.shape[d], first = starts[d], last = first + (count - 1) * steps[d];
    // the shape rule trusts the normalization; the evaluator reads memory, so check
    if (count > 0 && (first < 0 || first >= x.type.shape[d] || last < 0 || last >= x.type.shape[d]))
      fail(n, "axis " + std::to_string(d) + " reads outside [0, " + std::to_string(x.type.shape[d]) + ")");
    base += first * in[d];
    strides[d] = steps[d] * in[d];
  }
  if (outT.numel() == 0) return HostTensor(outT);
  return gatherByWalk(x, outT, StridedWalk(outT.shape, {strides}, {base}));
}

HostTensor evalGather(const Node& n, const HostTensor& data, const HostTensor& idx, const TensorType& outT) {
  const Shape& s = data.type.shape;
  int64_t axis = normalizedAxis(n.i("axis", 0), data.type.rank());
  int64_t outer = 1, D = s[size_t(axis)], inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= s[size_t(d)];
  for (size_t d = size_t(axis) + 1; d < s.size(); ++d) inner *= s[d];
  size_t es = dtypeSize(data.type.dtype), row = size_t(inner) * es;
  int64_t count = idx.numel();
  HostTensor out(outT);
  uint8_t* dst = out.data.data();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < count; ++k) {
      int64_t i = idx.getI(k);
      if (i < -D || i >= D) fail(n, "index " + std::to_string(i) + " out of range for axis of size " + std::to_string(D));
      if (i < 0) i += D;
      std::memcpy(dst, data.data.data() + size_t(o * D + i) * row, row);
      dst += row;
    }
  return out;
}

HostTensor evalExpand(const HostTensor& x, const TensorType& outT) {
  return gatherByWalk(x, outT, StridedWalk(outT.shape, {broadcastStrides(x.type.shape, outT.shape)}));
}

HostTensor evalPad(const Node& n, const HostTensor& x, const TensorType& outT) {
  auto pads = n.ints("pads");
  size_t rank = size_t(outT.rank()), es = dtypeSize(outT.dtype);
  // one element holding the fill value, converted like any other store
  HostTensor fill(TensorType{outT.dtype, {}});
  storeF(fill, 0, n.f("value", 0.0));
  std::vector<int64_t> in = rowMajorStrides(x.type.shape), coord(rank, 0);
  HostTensor out(outT);
  for (int64_t o = 0, total = outT.numel(); o < total; ++o) {
    // negative pads crop: the same mapping covers both directions
    int64_t src = 0;
    bool inside = true;
    for (size_t d = 0; d < rank; ++d) {
      int64_t c = coord[d] - pads[d];
      inside = inside && c >= 0 && c < x.type.shape[d];
      src += c * in[d];
    }
    std::memcpy(out.data.data() + size_t(o) * es, inside ? x.data.data() + size_t(src) * es : fill.data.data(), es);
    for (size_t d = rank; d-- > 0;) {
      if (++coord[d] < outT.shape[d]) break;
      coord[d] = 0;
    }
  }
  return out;
}

}  // namespace mgc::eval
