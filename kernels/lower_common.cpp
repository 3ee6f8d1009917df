#include "kernels/lower_common.h"

#include <algorithm>

#include <cstring>
#include <limits>

#include "formats/grid.h"
#include "ir/epilogue.h"
#include "kernels/registry.h"

namespace mgc::kern {

void fail(const Node& n, const std::string& why) {
  throw Error("node '" + n.name + "' (" + opName(n.op) + "): cannot lower: " + why);
}

uint32_t u32(const Node& n, int64_t v, const char* what) {
  if (v < 0 || v > int64_t(std::numeric_limits<uint32_t>::max()))
    fail(n, std::string(what) + " " + std::to_string(v) + " does not fit in 32 bits");
  return uint32_t(v);
}

uint32_t i32(const Node& n, int64_t v, const char* what) {
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
    fail(n, std::string(what) + " " + std::to_string(v) + " does not fit in 32 bits");
  return uint32_t(int32_t(v));
}

bool hasEpilogueTail(const Node& n) {
  const Epilogue e = readEpilogue(n);
  return std::find_if(e.steps.begin(), e.steps.end(), [](EpilogueStep s) { return s != EpilogueStep::Add; }) !=
         e.steps.end();
}

DispatchPlan splitKInit(const Graph& g, const Node& n, int64_t size, int64_t channels, int64_t pixels, ValueId bias,
                        ValueId early) {
  DispatchPlan d = makePlan(n, "conv2d_finish");
  d.params = {u32(n, size, "output size"), u32(n, channels, "channels"), u32(n, pixels, "pixels"),
              bias != kNoValue ? 1u : 0u, 0};
  d.bindings = {bias != kNoValue ? bias : early, n.outputs[0]};
  appendEpilogue(g, n, d, early);
  setItemGrid(d, n, uint64_t(size));
  return d;
}

DispatchPlan zeroOutput(const Node& n, int64_t size, ValueId early) {
  DispatchPlan d = makePlan(n, "conv2d_finish");
  d.params = {u32(n, size, "output size"), u32(n, size, "output size"), 1, 0, 0};
  d.params.resize(d.params.size() + 2 + 3 * Epilogue::kMaxSteps, 0);  // no epilogue steps
  d.bindings = {early, early, early, n.outputs[0]};
  setItemGrid(d, n, uint64_t(size));
  return d;
}

DispatchPlan splitKFinish(const DispatchPlan& init) {
  DispatchPlan d = init;
  d.params[kFinishModeWord] = 1;
  return d;
}

KSlices splitK(const SplitK& policy, int64_t tiles, int64_t K) {
  if (tiles >= policy.splitBelow || K < 2 * policy.minSliceK) return {1, K};
  int64_t slices = std::min({(policy.fillTiles + tiles - 1) / tiles, K / policy.minSliceK, policy.maxSlices});
  if (slices < 2) return {1, K};
  return sliceEvenly(K, slices, 16);  // whole k steps of the 64x64 core
}

KSlices sliceEvenly(int64_t K, int64_t slices, int64_t step) {
  const int64_t sliceK = ((K + slices - 1) / slices + step - 1) / step * step;
  return {(K + sliceK - 1) / sliceK, sliceK};
}

uint32_t f32Bits(double v) {
  float f = float(v);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

DispatchPlan makePlan(const Node& n, const char* kernel) {
  DispatchPlan d;
  d.kernel = kernel;
  d.node = n.name;
  return d;
}

void setGroupGrid(DispatchPlan& d, const Node& n, uint64_t count) {
  if (!mgb::groupGrid(count, d.groups))
    fail(n, "needs " + std::to_string(count) + " workgroups, more than a 2-D grid holds");
}

void setItemGrid(DispatchPlan& d, const Node& n, uint64_t items) {
  if (items > std::numeric_limits<uint32_t>::max())
    fail(n, std::to_string(items) + " elements exceed the 32-bit index space of the kernels");
  const KernelBinary* k = findKernel(d.kernel);
  if (!k) fail(n, "no kernel named '" + d.kernel + "'");
  // Every variant's grid must fit (the runtime derives the grid of the
  // variant it picks); `groups` records the portable variant's.
  for (size_t v = 0; v < k->variantCount; ++v)
    if (!mgb::itemGrid(items, k->variants[v].localSize, d.groups))
      fail(n, std::to_string(items) + " items need more workgroups than a 2-D grid holds");
  mgb::itemGrid(items, k->portable().localSize, d.groups);
  d.items = items;  // 0: a fixed grid of one group
}

std::vector<int64_t> rowMajorStrides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) st[d - 1] = st[d] * s[d];
  return st;
}

std::vector<int64_t> broadcastStrides(const Shape& in, const Shape& out) {
  std::vector<int64_t> inStrides = rowMajorStrides(in), st(out.size(), 0);
  size_t lead = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) st[lead + d] = in[d] == 1 ? 0 : inStrides[d];
  return st;
}

const TensorType& inType(const Graph& g, const Node& n, size_t k) { return g.type(n.inputs.at(k)); }
const TensorType& outType(const Graph& g, const Node& n) { return g.type(n.outputs.at(0)); }
bool isDeviceFloat(DType t) { return deviceDType(t) == DType::F32; }

void requireFloat(const Graph& g, const Node& n, const char* kernel) {
  for (ValueId v : n.inputs)
    if (v != kNoValue && !isDeviceFloat(g.type(v).dtype))
      fail(n, std::string("the ") + kernel + " kernel computes in f32; input '" + g.value(v).name + "' is " +
                  g.type(v).str());
  if (!isDeviceFloat(outType(g, n).dtype)) fail(n, std::string("the ") + kernel + " kernel writes f32 only");
}

FastDivisor fastDivisor(uint64_t d) {
  if (d < 2 || d >= (uint64_t(1) << 31)) return {};
  uint32_t l = 0;
  while ((uint64_t(1) << l) < d) ++l;  // ceil(log2 d), 1..31
  const uint64_t p = 31 + l;
  return {uint32_t(((uint64_t(1) << p) + d - 1) / d), uint32_t(p - 32)};
}

void StridedDims::coalesce() {
  Shape nd;
  std::vector<std::vector<int64_t>> ns(strides.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    bool merge = !nd.empty();
    for (size_t k = 0; k < strides.size() && merge; ++k) merge = ns[k].back() == strides[k][d] * dims[d];
    if (merge) {
      nd.back() *= dims[d];
      for (size_t k = 0; k < strides.size(); ++k) ns[k].back() = strides[k][d];
      continue;
    }
    nd.push_back(dims[d]);
    for (size_t k = 0; k < strides.size(); ++k) ns[k].push_back(strides[k][d]);
  }
  dims = std::move(nd);
  strides = std::move(ns);
}

void StridedDims::write(const Node& n, std::vector<uint32_t>& out, size_t dimsAt, const std::vector<size_t>& stridesAt,
                        size_t rank) const {
  if (dims.size() > rank)
    fail(n, "needs " + std::to_string(dims.size()) + " strided dims, the kernel walks at most " + std::to_string(rank));
  size_t lead = rank - dims.size();
  for (size_t d = 0; d < rank; ++d) out.at(dimsAt + d) = d < lead ? 1 : u32(n, dims[d - lead], "dim");
  for (size_t k = 0; k < stridesAt.size(); ++k)
    for (size_t d = 0; d < rank; ++d) out.at(stridesAt[k] + d) = d < lead ? 0 : u32(n, strides[k][d - lead], "stride");
}

}  // namespace mgc::kern
