// MatMul → the tiled matmul kernel (kernels/src/matmul.comp).
#include <algorithm>

#include "kernels/lower_common.h"

namespace mgc::kern {

std::vector<DispatchPlan> lowerMatMul(const Graph& g, const Node& n) {
  requireFloat(g, n, "matmul");
  Shape a = inType(g, n, 0).shape, b = inType(g, n, 1).shape;
  if (a.size() == 1) a.insert(a.begin(), 1);  // [K] → [1, K]
  if (b.size() == 1) b.push_back(1);          // [K] → [K, 1]
  int64_t M = a[a.size() - 2], K = a.back(), N = b.back();
  if (outType(g, n).numel() == 0) return {};
  Shape ba(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  Shape batch = broadcastShapes(ba, bb);
  StridedDims walk;
  walk.dims = batch;
  auto sa = broadcastStrides(ba, batch), sb = broadcastStrides(bb, batch);
  for (auto& s : sa) s *= M * K;
  for (auto& s : sb) s *= K * N;
  walk.strides = {sa, sb};
  walk.coalesce();
  int64_t batches = numel(batch);

  DispatchPlan d = makePlan(n, "matmul");
  d.params.assign(16, 0);
  d.params[0] = u32(n, M, "M");
  d.params[1] = u32(n, N, "N");
  d.params[2] = u32(n, K, "K");
  d.params[3] = u32(n, batches, "batch count");
  walk.write(n, d.params, 4, {8, 12}, 4);
  u32(n, batches * M * N, "output size");
  u32(n, std::max(numel(a), numel(b)), "operand size");
  d.bindings = {n.inputs[0], n.inputs[1], n.outputs[0]};
  appendEpilogue(g, n, d, n.inputs[0]);
  auto tiles = [](int64_t x) { return uint32_t(std::min<int64_t>((x + 63) / 64, kMaxGroups)); };
  d.groups[0] = tiles(N);
  d.groups[1] = tiles(M);
  d.groups[2] = uint32_t(std::min<int64_t>(batches, kMaxGroups));
  return {d};
}

}  // namespace mgc::kern
