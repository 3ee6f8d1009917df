// rotary: rotate-half RoPE in one pass, out = x * cos + swap_halves(x) *
// signed_sin over the last axis (D even; signed_sin is sin with its first
// half negated), cos and sin rows [T, D] shared by x's leading dims.
//
// Bindings: 1 = x [..., T, D], 2 = cos [T, D], 3 = signed_sin [T, D],
//           4 = out (x's shape); f32.
// Params: p[0] numel(x)  p[1] D  p[2] T  p[3] H: x tokens-major (stored
// [..., T, H, D], out [..., H, T, D]: the head transpose in front of RoPE
// read in place), or 0
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
  uint D = p[1], halfD = D / 2, d = i % D, T = p[2], H = p[3], row = (i / D) % T;
  uint at = i - d;  // x's row of the output's (.., h, row)
  if (H != 0u) at = (((i / (D * T)) / H * T + row) * H + (i / (D * T)) % H) * D;
  uint c = row * D + d;
  outv[i] = x[at + d] * cosv[c] + x[at + (d < halfD ? d + halfD : d - halfD)] * sinv[c];
}
