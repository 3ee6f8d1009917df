// attention_cache: a decoder layer's attention over its KV cache in one
// dispatch (AttentionCache, ir/ops.def): RoPE on the query row as it loads,
// the chunk's keys (rotated) and values taken at cache positions
// [offset, offset + T) from k / v, the cache for the other positions, and
// the chunk's rows written into the cache in place. The online softmax is
// attention.glsl's.
//
// No race: no workgroup reads the cache at [offset, offset + T) (it uses
// k / v there), and each of those rows is written once, by the workgroup of
// the first query head of its K/V head (query row t writes cache row
// offset + t). An offset outside [0, S - T] writes nothing and every key
// comes from the cache (StateWrite's guard).
//
// The chunk's keys are rotated once, into shared memory (when T * D <=
// 2048: a decode step's one row, a prefill chunk of up to 32 rows of 64),
// for the products and the cache write alike; larger chunks rotate them as
// they are read. Specialized copies: D, Dv and has-mask are constants.
//
// Bindings: 1 = q [B, H, T, D], 2 = k [B, KV, T, D], 3 = v [B, KV, T, Dv],
//   4 = offset (one i32 word), 5 = cos [T, D], 6 = signed_sin [T, D],
//   7 = mask [T, S] (q when there is none), 8 = out [B, H, T, Dv],
//   9 = k cache [B, KV, S, D], 10 = v cache [B, KV, S, Dv] (read and
//   written: the memory plan gives the results their states' bytes); f32.
// Params:
//   p[0] rows (B * H * T)  p[1] T  p[2] S  p[3] D (even, <= 512)
//   p[4] Dv (<= 512)  p[5] scale (f32 bits)  p[6] has mask (0/1)  p[7] H
//   p[8] G = H / KV
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
layout(std430, set = 0, binding = 2) readonly buffer K { float kNew[]; };
layout(std430, set = 0, binding = 3) readonly buffer V { vec4 vNew4[]; };  // (the binding covers whole vec4s)
layout(std430, set = 0, binding = 4) readonly buffer Offset { int offsetv[]; };
layout(std430, set = 0, binding = 5) readonly buffer Cos { float cosv[]; };
layout(std430, set = 0, binding = 6) readonly buffer Sin { float sinv[]; };
layout(std430, set = 0, binding = 7) readonly buffer Mask { float mask[]; };
layout(std430, set = 0, binding = 8) writeonly buffer Out { float outv[]; };
layout(std430, set = 0, binding = 9) buffer KCache { vec4 kc4[]; };  // (the binding covers whole vec4s)
layout(std430, set = 0, binding = 10) buffer VCache { vec4 vc4[]; };

#include "attention.glsl"

uint kvHead;        // this row's K/V head in [0, B * KV)
uint newFirst = 0;  // cache positions [newFirst, newEnd) come from k / v
uint newEnd = 0;
const uint kRotMax = 2048u;
shared float kRot[kRotMax];  // the chunk's keys [T, D], rotated (kRotStaged)
bool kRotStaged = false;

// Element d of a row of D: x[at + d] * cos[r, d] + x[at + partner] * signed_sin[r, d].
float rotated(float x, float partner, uint r, uint d) {
  return x * cosv[r * PARAM(3) + d] + partner * sinv[r * PARAM(3) + d];
}
uint partnerOf(uint d) { return d < PARAM(3) / 2u ? d + PARAM(3) / 2u : d - PARAM(3) / 2u; }
// Element d of the chunk's key row r, rotated.
float newKey(uint r, uint d) {
  uint at = (kvHead * p[1] + r) * PARAM(3);
  return rotated(kNew[at + d], kNew[at + partnerOf(d)], r, d);
}

float keyDot(uint j) {
  uint D = PARAM(3);
  float qk = 0.0;
  if (j >= newFirst && j < newEnd) {
    uint r = j - newFirst;
    if (kRotStaged) {
      [[unroll]] for (uint d = 0; d < D; ++d) qk += qRow[d] * kRot[r * D + d];
    } else {
      for (uint d = 0; d < D; ++d) qk += qRow[d] * newKey(r, d);
    }
    return qk;
  }
  uint at = (kvHead * p[2] + j) * D;
  if ((D & 3u) == 0u) {  // whole vec4s
    [[unroll]] for (uint d = 0; d < D; d += 4u)
      qk += dot(vec4(qRow[d], qRow[d + 1u], qRow[d + 2u], qRow[d + 3u]), kc4[(at + d) >> 2u]);
  } else {
    for (uint d = 0; d < D; ++d) qk += qRow[d] * kc4[(at + d) >> 2u][(at + d) & 3u];
  }
  return qk;
}

float vNewAt(uint i) { return vNew4[i >> 2u][i & 3u]; }

float valueAt(uint j, uint e) {
  uint Dv = PARAM(4);
  if (j >= newFirst && j < newEnd) return vNewAt((kvHead * p[1] + j - newFirst) * Dv + e);
  uint i = (kvHead * p[2] + j) * Dv + e;
  return vc4[i >> 2u][i & 3u];
}
vec4 valueAt4(uint j, uint e4) {
  uint Dv = PARAM(4);
  if (j >= newFirst && j < newEnd) return vNew4[(kvHead * p[1] + j - newFirst) * Dv / 4u + e4];
  return vc4[(kvHead * p[2] + j) * Dv / 4u + e4];
}

void main() {
  uint row = linearGroup();
  if (row >= p[0]) return;  // uniform per workgroup
  uint T = p[1], S = p[2], D = PARAM(3), Dv = PARAM(4), H = p[7];
  uint t = row % T, h = (row / T) % H, b = row / T / H;
  kvHead = b * (H / p[8]) + h / p[8];
  int offset = offsetv[0];
  bool fresh = offset >= 0 && offset <= int(S) - int(T);
  if (fresh) {
    newFirst = uint(offset);
    newEnd = newFirst + T;
  }
  uint tid = gl_LocalInvocationIndex;
  for (uint d = tid; d < D; d += 128) qRow[d] = rotated(q[row * D + d], q[row * D + partnerOf(d)], t, d);
  kRotStaged = fresh && T * D <= kRotMax;  // uniform
  if (kRotStaged)
    for (uint i = tid; i < T * D; i += 128) kRot[i] = newKey(i / D, i % D);
  barrier();
  if (fresh && h % p[8] == 0u) {  // the one writer of cache row offset + t of this K/V head
    uint to = (kvHead * S + newFirst + t) * D;
    for (uint d = tid; d < D; d += 128) {
      float x = kRotStaged ? kRot[t * D + d] : newKey(t, d);
      kc4[(to + d) >> 2u][(to + d) & 3u] = x;
    }
    for (uint e = tid; e < Dv; e += 128) {
      uint i = (kvHead * S + newFirst + t) * Dv + e;
      vc4[i >> 2u][i & 3u] = vNewAt((kvHead * T + t) * Dv + e);
    }
  }
  attendRow(row * Dv, t, S, Dv, pfloat(5), PARAM(6) != 0u);
}
