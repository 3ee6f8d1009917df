// Reduce* and ArgMax → the reduce kernel (kernels/src/reduce.comp);
// fused_reduce → reduce_fused.comp, the same walks with an eltwise program
// run on its inputs as they are read.
#include "ir/fused_eltwise.h"
#include "ir/fused_reduce.h"
#include "kernels/eltwise_program.h"
#include "kernels/lower_common.h"

namespace mgc::kern {

namespace {

// Reduced extents at least this long get a workgroup per output (mode 1).
constexpr int64_t kGroupPerOutputFrom = 128;

bool groupPerOutput(int64_t outCount, int64_t R) {
  return R >= kGroupPerOutputFrom || (outCount <= 1024 && R >= 16);
}

// The dims flagged in `reduced` (node attribute `axes`; none: all).
std::vector<bool> reducedAxes(const Node& n, int rank) {
  const std::vector<int64_t> axes = n.ints("axes", {{}});
  std::vector<bool> reduced(size_t(rank), axes.empty());
  for (int64_t a : axes) reduced.at(size_t(a < 0 ? a + rank : a)) = true;
  return reduced;
}

// `dims` split into kept dims (walking outputs) and reduced dims (walking
// one output's values), each operand's strides (strides[k][d]) split
// alike, coalesced; *outCount and *R: the element counts of the two.
std::pair<StridedDims, StridedDims> splitReduced(const Shape& dims, const std::vector<bool>& reduced,
                                                 const std::vector<std::vector<int64_t>>& strides,
                                                 int64_t* outCount, int64_t* R) {
  StridedDims kept, red;
  kept.strides.assign(strides.size(), {});
  red.strides.assign(strides.size(), {});
  for (size_t d = 0; d < dims.size(); ++d) {
    StridedDims& s = reduced[d] ? red : kept;
    s.dims.push_back(dims[d]);
    for (size_t k = 0; k < strides.size(); ++k) s.strides[k].push_back(strides[k][d]);
  }
  *outCount = numel(kept.dims);
  *R = numel(red.dims);
  kept.coalesce();
  red.coalesce();
  return {kept, red};
}

DispatchPlan reducePlan(const Graph& g, const Node& n, const std::vector<bool>& reduced, ReduceCode code) {
  const Shape& x = inType(g, n, 0).shape;
  int64_t outCount = 0, R = 0;
  const auto [kept, red] = splitReduced(x, reduced, {rowMajorStrides(x)}, &outCount, &R);
  const bool perGroup = groupPerOutput(outCount, R);
  DispatchPlan d = makePlan(n, "reduce");
  d.params.assign(29, 0);
  d.params[0] = u32(n, outCount, "output count");
  d.params[1] = u32(n, R, "reduced extent");
  d.params[2] = code;
  d.params[3] = isDeviceFloat(inType(g, n, 0).dtype) ? 0 : 1;
  d.params[4] = perGroup ? 1 : 0;
  kept.write(n, d.params, 5, {11}, 6);
  red.write(n, d.params, 17, {23}, 6);
  u32(n, numel(x), "input size");
  d.bindings = {n.inputs[0], n.outputs[0]};
  if (perGroup) setGroupGrid(d, n, uint64_t(outCount));
  else setItemGrid(d, n, uint64_t(outCount));
  return d;
}

}  // namespace

std::vector<DispatchPlan> lowerReduce(const Graph& g, const Node& n, ReduceCode code) {
  if (outType(g, n).numel() == 0) return {};
  if (inType(g, n, 0).numel() == 0) fail(n, "reducing an empty tensor is not supported on the GPU");
  return {reducePlan(g, n, reducedAxes(n, inType(g, n, 0).rank()), code)};
}

std::vector<DispatchPlan> lowerArgMax(const Graph& g, const Node& n) {
  if (outType(g, n).numel() == 0) return {};
  int rank = inType(g, n, 0).rank();
  int64_t axis = n.i("axis", 0);
  std::vector<bool> reduced(size_t(rank), false);
  reduced.at(size_t(axis < 0 ? axis + rank : axis)) = true;
  return {reducePlan(g, n, reduced, kArgMax)};
}

std::vector<DispatchPlan> lowerFusedReduce(const Graph& g, const Node& n) {
  if (outType(g, n).numel() == 0) return {};
  const Shape shape = n.ints("shape");
  if (numel(shape) == 0) fail(n, "reducing an empty tensor is not supported on the GPU");
  Shape full;  // the program's result, viewed as `shape`
  const EltwiseProgram prog = fusedEltwiseProgram(g, n, &full);
  if (outType(g, n).dtype != DType::F32) fail(n, "the fused reduction kernel computes f32 only");
  const int rank = int(shape.size());
  // Each input's strides in `shape`, split into kept and reduced dims; the
  // unused input slots walk with stride 0.
  std::vector<std::vector<int64_t>> strides(EltwiseProgram::kMaxInputs, std::vector<int64_t>(size_t(rank), 0));
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    const std::optional<std::vector<int64_t>> s = broadcastViewStrides(inType(g, n, k).shape, full, shape);
    if (!s)
      fail(n, "input " + std::to_string(k) + " " + inType(g, n, k).str() + ", broadcast to " +
                  TensorType{DType::F32, full}.str() + ", has no strides in " + TensorType{DType::F32, shape}.str());
    strides[k] = *s;
  }
  int64_t outCount = 0, R = 0;
  const auto [kept, red] = splitReduced(shape, reducedAxes(n, rank), strides, &outCount, &R);
  const std::optional<Op> op = fusedReduceOp(n.s("reduce"));
  const ReduceCode code = *op == Op::ReduceSum ? kSum : *op == Op::ReduceMean ? kMean : *op == Op::ReduceMax ? kMax : kMin;
  const bool perGroup = groupPerOutput(outCount, R);
  constexpr size_t kKeptDims = 5, kRedDims = 11, kKeptStrides = 20, kRedStrides = 68,  // reduce_fused.comp
                   kProgram = RF_PARAM_PROGRAM, kNumInputs = RF_PARAM_NUM_INPUTS;
  DispatchPlan d = makePlan(n, "reduce_fused");
  d.params.assign(kProgram, 0);
  d.params[0] = u32(n, outCount, "output count");
  d.params[1] = u32(n, R, "reduced extent");
  d.params[2] = code;
  d.params[4] = perGroup ? 1 : 0;
  d.params[kNumInputs] = uint32_t(prog.numInputs);
  d.params[kNumInputs + 1] = uint32_t(prog.code.size());
  d.params[kNumInputs + 2] = uint32_t(prog.outReg);
  std::vector<size_t> keptAt, redAt;
  for (size_t k = 0; k < size_t(EltwiseProgram::kMaxInputs); ++k) {
    keptAt.push_back(kKeptStrides + 6 * k);
    redAt.push_back(kRedStrides + 6 * k);
  }
  kept.write(n, d.params, kKeptDims, keptAt, 6);
  red.write(n, d.params, kRedDims, redAt, 6);
  writeEltwiseProgram(n, prog, d.params, kProgram);
  for (size_t k = 0; k < n.inputs.size(); ++k) u32(n, inType(g, n, k).numel(), "input size");
  for (int k = 0; k < EltwiseProgram::kMaxInputs; ++k)
    d.bindings.push_back(n.inputs[size_t(k) < n.inputs.size() ? size_t(k) : 0]);  // unused slots repeat input 0
  d.bindings.push_back(n.outputs[0]);
  if (perGroup) setGroupGrid(d, n, uint64_t(outCount));
  else setItemGrid(d, n, uint64_t(outCount));
  return {d};
}

}  // namespace mgc::kern
