// Data movement → the copy kernel (Transpose, Slice, Expand, Concat, Pad)
// and the gather kernel. Param layouts: kernels/src/copy.comp, gather.comp.
#include <cmath>

#include "kernels/lower_common.h"

namespace mgc::kern {

namespace {

// One dim of copy.comp's iteration space.
struct CopyDim {
  int64_t outDim, outStride, start, step, inDim, inStride;
};

uint32_t padBits(const Graph& g, const Node& n, double value) {
  if (isDeviceFloat(outType(g, n).dtype)) return f32Bits(value);
  return i32(n, int64_t(value), "pad value");
}

// Whether dim c reads inside the input for every output index (never pads).
bool alwaysInside(const CopyDim& c) {
  const int64_t last = c.start + (c.outDim - 1) * c.step;
  return c.start >= 0 && c.start < c.inDim && last >= 0 && last < c.inDim;
}

// Dims outer, inner that walk as one dim: contiguous in the output, never
// padding, and the source advancing by inner's source step across the seam.
// The merged dim reads [0, outDim) with step 1 and the combined stride.
bool mergeInto(CopyDim& outer, const CopyDim& inner, int64_t* srcBase) {
  if (!alwaysInside(outer) || !alwaysInside(inner)) return false;
  if (outer.outStride != inner.outDim * inner.outStride) return false;
  const int64_t innerStep = inner.step * inner.inStride;
  if (innerStep < 0 || outer.step * outer.inStride != inner.outDim * innerStep) return false;
  *srcBase += outer.start * outer.inStride + inner.start * inner.inStride;
  const int64_t dim = outer.outDim * inner.outDim;
  outer = {dim, inner.outStride, 0, 1, dim, innerStep};
  return true;
}

// copy.comp walks 6 dims; a walk with more runs as one dispatch per index
// of the outer dims past 6, at most this many.
constexpr int64_t kMaxCopyPieces = 256;

DispatchPlan copyDispatch(const Node& n, const std::vector<CopyDim>& kept, ValueId in, ValueId out, int64_t outBase,
                          int64_t srcBase, uint32_t pad) {
  int64_t count = 1;
  for (const CopyDim& c : kept) count *= c.outDim;
  DispatchPlan d = makePlan(n, "copy");
  d.params.assign(4 + 6 * 6, 0);
  d.params[0] = u32(n, count, "element count");
  d.params[1] = u32(n, outBase, "output offset");
  d.params[2] = pad;
  d.params[3] = u32(n, srcBase, "source offset");
  size_t lead = 6 - kept.size();
  for (size_t k = 0; k < 6; ++k) {
    uint32_t* q = d.params.data() + 4 + 6 * k;
    if (k < lead) {
      q[0] = 1;  // outDim 1, start 0, inDim 1: a no-op dim
      q[4] = 1;
      continue;
    }
    const CopyDim& c = kept[k - lead];
    q[0] = u32(n, c.outDim, "dim");
    q[1] = u32(n, c.outStride, "stride");
    q[2] = i32(n, c.start, "start");
    q[3] = i32(n, c.step, "step");
    q[4] = i32(n, c.inDim, "dim");
    q[5] = u32(n, c.inStride, "stride");
  }
  d.bindings = {in, out};
  setItemGrid(d, n, uint64_t(count));
  return d;
}

// Copy dispatches over dims (outermost first) from `in` into `out` at
// element offset outBase. Size-1 dims whose source is inside the input
// fold into the source base and adjacent dims that walk as one merge
// (mergeInto); past 6 dims, the outer ones are peeled into one dispatch
// per index (they must never pad).
std::vector<DispatchPlan> copyPlans(const Node& n, const std::vector<CopyDim>& dims, ValueId in, ValueId out,
                                    int64_t outBase, uint32_t pad) {
  int64_t srcBase = 0;
  std::vector<CopyDim> kept;
  for (const CopyDim& c : dims) {
    if (c.outDim == 1 && c.start >= 0 && c.start < c.inDim) srcBase += c.start * c.inStride;
    else if (kept.empty() || !mergeInto(kept.back(), c, &srcBase)) kept.push_back(c);
  }
  const size_t peel = kept.size() > 6 ? kept.size() - 6 : 0;
  int64_t pieces = 1;
  for (size_t k = 0; k < peel; ++k) {
    if (!alwaysInside(kept[k]))
      fail(n, "copy walks at most 6 dims, this needs " + std::to_string(kept.size()) + " with padding on an outer one");
    pieces *= kept[k].outDim;
    if (pieces > kMaxCopyPieces)
      fail(n, "copy walks at most 6 dims, this needs " + std::to_string(kept.size()) + " and more than " +
                  std::to_string(kMaxCopyPieces) + " dispatches for the outer ones");
  }
  const std::vector<CopyDim> inner(kept.begin() + long(peel), kept.end());
  std::vector<DispatchPlan> plans;
  for (int64_t p = 0; p < pieces; ++p) {
    int64_t rem = p, o = outBase, s = srcBase;
    for (size_t k = peel; k-- > 0;) {
      const CopyDim& c = kept[k];
      const int64_t i = rem % c.outDim;
      rem /= c.outDim;
      o += i * c.outStride;
      s += (c.start + i * c.step) * c.inStride;
    }
    plans.push_back(copyDispatch(n, inner, in, out, o, s, pad));
  }
  return plans;
}

std::vector<DispatchPlan> single(const Graph& g, const Node& n, std::vector<CopyDim> dims, uint32_t pad = 0) {
  if (outType(g, n).numel() == 0) return {};
  return copyPlans(n, dims, n.inputs[0], n.outputs[0], 0, pad);
}

}  // namespace

std::vector<DispatchPlan> lowerTranspose(const Graph& g, const Node& n) {
  const Shape &in = inType(g, n, 0).shape, &out = outType(g, n).shape;
  auto perm = n.ints("perm");
  auto is = rowMajorStrides(in), os = rowMajorStrides(out);
  std::vector<CopyDim> dims;
  for (size_t d = 0; d < out.size(); ++d) {
    size_t p = size_t(perm.at(d));
    dims.push_back({out[d], os[d], 0, 1, in[p], is[p]});
  }
  return single(g, n, dims);
}

std::vector<DispatchPlan> lowerSlice(const Graph& g, const Node& n) {
  const Shape &in = inType(g, n, 0).shape, &out = outType(g, n).shape;
  auto starts = n.ints("starts"), steps = n.ints("steps");
  auto is = rowMajorStrides(in), os = rowMajorStrides(out);
  std::vector<CopyDim> dims;
  for (size_t d = 0; d < out.size(); ++d) dims.push_back({out[d], os[d], starts.at(d), steps.at(d), in[d], is[d]});
  return single(g, n, dims);
}

std::vector<DispatchPlan> lowerExpand(const Graph& g, const Node& n) {
  const Shape &in = inType(g, n, 0).shape, &out = outType(g, n).shape;
  auto bs = broadcastStrides(in, out), os = rowMajorStrides(out);
  size_t lead = out.size() - in.size();
  std::vector<CopyDim> dims;
  for (size_t d = 0; d < out.size(); ++d) {
    bool broadcast = d < lead || in[d - lead] == 1;
    dims.push_back({out[d], os[d], 0, broadcast ? 0 : 1, broadcast ? 1 : out[d], bs[d]});
  }
  return single(g, n, dims);
}

std::vector<DispatchPlan> lowerConcat(const Graph& g, const Node& n) {
  const Shape& out = outType(g, n).shape;
  size_t axis = size_t(n.i("axis"));
  auto os = rowMajorStrides(out);
  std::vector<DispatchPlan> plans;
  int64_t offset = 0;
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    const Shape& in = inType(g, n, k).shape;
    auto is = rowMajorStrides(in);
    std::vector<CopyDim> dims;
    for (size_t d = 0; d < in.size(); ++d) dims.push_back({in[d], os[d], 0, 1, in[d], is[d]});
    if (numel(in) > 0)
      for (DispatchPlan& p : copyPlans(n, dims, n.inputs[k], n.outputs[0], offset * os.at(axis), 0))
        plans.push_back(std::move(p));
    offset += in.at(axis);
  }
  return plans;
}

