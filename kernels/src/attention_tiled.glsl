// attention_tiled.comp's body (see there), shared with attention_tiled24.comp:
// BR query rows per workgroup (4 BR invocations), keys in blocks of BC.
#extension GL_EXT_control_flow_attributes : require
#ifndef BR
#define BR 64
#endif
#define RQ (BR / 4)       // row quads: invocations per key column of a block
#define THREADS (16 * RQ)
layout(local_size_x = THREADS) in;
#include "common.glsl"
#include "specialize.glsl"
SPEC_PARAM(3)  // D
SPEC_PARAM(4)  // Dv
SPEC_PARAM(6)  // has mask

#ifndef BC
#define BC 32
#endif
#define CPT (BC / 16)  // keys per invocation in a block

layout(std430, set = 0, binding = 1) readonly buffer Q { vec4 q4[]; };
layout(std430, set = 0, binding = 2) readonly buffer K { vec4 k4[]; };
layout(std430, set = 0, binding = 3) readonly buffer V { vec4 v4[]; };
layout(std430, set = 0, binding = 4) readonly buffer Mask { float mask[]; };
layout(std430, set = 0, binding = 5) writeonly buffer Out { vec4 out4[]; };

shared vec4 sQ[64 * RQ];       // [d][row / 4]: q of rows 4 r .. 4 r + 3 at d
shared vec4 sKV[64 * BC / 4];  // K: [d][key / 4]; V: [key][column / 4]
shared vec4 sP[BC * RQ];       // p: [key][row / 4]; also the row scratch below

const float kHidden = -1e30;
#define kNegInf uintBitsToFloat(0xff800000u)

// The row scratch in sP's floats: 16 partials per row at row * 16 + tx,
// then each row's max (kBase..) and rescale factor (kAlpha..).
const uint kBase = 16u * BR, kAlpha = 17u * BR;
void putScratch(uint i, float x) { sP[i >> 2u][i & 3u] = x; }
float scratch(uint i) { return sP[i >> 2u][i & 3u]; }

// Stages R rows of a [rows, W] tensor (W = 4 w4 floats, rows from
// `first` STRIDE vec4s apart, zeros past `count`) transposed into `dst`
// rows of d (q's block):
// invocation task (r4, d4) loads 4 rows' vec4s at d4 and stores 4 vec4s of
// 4 rows each (r4 fastest: consecutive vec4s in shared memory).
#define STAGE_TRANSPOSED(DST, SRC, BASE, STRIDE, R, W4, FIRST, COUNT)                           \
  for (uint task = t; task < (R / 4u) * (W4); task += THREADS) {                                  \
    uint r4 = task % (R / 4u), d4 = task / (R / 4u);                                              \
    vec4 x[4];                                                                                    \
    [[unroll]] for (uint c = 0u; c < 4u; ++c) {                                                   \
      uint r = FIRST + 4u * r4 + c;                                                               \
      x[c] = r < COUNT ? SRC[BASE + r * (STRIDE) + d4] : vec4(0.0);                               \
    }                                                                                             \
    [[unroll]] for (uint c = 0u; c < 4u; ++c)                                                     \
      DST[(4u * d4 + c) * (R / 4u) + r4] = vec4(x[0][c], x[1][c], x[2][c], x[3][c]);              \
  }

// K's and V's blocks go through registers: the next block's loads are in
// flight while this block's products run. At most KTASKS staging tasks of
// K (4 rows' vec4s each) and VLOADS vec4s of V per invocation (heads <= 64).
#define KTASKS ((BC / 4 * 16 + THREADS - 1) / THREADS)
#define VLOADS ((BC * 16 + THREADS - 1) / THREADS)

void loadK(uint k0, uint S, uint D4, uint kBase4, uint kStride4, uint t, out vec4 kr[KTASKS][4]) {
  [[unroll]] for (uint i = 0u; i < KTASKS; ++i) {
    uint task = t + i * THREADS, r4 = task % (BC / 4u), d4 = task / (BC / 4u);
    [[unroll]] for (uint c = 0u; c < 4u; ++c) {
      uint r = k0 + 4u * r4 + c;
      kr[i][c] = task < (BC / 4u) * D4 && r < S ? k4[kBase4 + r * kStride4 + d4] : vec4(0.0);
    }
  }
}

