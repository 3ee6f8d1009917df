// attention: out = softmax(q kᵀ * scale + mask, over the keys) v, one
// query row per workgroup, the online softmax of attention.glsl.
//
// Bindings: 1 = q [B, T, D], 2 = k [Bk, S, D], 3 = v [Bk, S, Dv],
//           4 = mask [T, S] (q when there is none), 5 = out [B, T, Dv]; f32.
// Params:
//   p[0] rows (B * T)  p[1] T  p[2] S  p[3] D (<= 512)  p[4] Dv (<= 512)
//   p[5] scale (f32 bits)  p[6] has mask (0/1)
//   p[7..12]  q's leading dims (B = their product), 1-padded on the left
//   p[13..18] k's batch stride along each of those dims (0: broadcast)
// Specialized copies: D, Dv and has-mask are constants (the products'
// loops unroll).
#version 450
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 128) in;
#include "common.glsl"
#include "rows.glsl"
#include "specialize.glsl"
SPEC_PARAM(3)  // D
SPEC_PARAM(4)  // Dv
SPEC_PARAM(6)  // has mask

layout(std430, set = 0, binding = 1) readonly buffer Q { float q[]; };
layout(std430, set = 0, binding = 2) readonly buffer K { vec4 k4[]; };  // (the binding covers whole vec4s)
layout(std430, set = 0, binding = 3) readonly buffer V { vec4 v4[]; };  // (the binding covers whole vec4s)
layout(std430, set = 0, binding = 4) readonly buffer Mask { float mask[]; };
layout(std430, set = 0, binding = 5) writeonly buffer Out { float outv[]; };

#include "attention.glsl"

uint kBase, vBase;  // this row's K / V batch

float kAt(uint i) { return k4[i >> 2u][i & 3u]; }

float keyDot(uint j) {
  uint D = PARAM(3), at = kBase + j * D;
  float qk = 0.0;
  if ((D & 3u) == 0u) {  // whole vec4s
    [[unroll]] for (uint d = 0; d < D; d += 4u)
      qk += dot(vec4(qRow[d], qRow[d + 1u], qRow[d + 2u], qRow[d + 3u]), k4[(at + d) >> 2u]);
  } else {
    for (uint d = 0; d < D; ++d) qk += qRow[d] * kAt(at + d);
  }
  return qk;
}

float valueAt(uint j, uint e) {
  uint i = vBase + j * PARAM(4) + e;
  return v4[i >> 2u][i & 3u];
}
vec4 valueAt4(uint j, uint e4) { return v4[(vBase + j * PARAM(4)) / 4u + e4]; }

void main() {
  uint row = linearGroup();
  if (row >= p[0]) return;  // uniform per workgroup
  uint T = p[1], S = p[2], D = PARAM(3), Dv = PARAM(4);
  uint t = row % T, rest = row / T, kb = 0;
  for (int a = 5; a >= 0; --a) {
    kb += (rest % p[7 + a]) * p[13 + a];
    rest /= p[7 + a];
  }
  for (uint d = gl_LocalInvocationIndex; d < D; d += 128) qRow[d] = q[row * D + d];
  barrier();
  kBase = kb * S * D;
  vBase = kb * S * Dv;
  attendRow(row, t, S, Dv, pfloat(5), PARAM(6) != 0u);
}