std::vector<DispatchPlan> lowerPad(const Graph& g, const Node& n) {
  const Shape &in = inType(g, n, 0).shape, &out = outType(g, n).shape;
  auto pads = n.ints("pads");
  auto is = rowMajorStrides(in), os = rowMajorStrides(out);
  std::vector<CopyDim> dims;
  for (size_t d = 0; d < out.size(); ++d) dims.push_back({out[d], os[d], -pads.at(d), 1, in[d], is[d]});
  return single(g, n, dims, padBits(g, n, n.f("value", 0.0)));
}

std::vector<DispatchPlan> lowerGather(const Graph& g, const Node& n) {
  const Shape& data = inType(g, n, 0).shape;
  size_t axis = size_t(n.i("axis", 0));
  int64_t inner = 1;
  for (size_t d = axis + 1; d < data.size(); ++d) inner *= data[d];
  int64_t count = outType(g, n).numel();
  if (count == 0) return {};
  DispatchPlan d = makePlan(n, "gather");
  d.params = {u32(n, count, "element count"), u32(n, data.at(axis), "axis dim"), u32(n, inner, "inner size"),
              u32(n, inType(g, n, 1).numel(), "index count")};
  d.bindings = {n.inputs[0], n.inputs[1], n.outputs[0]};
  setItemGrid(d, n, uint64_t(count));
  return {d};
}

}  // namespace mgc::kern
