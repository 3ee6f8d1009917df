// Fused epilogue of conv2d / conv2d_direct / matmul (IR side:
// ir/epilogue.h; host side: kernels/lower_epilogue.cpp). The
// includer defines EPI_BASE (first params word) and EPI_BINDING0/1 (the two
// operand buffers; absent operands are bound to some input again) and
// includes math.glsl. Params from EPI_BASE:
//   +0 steps (0..6)   +1 rowMask: bit k set = operand k is a row vector
//   (indexed by output column), else indexed like the output
//   +2 + 3s: step s as code (EpilogueStep: 1 relu, 2 clip, 3 leaky_relu,
//   4 sigmoid, 5 gelu erf, 6 gelu tanh, 7 add operand, 8 hard_swish,
//   9 tanh, 10 mul_silu: v *= silu(operand)), arg0, arg1 (f32 bits)
// The includer may define EPI_PARAM(k) to read word k (a kernel specialized
// to its dispatch, kernels/specialize.h: the driver then unrolls the steps
// and folds their codes); else p[k].
#ifndef EPI_PARAM
#define EPI_PARAM(k) p[k]
#endif
#ifndef STREAM_IN
#define STREAM_IN  // stream kernels: coherent (stream_sync.glsl)
#endif
layout(std430, set = 0, binding = EPI_BINDING0) STREAM_IN readonly buffer Epi0 { float epi0[]; };
layout(std430, set = 0, binding = EPI_BINDING1) STREAM_IN readonly buffer Epi1 { float epi1[]; };

// Steps [first, last) of the epilogue (operands of the adds before `first`
// skipped); epilogue() runs them all.
float epilogueRange(float v, uint idx, uint col, uint first, uint last) {
  uint steps = min(min(EPI_PARAM(EPI_BASE), 6u), last), operand = 0;
  for (uint s = 0; s < steps; ++s) {
    uint at = EPI_BASE + 2 + 3 * s, code = EPI_PARAM(at);
    if (s < first) {
      operand += code == 7u || code == 10u ? 1u : 0u;
      continue;
    }
    float a0 = uintBitsToFloat(EPI_PARAM(at + 1)), a1 = uintBitsToFloat(EPI_PARAM(at + 2));
    if (code == 1u) v = max(v, 0.0);
    else if (code == 2u) v = min(max(v, a0), a1);
    else if (code == 3u) v = v >= 0.0 ? v : v * a0;
    else if (code == 4u) v = sigmoid(v);
    else if (code == 5u) v = 0.5 * v * (1.0 + erfApprox(v * 0.70710678118654752));
    else if (code == 6u) v = 0.5 * v * (1.0 + tanhSafe(0.79788456080286536 * (v + 0.044715 * v * v * v)));
    else if (code == 7u || code == 10u) {  // add, mul_silu: the next operand
      uint j = ((EPI_PARAM(EPI_BASE + 1) >> operand) & 1u) != 0u ? col : idx;
      float o = operand == 0u ? epi0[j] : epi1[j];
      v = code == 7u ? v + o : v * (o * sigmoid(o));
      ++operand;
    } else if (code == 8u) v = v * clamp(v / 6.0 + 0.5, 0.0, 1.0);
    else if (code == 9u) v = tanhSafe(v);
  }
  return v;
}

float epilogue(float v, uint idx, uint col) { return epilogueRange(v, idx, col, 0u, 6u); }

// How many steps the epilogue starts with that add an operand (linear: a
// split-K product's zeroing pass may apply them before the slices add in).
uint epilogueAddHead() {
  uint steps = min(EPI_PARAM(EPI_BASE), 6u), s = 0u;
  while (s < steps && EPI_PARAM(EPI_BASE + 2 + 3 * s) == 7u) ++s;
  return s;
}