// K's block into sKV as [d][key / 4] (transposed: 4 vec4s of 4 keys each).
void storeK(uint D4, uint t, vec4 kr[KTASKS][4]) {
  [[unroll]] for (uint i = 0u; i < KTASKS; ++i) {
    uint task = t + i * THREADS, r4 = task % (BC / 4u), d4 = task / (BC / 4u);
    if (task < (BC / 4u) * D4)
      [[unroll]] for (uint c = 0u; c < 4u; ++c)
        sKV[(4u * d4 + c) * (BC / 4u) + r4] = vec4(kr[i][0][c], kr[i][1][c], kr[i][2][c], kr[i][3][c]);
  }
}

void loadV(uint k0, uint S, uint Dv4, uint vBase4, uint vStride4, uint t, out vec4 vr[VLOADS]) {
  [[unroll]] for (uint i = 0u; i < VLOADS; ++i) {
    uint task = t + i * THREADS, key = task / Dv4, c4 = task % Dv4;
    vr[i] = task < BC * Dv4 && k0 + key < S ? v4[vBase4 + (k0 + key) * vStride4 + c4] : vec4(0.0);
  }
}

// V's block into sKV as [key][column / 4].
void storeV(uint Dv4, uint t, vec4 vr[VLOADS]) {
  [[unroll]] for (uint i = 0u; i < VLOADS; ++i) {
    uint task = t + i * THREADS;
    if (task < BC * Dv4) sKV[(task / Dv4) * 16u + task % Dv4] = vr[i];
  }
}

