// attention_f16: attention in the accelerated mode (Attention{precision =
// "fp16"}, ir/matmul.h): out = softmax(q kᵀ * scale + mask) v with q, k
// and v rounded to fp16 as they are read, the scores summed in f32, the
// softmax in f32, and each weight rounded to fp16 for the weighted sum of
// v (summed in f32) while the sum that divides it adds the unrounded
// weights. The max is the row's over all its keys (a first walk over the
// keys finds it), not a running one, so how the keys are blocked does not
// change any rounding: every build computes the evaluator's values up to
// f32 summation order (and a weight's last-bit neighbour in fp16).
//
// Variants: `coopnv` multiplies q kᵀ and p v on the GPU's cooperative
// matrix units (attention_coop.glsl: 64 query rows per workgroup, ir/matmul.h
// kAttentionF16BlockRows; 16 per subgroup, 64-key blocks, two walks); the
// portable build gives each query row one invocation that walks the keys
// twice (lavapipe, Metal, and GPUs without the extension run every fp16
// bundle).
//
// Bindings and params: attention_tiled.comp's (q [B, T, D], k [Bk, S, D],
// v [Bk, S, Dv], mask [T, S], out [B, T, Dv]; p[0] rows, p[1] T, p[2] S,
// p[3] D, p[4] Dv, p[5] scale, p[6] has mask, p[7..12] q's leading dims,
// p[13..18] k's batch strides, p[19..22] the heads between q's, k's, v's,
// out's rows). D and Dv are at most 64, multiples of 4. Grid: (64-row
// query blocks, batches), clamped; workgroups loop over the rest.
// Specialized copies: D, Dv and has-mask constant.
#version 450
// mgc-variant: coopnv features=CooperativeMatrixNV,Float16,Subgroup defines=MGC_COOP env=vulkan1.1 msl=none subgroup=32 coop=16x16x16
#extension GL_EXT_control_flow_attributes : require
#ifdef MGC_COOP
#define THREADS 128u
#else
#define THREADS 64u
#endif
layout(local_size_x = THREADS) in;
#include "common.glsl"
#include "specialize.glsl"
SPEC_PARAM(3)  // D
SPEC_PARAM(4)  // Dv
SPEC_PARAM(6)  // has mask

layout(std430, set = 0, binding = 1) readonly buffer Q { vec4 q4[]; };
layout(std430, set = 0, binding = 2) readonly buffer K { vec4 k4[]; };
layout(std430, set = 0, binding = 3) readonly buffer V { vec4 v4[]; };
layout(std430, set = 0, binding = 4) readonly buffer Mask { float mask[]; };
layout(std430, set = 0, binding = 5) writeonly buffer Out { vec4 out4[]; };

const float kHidden = -1e30;
#define kNegInf uintBitsToFloat(0xff800000u)

// Where batch b's operands start and their row-to-row strides, in vec4s
// (attention_tiled.glsl's addressing: k's batch through its broadcast
// strides, tokens-major operands through the heads between their rows).
struct Bases {
  uint q, k, v, o, qStride, kStride, vStride, oStride;
};
Bases bases(uint b) {
  uint T = p[1], S = p[2], D4 = PARAM(3) / 4u, Dv4 = PARAM(4) / 4u;
  uint rest = b, kb = 0u;
  for (int a = 5; a >= 0; --a) {
    kb += (rest % p[7 + a]) * p[13 + a];
    rest /= p[7 + a];
  }
  uint Hq = p[19], Hk = p[20], Hv = p[21], Ho = p[22];
  return Bases(((b / Hq) * T * Hq + b % Hq) * D4, ((kb / Hk) * S * Hk + kb % Hk) * D4,
               ((kb / Hv) * S * Hv + kb % Hv) * Dv4, ((b / Ho) * T * Ho + b % Ho) * Dv4, Hq * D4, Hk * D4, Hv * Dv4,
               Ho * Dv4);
}

// Score of row `row`, key `key` from its product: scaled and masked (a
// key whose mask is <= -1e30 scores exactly its mask), -inf past the keys.
float score(float dot, uint row, uint key, uint T, uint S, float scale, bool hasMask) {
  if (key >= S) return kNegInf;
  float x = dot * scale;
  if (hasMask) {
    float mk = row < T ? mask[row * S + key] : 0.0;
    x = mk <= kHidden ? mk : x + mk;
  }
  return x;
}

#ifdef MGC_COOP
#include "attention_coop.glsl"
#else
#include "math.glsl"

vec4 round4(vec4 v) { return vec4(roundToHalf(v.x), roundToHalf(v.y), roundToHalf(v.z), roundToHalf(v.w)); }

// q (rounded) · key j (rounded), the same sum in both walks.
float keyDot(vec4 q[16], Bases at, uint j) {
  float sum = 0.0;
  [[unroll]] for (uint c = 0u; c < 16u; ++c)
    if (c < PARAM(3) / 4u) sum += dot(q[c], round4(k4[at.k + j * at.kStride + c]));
  return sum;
}

// Row `row` of batch b: one invocation, the keys walked twice (the max,
// then the weights).
void attendRow(uint b, uint row) {
  uint T = p[1], S = p[2], D4 = PARAM(3) / 4u, Dv4 = PARAM(4) / 4u;
  bool hasMask = PARAM(6) != 0u;
  float scale = pfloat(5);
  Bases at = bases(b);
  vec4 q[16];
  [[unroll]] for (uint c = 0u; c < 16u; ++c) q[c] = c < D4 ? round4(q4[at.q + row * at.qStride + c]) : vec4(0.0);
  float mx = kNegInf;
  for (uint j = 0u; j < S; ++j) {
    float s = score(keyDot(q, at, j), row, j, T, S, scale, hasMask);
    mx = isnan(s) || isnan(mx) ? s + mx : max(mx, s);
  }
  float l = 0.0;
  vec4 acc[16];
  [[unroll]] for (uint c = 0u; c < 16u; ++c) acc[c] = vec4(0.0);
  for (uint j = 0u; j < S; ++j) {
    float w = exp(score(keyDot(q, at, j), row, j, T, S, scale, hasMask) - mx);
    l += w;
    float w16 = roundToHalf(w);
    if (w16 != 0.0)
      [[unroll]] for (uint c = 0u; c < 16u; ++c)
        if (c < Dv4) acc[c] += w16 * round4(v4[at.v + j * at.vStride + c]);
  }
  [[unroll]] for (uint c = 0u; c < 16u; ++c)
    if (c < Dv4) out4[at.o + row * at.oStride + c] = acc[c] / l;
}

void main() {
  uint T = p[1], blocks = (T + 63u) / 64u, batches = p[0] / T;
  for (uint b = gl_WorkGroupID.y; b < batches; b += gl_NumWorkGroups.y)
    for (uint qb = gl_WorkGroupID.x; qb < blocks; qb += gl_NumWorkGroups.x) {
      uint row = 64u * qb + gl_LocalInvocationIndex;
      if (row < T) attendRow(b, row);
    }
}
#endif
