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

shared vec4 sQ[64 * RQ];       // [d][row / 4]: q of rows 4 r .. 4 r + 3 at d
shared vec4 sKV[64 * BC / 4];  // K: [d][key / 4]; V: [key][column / 4]
shared vec4 sP[BC * RQ];       // p: [key][row / 4]; also the row scratch below

#include "attention_tiled_io.glsl"

// The row scratch in sP's floats: 16 partials per row at row * 16 + tx,
// then each row's max (kBase..) and rescale factor (kAlpha..).
const uint kBase = 16u * BR, kAlpha = 17u * BR;
void putScratch(uint i, float x) { sP[i >> 2u][i & 3u] = x; }
float scratch(uint i) { return sP[i >> 2u][i & 3u]; }

void attendBlock(uint b, uint row0, uint t) {
  uint T = p[1], S = p[2], D = PARAM(3), Dv = PARAM(4), D4 = D / 4u, Dv4 = Dv / 4u;
  bool hasMask = PARAM(6) != 0u;
  float scale = pfloat(5);
  uint tx = t & 15u, ty = t >> 4u;
  Operands op = operands(b, T, S, D4, Dv4);
  barrier();  // the previous block's readers are done with sQ and sP
  STAGE_TRANSPOSED(sQ, q4, op.q, op.qStride, BR, D4, row0, T)
  float runMax = kNegInf;  // invocation t < BR: row t's max so far
  float l[4] = float[4](0.0, 0.0, 0.0, 0.0);
  vec4 o[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
  vec4 kr[KTASKS][4], vr[VLOADS];
  loadK(0u, S, D4, op.k, op.kStride, t, kr);
  for (uint k0 = 0u; k0 < S; k0 += BC) {
    barrier();  // sKV (the last block's V) and sP are free
    STORE_K(sKV, D4, t, kr)
    barrier();
    loadV(k0, S, Dv4, op.v, op.vStride, t, vr);  // in flight during the scores
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
        s[i][j] = maskedScore(s[i][j], row, k0 + CPT * tx + j, T, S, scale, hasMask);
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
    STORE_V(sKV, Dv4, t, vr)
    if (k0 + BC < S) loadK(k0 + BC, S, D4, op.k, op.kStride, t, kr);  // in flight during o += p v
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
    if (row < T && tx < Dv4) out4[op.o + row * op.oStride + tx] = o[i] / sum;
  }
}
