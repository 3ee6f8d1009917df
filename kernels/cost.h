// Compile-time cost estimates of a dispatch, for profiles: the bundle
// carries them (mgb.fbs Dispatch.flops/bytes/shape) so a profiler can turn
// measured GPU time into achieved FLOP/s and GB/s. Estimates, not counts:
// they follow the math of the op, not the instructions a kernel runs.
//   FLOPs  matmul 2·B·M·N·K; conv (and its gradients) 2·N·M·Ho·Wo·(C/g)·kh·kw;
//          elementwise one per element per op (a fused chain: per step);
//          norms and softmax a few per element; data movement 0.
//   bytes  the bound tensors (each once), read + written, in device dtypes.
#pragma once

#include "kernels/lower.h"

namespace mgc {

// Fills d.flops, d.bytes and d.shape for dispatch `d`, one of node n's.
void estimateCost(const Graph& g, const Node& n, DispatchPlan& d);

}  // namespace mgc
