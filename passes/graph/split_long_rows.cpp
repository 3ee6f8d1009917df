// split-long-rows: a normalization or a sum / mean over a few very long
// rows (GroupNorm as exported: 8 rows of 32,768 values; a loss's total)
// would run as one workgroup per row, a handful of workgroups on a GPU with
// a hundred cores. Each row is cut into P equal chunks of L values
// ([R, D] → [R, P, L]) and reduced in two steps, over L then over P, so
// R·P workgroups share the first (most of the bytes):
//
//   %m = reduce_mean(%x) {axes = [2], keepdims = 1} : f32[1,8,1]     (x: f32[1,8,32768])
//     →  %x3 = reshape(%x) {shape = [8, 64, 512]}
//        %m1 = reduce_mean(%x3) {axes = [2], keepdims = 0} : f32[8,64]
//        %m2 = reduce_mean(%m1) {axes = [1], keepdims = 0} : f32[8]
//        %m = reshape(%m2) {shape = [1, 8, 1]}
//
// A mean of equal chunks' means is the mean. A layer_norm over such rows
// takes its rows' statistics from the moments of their chunks (each
// chunk's mean and sum of squared deviations, R·P workgroups), which it
// combines per workgroup as it normalizes: two dispatches where the
// written-out form took six.
//
//   %y = layer_norm(%x, %s) {axis = 2} : f32[1,8,32768]
//     →  %x3 = reshape(%x) {shape = [8, 64, 512]}
//        %m = moments(%x3) : f32[8,64,2]
//        %y = layer_norm(%x, %s, none, %m) {axis = 2}
//
// An rms_norm over such rows becomes its written-out form on the split rows
// (mean of squares in two steps, the scaled result). Only f32, rows fewer
// than kFewRows and at least kLongRow long, with a chunk length in [64,
// 512] dividing them. Runs after canonicalize-patterns (which would fold a
// written-out layer_norm back).
//
// A sum / mean over leading and trailing axes with few outputs and a long
// extent (BatchNorm's statistics in training: [N, C, H, W] over (0, 2, 3),
// one workgroup per channel walking N·H·W values) has the trailing run of
// reduced axes (H·W) cut the same way, the first step over the chunks,
// the second over the chunk results and the leading reduced axes:
//
//   %m = reduce_mean(%x) {axes = [0, 2, 3], keepdims = 1} : f32[1,64,1,1]   (x: f32[4,64,56,56])
//     →  %x4 = reshape(%x) {shape = [4, 64, 7, 448]}
//        %m1 = reduce_mean(%x4) {axes = [3], keepdims = 0} : f32[4,64,7]
//        %m2 = reduce_mean(%m1) {axes = [0, 2], keepdims = 0} : f32[64]
//        %m = reshape(%m2) {shape = [1, 64, 1, 1]}
#include <algorithm>

#include "passes/graph/expand_nodes.h"
#include "passes/graph/passes.h"

