// adam: one Adam / AdamW update per element (ir/ops.def AdamStep): reads
// the parameter, its gradient and both moments, writes all three new
// values. Each invocation reads and writes only index i, so the results may
// be the states' own bytes (the memory plan puts them there).
//
// Bindings: 1 = param, 2 = grad, 3 = exp_avg, 4 = exp_avg_sq,
//           5 = coef [keep, step_size, bc2_sqrt, grad_scale],
//           6 = param', 7 = exp_avg', 8 = exp_avg_sq'; f32.
// Params (f32 bits but p[0]): p[0] count  p[1] beta1  p[2] 1 - beta1
//   p[3] beta2  p[4] 1 - beta2  p[5] eps  p[6] weight_decay (L2; 0: none)
#version 450
layout(local_size_x = 256) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer Param { float param[]; };
layout(std430, set = 0, binding = 2) readonly buffer Grad { float grad[]; };
layout(std430, set = 0, binding = 3) readonly buffer M { float m[]; };
layout(std430, set = 0, binding = 4) readonly buffer V { float v[]; };
layout(std430, set = 0, binding = 5) readonly buffer Coef { float coef[]; };
layout(std430, set = 0, binding = 6) writeonly buffer ParamOut { float paramOut[]; };
layout(std430, set = 0, binding = 7) writeonly buffer MOut { float mOut[]; };
layout(std430, set = 0, binding = 8) writeonly buffer VOut { float vOut[]; };

float F(uint k) { return uintBitsToFloat(p[k]); }

void main() {
  uint i = linearInvocation();
  if (i >= p[0]) return;
  if (coef[3] == 0.0) {  // grad_scale 0: the step is skipped (ir/ops.def)
    paramOut[i] = param[i];
    mOut[i] = m[i];
    vOut[i] = v[i];
    return;
  }
  // precise: the same roundings as the separate ops of the unfused update.
  precise float x = param[i];
  precise float g = grad[i] * coef[3];
  if (p[6] != 0u) g = g + x * F(6);
  precise float mNext = m[i] * F(1) + g * F(2);
  precise float vNext = v[i] * F(3) + (g * g) * F(4);
  precise float denom = sqrt(vNext) / coef[2] + F(5);
  paramOut[i] = x * coef[0] - (mNext / denom) * coef[1];
  mOut[i] = mNext;
  vOut[i] = vNext;
}
