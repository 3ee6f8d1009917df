// Helpers shared by the per-family lowering files (kernels/lower_*.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/grid.h"
#include "ir/matmul.h"
#include "kernels/lower.h"

namespace mgc {
struct EltwiseProgram;  // kernels/eltwise_program.h
}

namespace mgc::kern {

constexpr uint32_t kMaxGroups = mgb::kMaxGridDim;

[[noreturn]] void fail(const Node& n, const std::string& why);

// v as a u32 parameter; throws naming the node and `what` if out of range.
uint32_t u32(const Node& n, int64_t v, const char* what);
// v as an i32 parameter (two's complement bits).
uint32_t i32(const Node& n, int64_t v, const char* what);
uint32_t f32Bits(double v);

// Split-K for a GEMM on the 64x64 core (conv2d_splitk, conv2d_grad_gemm):
// when it has fewer than `splitBelow` output tiles but a long K, slices of
// >= minSliceK k values (whole 16-wide steps) bring the grid towards
// `fillTiles` workgroups, at most maxSlices of them per tile.
struct SplitK {
  int64_t fillTiles, splitBelow, minSliceK, maxSlices;
};
struct KSlices {
  int64_t count = 1;  // 1: no split
  int64_t sliceK;     // k values per slice (a multiple of 16 when split)
};
KSlices splitK(const SplitK& policy, int64_t tiles, int64_t K);
// K in about `slices` slices of whole `step`-wide k steps (the last one may
// be shorter; rounding may leave fewer slices).
KSlices sliceEvenly(int64_t K, int64_t slices, int64_t step);
// Does the node's fused epilogue have steps after its leading adds? A
// split-K product's initializing pass applies the bias and those adds
// (linear: the slices then add into them); the rest (an activation) needs
// the whole sum: a finishing pass. Without such steps the split needs none
// (SmolLM2-135M's forward: 150 dispatches fewer; a conv with a bias or a
// residual add and no activation).
bool hasEpilogueTail(const Node& n);
// conv2d_finish's mode word: 0 initializes a split-K output (before the
// slices), 1 applies the rest of its epilogue (after them).
constexpr size_t kFinishModeWord = 4;
// A split-K product's initializing pass (conv2d_finish, mode 0) over its
// output of `size` elements, `channels` channels of `pixels` each (a
// matmul: N columns of 1): the bias (`bias`, or none: kNoValue) plus the
// epilogue's leading adds. Unread bindings go to `early`, an operand whose
// producer ran long before (a weight): the pass need not wait for the
// product's activation input, and may run a level early.
DispatchPlan splitKInit(const Graph& g, const Node& n, int64_t size, int64_t channels, int64_t pixels, ValueId bias,
                        ValueId early);
// The same pass writing zeros (no bias, no epilogue; every input binding
// `early`): an output that a kernel adds into.
DispatchPlan zeroOutput(const Node& n, int64_t size, ValueId early);
// The pass after the slices (mode 1) applying the rest of the epilogue,
// from the initializing pass.
DispatchPlan splitKFinish(const DispatchPlan& init);

// Grids of fewer 64x64 tiles than this (and not split across workgroups)
// run on the sliced 64x64 core (matmul_sliced, conv2d_sliced: two groups
// of 256 threads per tile, alternate K steps; gemm_tile.glsl): about two
// workgroups per multiprocessor of a big GPU, twice the warps of the plain
// core, which such grids leave latency-bound. K must give each slice a few
// 16-deep steps.
constexpr int64_t kSlicedBelow = 256;
constexpr int64_t kSlicedMinK = 64;
inline bool slicedGemm(int64_t tiles, int64_t K) { return tiles < kSlicedBelow && K >= kSlicedMinK; }

// A plan for `kernel` with the node's name filled in.
DispatchPlan makePlan(const Node& n, const char* kernel);

// Grid for kernels that give one invocation to each of `items` items and
// index them with common.glsl's linearInvocation(): DispatchPlan::items,
// and `groups` = a 2-D grid of ceil(items / local size) workgroups, x <=
// 65535, for the portable variant's reflected local size (d.kernel must be
// set). The runtime derives the grid of the variant it picks the same way.
void setItemGrid(DispatchPlan& d, const Node& n, uint64_t items);
// Grid for kernels that give one workgroup to each of `count` items and
// index them with linearGroup().
void setGroupGrid(DispatchPlan& d, const Node& n, uint64_t count);

// Row-major element strides.
std::vector<int64_t> rowMajorStrides(const Shape& s);
// Strides that read `in` while walking `out` (numpy broadcasting, aligned
// on the right, 0 on broadcast axes); same length as out.
std::vector<int64_t> broadcastStrides(const Shape& in, const Shape& out);

const TensorType& inType(const Graph& g, const Node& n, size_t k);
const TensorType& outType(const Graph& g, const Node& n);
bool isDeviceFloat(DType t);
// Throws unless every present input and the output are floats on the
// device: `kernel` computes in f32 only.
void requireFloat(const Graph& g, const Node& n, const char* kernel);

// A dimension list with per-operand strides, simplified before it goes
// into a params block: size-1 dims dropped, neighbours merged where every
// operand steps through them as one dim.
struct StridedDims {
  Shape dims;
  std::vector<std::vector<int64_t>> strides;  // [operand][dim]
  void coalesce();
  // Writes `rank` dims, padded with leading 1s (stride 0), as dims at
  // out[dimsAt..] and operand k's strides at out[stridesAt[k]..].
  void write(const Node& n, std::vector<uint32_t>& out, size_t dimsAt, const std::vector<size_t>& stridesAt,
             size_t rank) const;
};

// Division by a divisor the kernel sees many times, as a multiply and a
// shift (Granlund & Montgomery; CUTLASS's FastDivmod): for n < 2^31,
// n / d == umulhi(n, mul) >> shift (common.glsl: fastDiv). mul == 0 asks
// the kernel for a plain division: fastDivisor gives it for d == 1 and
// d >= 2^31, and a caller whose numerators may reach 2^31 writes it itself.
struct FastDivisor {
  uint32_t mul = 0, shift = 0;
};
FastDivisor fastDivisor(uint64_t d);

// Appends the node's fused epilogue (params words and the 2 operand
// bindings, `absent` for unused ones) to a conv2d / matmul plan whose
// bindings end with the output (lower_epilogue.cpp).
void appendEpilogue(const Graph& g, const Node& n, DispatchPlan& d, ValueId absent);

// Per-family lowerings (one file each).
std::vector<DispatchPlan> lowerEltwise(const Graph& g, const Node& n);
std::vector<DispatchPlan> lowerFusedEltwise(const Graph& g, const Node& n);  // lower_fused.cpp
// The eltwise program of a fused_eltwise or fused_reduce node
// (lower_fused.cpp); `resultShape`, when given, gets the shape the program
// computes (its inputs broadcast together).
EltwiseProgram fusedEltwiseProgram(const Graph& g, const Node& n, Shape* resultShape = nullptr);
std::vector<DispatchPlan> lowerTranspose(const Graph& g, const Node& n);
std::vector<DispatchPlan> lowerSlice(const Graph& g, const Node& n);
std::vector<DispatchPlan> lowerExpand(const Graph& g, const Node& n);
std::vector<DispatchPlan> lowerConcat(const Graph& g, const Node& n);
std::vector<DispatchPlan> lowerPad(const Graph& g, const Node& n);
std::vector<DispatchPlan> lowerGather(const Graph& g, const Node& n);
std::vector<DispatchPlan> lowerMatMul(const Graph& g, const Node& n);
std::vector<DispatchPlan> lowerQMatMul(const Graph& g, const Node& n);  // lower_qmatmul.cpp
std::vector<DispatchPlan> lowerQGatedMlp(const Graph& g, const Node& n);  // lower_qmatmul.cpp
// kMatVecRows (ir/matmul.h): up to this many rows, a product streams its
// weights once through matvec.comp / qmatvec.comp instead of 64x64 tiles.
// matvec.comp takes its narrow shape (4 columns x 64 slices per workgroup)
// up to this many output columns; wider outputs are bandwidth-bound.
constexpr int64_t kMatVecNarrowUpTo = 8192;
std::vector<DispatchPlan> lowerConv(const Graph& g, const Node& n);
std::vector<DispatchPlan> lowerPool(const Graph& g, const Node& n);
// reduce.comp's op codes (params[2]).
enum ReduceCode : uint32_t { kSum = 0, kMean = 1, kMax = 2, kMin = 3, kProd = 4, kArgMax = 5 };
std::vector<DispatchPlan> lowerReduce(const Graph& g, const Node& n, ReduceCode code);
std::vector<DispatchPlan> lowerArgMax(const Graph& g, const Node& n);
std::vector<DispatchPlan> lowerFusedReduce(const Graph& g, const Node& n);  // reduce_fused.comp
std::vector<DispatchPlan> lowerSoftmax(const Graph& g, const Node& n);
std::vector<DispatchPlan> lowerAttention(const Graph& g, const Node& n);
std::vector<DispatchPlan> lowerRotary(const Graph& g, const Node& n);
std::vector<DispatchPlan> lowerAttentionCache(const Graph& g, const Node& n);
std::vector<DispatchPlan> lowerLayerNorm(const Graph& g, const Node& n);
std::vector<DispatchPlan> lowerMoments(const Graph& g, const Node& n);
std::vector<DispatchPlan> lowerBatchNorm(const Graph& g, const Node& n);
// lower_grad.cpp: gradient ops (passes/program/autodiff.cpp)
std::vector<DispatchPlan> lowerConvGrad(const Graph& g, const Node& n);
std::vector<DispatchPlan> lowerPoolGrad(const Graph& g, const Node& n);
std::vector<DispatchPlan> lowerGatherGrad(const Graph& g, const Node& n);
std::vector<DispatchPlan> lowerGatherElements(const Graph& g, const Node& n);   // lower_extra.cpp
std::vector<DispatchPlan> lowerScatterElements(const Graph& g, const Node& n);  // lower_extra.cpp
std::vector<DispatchPlan> lowerDropoutMask(const Graph& g, const Node& n);      // lower_dropout.cpp
std::vector<DispatchPlan> lowerStateWrite(const Graph& g, const Node& n);       // lower_state.cpp
std::vector<DispatchPlan> lowerAdamStep(const Graph& g, const Node& n);         // lower_optimizer.cpp

}  // namespace mgc::kern
