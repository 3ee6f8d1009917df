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
//   p[19..22] q's, k's, v's, out's heads between consecutive rows: 1, or
//             for a tokens-major operand its heads (ir/attention_layout.h:
//             row r of leading index b at ((b / H) * rows * H + r * H + b % H) * width)
// Specialized copies: D, Dv and has-mask are constants (the products'
// loops unroll).
// Variant `subgroup` (devices with subgroup arithmetic): the workgroup's
// max and sums by subgroup operations, 2 barriers each instead of 9
// (rows.glsl, attention.glsl).
// mgc-variant: subgroup features=Subgroup defines=MGC_SUBGROUP env=vulkan1.1 msl=20100
#version 450
#extension GL_EXT_control_flow_attributes : require
#ifdef MGC_SUBGROUP
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
#endif
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

uint kBase, vBase, kStride, vStride;  // this row's K / V batch: its first row, row to row

float kAt(uint i) { return k4[i >> 2u][i & 3u]; }

float keyDot(uint j) {
  uint D = PARAM(3), at = kBase + j * kStride;
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
  uint i = vBase + j * vStride + e;
  return v4[i >> 2u][i & 3u];
}
vec4 valueAt4(uint j, uint e4) { return v4[(vBase + j * vStride) / 4u + e4]; }

// Row r of leading index b of an operand with H heads between its rows
// (p[19..22]) and R rows of W elements.
uint rowStart(uint b, uint r, uint H, uint R, uint W) { return ((b / H) * R * H + r * H + b % H) * W; }

void main() {
  uint row = linearGroup();
  if (row >= p[0]) return;  // uniform per workgroup
  uint T = p[1], S = p[2], D = PARAM(3), Dv = PARAM(4);
  uint t = row % T, rest = row / T, kb = 0;
  for (int a = 5; a >= 0; --a) {
    kb += (rest % p[7 + a]) * p[13 + a];
    rest /= p[7 + a];
  }
  uint b = row / T, qBase = rowStart(b, t, p[19], T, D);
  for (uint d = gl_LocalInvocationIndex; d < D; d += 128) qRow[d] = q[qBase + d];
  barrier();
  kBase = rowStart(kb, 0u, p[20], S, D);
  vBase = rowStart(kb, 0u, p[21], S, Dv);
  kStride = p[20] * D;
  vStride = p[21] * Dv;
  attendRow(rowStart(b, t, p[22], T, Dv), t, S, Dv, pfloat(5), PARAM(6) != 0u);
}
