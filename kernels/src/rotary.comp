// rotary: rotate-half RoPE in one pass, out = x * cos + swap_halves(x) *
// signed_sin over the last axis (D even; signed_sin is sin with its first
// half negated), cos and sin rows [T, D] shared by x's leading dims.
//
// Bindings: 1 = x [..., T, D], 2 = cos [T, D], 3 = signed_sin [T, D],
//           4 = out (x's shape); f32.
// Params: p[0] numel(x)  p[1] D  p[2] T
#version 450
layout(local_size_x = 256) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Cos { float cosv[]; };
layout(std430, set = 0, binding = 3) readonly buffer Sin { float sinv[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Out { float outv[]; };

void main() {
  uint i = linearInvocation();
  if (i >= p[0]) return;
  uint D = p[1], halfD = D / 2, d = i % D;
  uint partner = d < halfD ? i + halfD : i - halfD;
  uint c = ((i / D) % p[2]) * D + d;
  outv[i] = x[i] * cosv[c] + x[partner] * sinv[c];
}