namespace mgc {

namespace {

constexpr int64_t kFewRows = 128, kLongRow = 4096;
// Outputs below which a reduction over leading and trailing axes is split
// (its outputs' workgroups would leave most of a large GPU idle).
constexpr int64_t kFewOutputs = 1024;

// The chunk length for rows of D values: the largest divisor of D in
// [64, 512], or 0.
int64_t chunkLength(int64_t D) {
  for (int64_t L = 512; L >= 64; --L)
    if (D % L == 0) return L;
  return 0;
}

// Rows and row length of a reduction over trailing axes [first, rank) of
// x, if it is worth splitting: {R, D, L}; L = 0 if not.
struct Split {
  int64_t rows = 0, length = 0, chunk = 0;
};
Split splitOf(const TensorType& x, int64_t first) {
  Split s;
  if (x.dtype != DType::F32 || first < 0 || first > x.rank()) return s;
  s.length = 1;
  for (int64_t d = first; d < x.rank(); ++d) s.length *= x.shape[size_t(d)];
  if (s.length < kLongRow) return s;
  s.rows = x.numel() / s.length;
  if (s.rows < 1 || s.rows >= kFewRows) return s;
  s.chunk = chunkLength(s.length);
  return s;
}

// The first reduced axis if `axes` (any order, negative allowed, empty:
// all) is exactly the trailing axes [first, rank), else -1.
int64_t trailingAxes(std::vector<int64_t> axes, int64_t rank) {
  if (axes.empty()) return 0;
  for (int64_t& a : axes) a = a < 0 ? a + rank : a;
  std::sort(axes.begin(), axes.end());
  for (size_t k = 0; k < axes.size(); ++k)
    if (axes[k] != rank - int64_t(axes.size()) + int64_t(k)) return -1;
  return axes.front();
}

void splitReduce(Graph& g, const Node& n, const Split& s) {
  NodeEmitter e{g, n.name};
  ValueId x3 = e.reshape(n.inputs[0], {s.rows, s.length / s.chunk, s.chunk});
  ValueId r1 = e.reduce(n.op, x3, 2, false);
  ValueId r2 = e.reduce(n.op, r1, 1, false);
  e.finish(Op::Reshape, {r2}, n.outputs[0], {{"shape", std::vector<int64_t>(g.type(n.outputs[0]).shape)}});
}

// layer_norm over its chunks' moments.
void splitLayerNorm(Graph& g, const Node& n, const Split& s) {
  NodeEmitter e{g, n.name};
  ValueId moments = e.op(Op::Moments, {e.reshape(n.inputs[0], {s.rows, s.length / s.chunk, s.chunk})});
  ValueId bias = n.inputs.size() > 2 ? n.inputs[2] : kNoValue;
  e.finish(Op::LayerNorm, {n.inputs[0], n.inputs[1], bias, moments}, n.outputs[0], n.attrs);
}

// rms_norm: x / sqrt(mean(x²) + eps) * scale (epsilon_outside: / (sqrt(..)
// + eps)).
void splitRmsNorm(Graph& g, const Node& n, const Split& s) {
  NodeEmitter e{g, n.name};
  const TensorType x = g.type(n.inputs[0]);
  auto mean = [&](ValueId v) { return e.reduce(Op::ReduceMean, e.reduce(Op::ReduceMean, v, 2, true), 1, true); };
  ValueId x3 = e.reshape(n.inputs[0], {s.rows, s.length / s.chunk, s.chunk});
  const bool outside = n.i("epsilon_outside", 0) != 0;
  ValueId var = mean(e.op(Op::Mul, {x3, x3}));
  HostTensor eps(TensorType{DType::F32, {}});
  eps.setF(0, n.f("epsilon", 1e-5));
  ValueId epsV = g.addConstant(g.uniqueName(n.name + ".eps"), std::move(eps));
  ValueId root = outside ? e.op(Op::Add, {e.op(Op::Sqrt, {var}), epsV}) : e.op(Op::Sqrt, {e.op(Op::Add, {var, epsV})});
  ValueId inv = e.op(Op::Reciprocal, {root});
  // The scale as [P, L], broadcast over the rows: the whole tail is one
  // elementwise tree (fuse-elementwise), reshaped back at the end.
  const Shape chunks{s.length / s.chunk, s.chunk};
  auto param = [&](ValueId p) { return g.type(p).shape == chunks ? p : e.reshape(p, chunks); };
  ValueId y = e.op(Op::Mul, {e.op(Op::Mul, {x3, inv}), param(n.inputs[1])});
  e.finish(Op::Reshape, {y}, n.outputs[0], {{"shape", std::vector<int64_t>(x.shape)}});
}

// A sum / mean over axes `axes` (sorted, normalized) of x that include the
// last axis and some axis before the trailing run, with fewer than
// kFewOutputs outputs and at least kLongRow values each: the trailing run
// [first, rank) cut into chunks of L (D = its length).
struct StridedSplit {
  int64_t first = -1, runLength = 0, chunk = 0;
  std::vector<int64_t> leading;  // the reduced axes before `first`, sorted
};
StridedSplit stridedSplitOf(const TensorType& x, std::vector<int64_t> axes) {
  StridedSplit s;
  const int64_t rank = x.rank();
  if (x.dtype != DType::F32 || axes.empty() || x.numel() == 0) return s;
  for (int64_t& a : axes) a = a < 0 ? a + rank : a;
  std::sort(axes.begin(), axes.end());
  if (axes.back() != rank - 1) return s;
  int64_t first = rank - 1;
  while (first > 0 && std::binary_search(axes.begin(), axes.end(), first - 1)) --first;
  if (axes.front() >= first) return s;  // trailing only: splitOf's case
  int64_t extent = 1, run = 1;
  for (int64_t a : axes) extent *= x.shape[size_t(a)];
  for (int64_t d = first; d < rank; ++d) run *= x.shape[size_t(d)];
  if (extent < kLongRow || x.numel() / extent >= kFewOutputs) return s;
  const int64_t L = chunkLength(run);
  if (L == 0 || L == run) return s;
  s.first = first;
  s.runLength = run;
  s.chunk = L;
  s.leading.assign(axes.begin(), std::lower_bound(axes.begin(), axes.end(), first));
  return s;
}

void splitStridedReduce(Graph& g, const Node& n, const StridedSplit& s) {
  NodeEmitter e{g, n.name};
  const Shape& xs = g.type(n.inputs[0]).shape;
  Shape cut(xs.begin(), xs.begin() + s.first);
  cut.push_back(s.runLength / s.chunk);
  cut.push_back(s.chunk);
  ValueId r1 = e.reduce(n.op, e.reshape(n.inputs[0], cut), s.first + 1, false);
  std::vector<int64_t> rest = s.leading;
  rest.push_back(s.first);  // the chunks' axis
  const Attrs second{{"axes", rest}, {"keepdims", int64_t(0)}};
  if (n.i("keepdims", 1) == 0) return e.finish(n.op, {r1}, n.outputs[0], second);
  ValueId r2 = e.op(n.op, {r1}, second);
  e.finish(Op::Reshape, {r2}, n.outputs[0], {{"shape", std::vector<int64_t>(g.type(n.outputs[0]).shape)}});
}

}  // namespace

void splitLongRows(Graph& g) {
  expandNodes(g, [](Graph& g, const Node& n) {
    const TensorType& x = n.inputs.empty() || n.inputs[0] == kNoValue ? TensorType{} : g.type(n.inputs[0]);
    if (n.op == Op::ReduceSum || n.op == Op::ReduceMean) {
      const std::vector<int64_t> axes = n.ints("axes", {{}});
      const Split s = splitOf(x, trailingAxes(axes, x.rank()));
      if (s.chunk) splitReduce(g, n, s);
      else if (const StridedSplit t = stridedSplitOf(x, axes); t.chunk) splitStridedReduce(g, n, t);
    } else if ((n.op == Op::LayerNorm && (n.inputs.size() < 4 || n.inputs[3] == kNoValue)) || n.op == Op::RMSNorm) {
      const int64_t axis = n.i("axis", -1) < 0 ? n.i("axis", -1) + x.rank() : n.i("axis", -1);
      const Split s = splitOf(x, axis);
      if (!s.chunk) return;
      if (n.op == Op::LayerNorm) splitLayerNorm(g, n, s);
      else splitRmsNorm(g, n, s);
    }
  });
}

}  // namespace mgc