void attendBlock(uint b, uint row0, uint t) {
  uint T = p[1], S = p[2], D = PARAM(3), Dv = PARAM(4), D4 = D / 4u, Dv4 = Dv / 4u;
  bool hasMask = PARAM(6) != 0u;
  float scale = pfloat(5);
  uint tx = t & 15u, ty = t >> 4u;
  uint rest = b, kb = 0u;
  for (int a = 5; a >= 0; --a) {
    kb += (rest % p[7 + a]) * p[13 + a];
    rest /= p[7 + a];
  }
  // Each operand's first row and row-to-row stride in vec4s: p[19..22] heads
  // between the rows of q, k, v, out (1 unless tokens-major).
  uint Hq = p[19], Hk = p[20], Hv = p[21], Ho = p[22];
  uint qBase = ((b / Hq) * T * Hq + b % Hq) * D4, kBase4 = ((kb / Hk) * S * Hk + kb % Hk) * D4;
  uint vBase4 = ((kb / Hv) * S * Hv + kb % Hv) * Dv4, oBase4 = ((b / Ho) * T * Ho + b % Ho) * Dv4;
  barrier();  // the previous block's readers are done with sQ and sP
  STAGE_TRANSPOSED(sQ, q4, qBase, Hq * D4, BR, D4, row0, T)
  float runMax = kNegInf;  // invocation t < BR: row t's max so far
  float l[4] = float[4](0.0, 0.0, 0.0, 0.0);
  vec4 o[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
  vec4 kr[KTASKS][4], vr[VLOADS];
  loadK(0u, S, D4, kBase4, Hk * D4, t, kr);
  for (uint k0 = 0u; k0 < S; k0 += BC) {
    barrier();  // sKV (the last block's V) and sP are free
    storeK(D4, t, kr);
    barrier();
    loadV(k0, S, Dv4, vBase4, Hv * Dv4, t, vr);  // in flight during the scores
    float s[4][CPT];
    [[unroll]] for (uint i = 0u; i < 4u; ++i)
      [[unroll]] for (uint j = 0u; j < CPT; ++j) s[i][j] = 0.0;
    for (uint d = 0u; d < D; ++d) {
      vec4 a = sQ[d * RQ + ty];
#if BC == 64
      vec4 kk = sKV[d * 16u + tx];
#else
      vec4 k2 = sKV[d * 8u + (tx >> 1u)];
      vec2 kk = (tx & 1u) == 0u ? k2.xy : k2.zw;
#endif
      [[unroll]] for (uint i = 0u; i < 4u; ++i)
        [[unroll]] for (uint j = 0u; j < CPT; ++j) s[i][j] = fma(a[i], kk[j], s[i][j]);
    }
    [[unroll]] for (uint i = 0u; i < 4u; ++i) {
      uint row = row0 + 4u * ty + i;
      float pm = kNegInf;
      [[unroll]] for (uint j = 0u; j < CPT; ++j) {
        uint key = k0 + CPT * tx + j;
        float x = s[i][j] * scale;
        if (hasMask) {
          float mk = row < T && key < S ? mask[row * S + key] : 0.0;
          x = mk <= kHidden ? mk : x + mk;
        }
        s[i][j] = key < S ? x : kNegInf;
        pm = max(pm, s[i][j]);
      }
      putScratch((4u * ty + i) * 16u + tx, pm);
    }
    barrier();
    if (t < BR) {  // row t: the block's max, the new running max, the rescale
      float mx = runMax;
      for (uint c = 0u; c < 16u; ++c) mx = max(mx, scratch(t * 16u + c));
      float base = isinf(mx) ? 0.0 : mx;  // every score so far -inf: weights stay 0
      putScratch(kBase + t, base);
      putScratch(kAlpha + t, exp(runMax - base));
      runMax = mx;
    }
    barrier();
    [[unroll]] for (uint i = 0u; i < 4u; ++i) {
      float base = scratch(kBase + 4u * ty + i), alpha = scratch(kAlpha + 4u * ty + i), sum = 0.0;
      [[unroll]] for (uint j = 0u; j < CPT; ++j) {
        s[i][j] = exp(s[i][j] - base);
        sum += s[i][j];
      }
      l[i] = l[i] * alpha + sum;
      o[i] *= alpha;
    }
    barrier();  // the scratch and K are read: p and V may overwrite them
    [[unroll]] for (uint j = 0u; j < CPT; ++j) sP[(CPT * tx + j) * RQ + ty] = vec4(s[0][j], s[1][j], s[2][j], s[3][j]);
    storeV(Dv4, t, vr);
    if (k0 + BC < S) loadK(k0 + BC, S, D4, kBase4, Hk * D4, t, kr);  // in flight during o += p v
    barrier();
    if (tx < Dv4) {
      for (uint kk = 0u; kk < BC; ++kk) {
        vec4 pr = sP[kk * RQ + ty], vv = sKV[kk * 16u + tx];
        o[0] = fma(vec4(pr.x), vv, o[0]);
        o[1] = fma(vec4(pr.y), vv, o[1]);
        o[2] = fma(vec4(pr.z), vv, o[2]);
        o[3] = fma(vec4(pr.w), vv, o[3]);
      }
    }
  }
  // The row sums: each invocation's part over its keys, added up once.
  barrier();
  [[unroll]] for (uint i = 0u; i < 4u; ++i) putScratch((4u * ty + i) * 16u + tx, l[i]);
  barrier();
  [[unroll]] for (uint i = 0u; i < 4u; ++i) {
    uint r = 4u * ty + i, row = row0 + r;
    float sum = 0.0;
    for (uint c = 0u; c < 16u; ++c) sum += scratch(r * 16u + c);
    if (row < T && tx < Dv4) out4[oBase4 + row * Ho * Dv4 + tx] = o[i] / sum;
  }
}

void main() {
  uint T = p[1], blocks = (T + BR - 1u) / BR, batches = p[0] / T;
  for (uint b = gl_WorkGroupID.y; b < batches; b += gl_NumWorkGroups.y)
    for (uint qb = gl_WorkGroupID.x; qb < blocks; qb += gl_NumWorkGroups.x) attendBlock(b, BR * qb, gl_LocalInvocationIndex);
}
