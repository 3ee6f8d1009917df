// attention_tiled.comp's body on subgroups of 32 (variant `subgroup`): the
// same blocks and register tiles as attention_tiled.glsl, with two
// workgroup barriers per key block instead of five. The 16 invocations
// that share a row quad are half a subgroup: they find their rows' max and
// sum with shuffles (no scratch, no barrier), and the weights p they write
// are read back only by them (a subgroup barrier). K and V have a buffer
// each, so the next block's K and V, loaded into registers during this
// block's products, are stored together once every invocation is done
// with this one.
//
// Shared memory: q's BR rows, K's and V's 64 x 64 blocks, p of 64 x BR:
// 44 KiB for 24 rows, 48 KiB for 32. Measured on the H100 (bench/results/
// h100-attention-tiled-sg.md): Whisper's [1, 1500, 6, 64] attention 4.5 –
// 9% faster than attention_tiled.glsl (286.6 → 273.6 µs); still bound by
// latency, not by the barriers.
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#ifndef BR
#define BR 32
#endif
#ifndef BC
#define BC 64
#endif
#if BC != 64
#error "attention_tiled_sg.glsl: blocks of 64 keys (16 invocations of 4 per row quad)"
#endif
#define RQ (BR / 4)  // row quads: invocations per key column of a block
#define THREADS (16 * RQ)
#define CPT 4        // keys per invocation in a block
#ifndef UNROLL
#define UNROLL 8u    // d steps (keys) whose shared-memory loads go out together (H100: 8 ahead of 1 and 4)
#endif
layout(local_size_x = THREADS) in;
#include "common.glsl"
#include "specialize.glsl"
SPEC_PARAM(3)  // D
SPEC_PARAM(4)  // Dv
SPEC_PARAM(6)  // has mask

shared vec4 sQ[64 * RQ];  // [d][row / 4]: q of rows 4 r .. 4 r + 3 at d
shared vec4 sK[64 * 16];  // [d][key / 4]
shared vec4 sV[64 * 16];  // [key][column / 4]
shared vec4 sP[BC * RQ];  // p: [key][row / 4], each row quad's read by its own 16 invocations

#include "attention_tiled_io.glsl"

// The max and the sum over the 16 invocations of a row quad (16 consecutive
// lanes of a subgroup of 32: xor of 1 .. 8 stays within them).
float quadRowMax(float x) {
  [[unroll]] for (uint m = 1u; m < 16u; m <<= 1u) x = max(x, subgroupShuffleXor(x, m));
  return x;
}
float quadRowSum(float x) {
  [[unroll]] for (uint m = 1u; m < 16u; m <<= 1u) x += subgroupShuffleXor(x, m);
  return x;
}

void attendBlock(uint b, uint row0, uint t) {
  uint T = p[1], S = p[2], D = PARAM(3), Dv = PARAM(4), D4 = D / 4u, Dv4 = Dv / 4u;
  bool hasMask = PARAM(6) != 0u;
  float scale = pfloat(5);
  uint tx = t & 15u, ty = t >> 4u;
  Operands op = operands(b, T, S, D4, Dv4);
  vec4 kr[KTASKS][4], vr[VLOADS];
  loadK(0u, S, D4, op.k, op.kStride, t, kr);
  loadV(0u, S, Dv4, op.v, op.vStride, t, vr);
  barrier();  // the previous row block's readers are done with sQ, sK, sV
  STAGE_TRANSPOSED(sQ, q4, op.q, op.qStride, BR, D4, row0, T)
  STORE_K(sK, D4, t, kr)
  STORE_V(sV, Dv4, t, vr)
  // Row 4 ty + i's running max (the same in the row quad's 16 invocations),
  // this invocation's part of its sum, and its output columns 4 tx ...
  float runMax[4] = float[4](kNegInf, kNegInf, kNegInf, kNegInf);
  float l[4] = float[4](0.0, 0.0, 0.0, 0.0);
  vec4 o[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
  for (uint k0 = 0u; k0 < S; k0 += BC) {
    bool more = k0 + BC < S;
    barrier();  // this block's K and V are stored
    if (more) loadK(k0 + BC, S, D4, op.k, op.kStride, t, kr);  // in flight during the scores
    float s[4][CPT];
    [[unroll]] for (uint i = 0u; i < 4u; ++i)
      [[unroll]] for (uint j = 0u; j < CPT; ++j) s[i][j] = 0.0;
    for (uint d = 0u; d < D; d += UNROLL) {  // UNROLL steps' loads, then their products
      vec4 a[UNROLL], kk[UNROLL];
      [[unroll]] for (uint e = 0u; e < UNROLL; ++e) {  // (past D: zeros; D a constant folds the test)
        a[e] = d + e < D ? sQ[(d + e) * RQ + ty] : vec4(0.0);
        kk[e] = d + e < D ? sK[(d + e) * 16u + tx] : vec4(0.0);
      }
      [[unroll]] for (uint e = 0u; e < UNROLL; ++e)
        [[unroll]] for (uint i = 0u; i < 4u; ++i)
          [[unroll]] for (uint j = 0u; j < CPT; ++j) s[i][j] = fma(a[e][i], kk[e][j], s[i][j]);
    }
    [[unroll]] for (uint i = 0u; i < 4u; ++i) {
      uint row = row0 + 4u * ty + i;
      float pm = kNegInf;
      [[unroll]] for (uint j = 0u; j < CPT; ++j) {
        s[i][j] = maskedScore(s[i][j], row, k0 + CPT * tx + j, T, S, scale, hasMask);
        pm = max(pm, s[i][j]);
      }
      float mx = max(runMax[i], quadRowMax(pm));
      float base = isinf(mx) ? 0.0 : mx;  // every score so far -inf: weights stay 0
      float alpha = exp(runMax[i] - base), sum = 0.0;
      runMax[i] = mx;
      [[unroll]] for (uint j = 0u; j < CPT; ++j) {
        s[i][j] = exp(s[i][j] - base);
        sum += s[i][j];
      }
      l[i] = l[i] * alpha + sum;
      o[i] *= alpha;
    }
    // p to this row quad's slice of sP (its last readers, this quad's own
    // invocations, passed the barrier above since).
    [[unroll]] for (uint j = 0u; j < CPT; ++j) sP[(CPT * tx + j) * RQ + ty] = vec4(s[0][j], s[1][j], s[2][j], s[3][j]);
    if (more) loadV(k0 + BC, S, Dv4, op.v, op.vStride, t, vr);  // in flight during o += p v
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    if (tx < Dv4) {
      for (uint k = 0u; k < BC; k += UNROLL) {
        vec4 pr[UNROLL], vv[UNROLL];
        [[unroll]] for (uint e = 0u; e < UNROLL; ++e) {
          pr[e] = sP[(k + e) * RQ + ty];
          vv[e] = sV[(k + e) * 16u + tx];
        }
        [[unroll]] for (uint e = 0u; e < UNROLL; ++e)
          [[unroll]] for (uint i = 0u; i < 4u; ++i) o[i] = fma(vec4(pr[e][i]), vv[e], o[i]);
      }
    }
    barrier();  // every invocation is done with this block's K, V and p
    if (more) {
      STORE_K(sK, D4, t, kr)
      STORE_V(sV, Dv4, t, vr)
    }
  }
  [[unroll]] for (uint i = 0u; i < 4u; ++i) {
    uint row = row0 + 4u * ty + i;
    float sum = quadRowSum(l[i]);
    if (row < T && tx < Dv4) out4[op.o + row * op.oStride + tx] = o[i] / sum;
  }
}
