// matmul_f16.comp's `coopnv` variant: the product on cooperative matrices
// (GL_NV_cooperative_matrix, 16x16x16, fp16 A and B, f32 accumulators).
//
// A 64x64 output tile per workgroup of 128 invocations = 4 subgroups of
// 32; subgroup w owns the 32x32 quarter (w / 2, w % 2) as 2x2
// accumulators. K in steps of 32: the step's A (64 x 32) and B (32 x 64)
// tiles are read from memory as vec4s (4 per invocation each), rounded to
// fp16 and stored into shared memory, then multiplied as two 16-deep
// halves; the next step's vec4s are fetched into registers while this one
// multiplies. The accumulators go through shared memory to the output,
// where every element passes the fused epilogue (epilogue.glsl) in f32.
//
// Shared rows are padded to 16-byte multiples that stagger banks (the
// cooperative loads need 16-byte aligned rows and offsets).
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 128) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer A { vec4 a4[]; };
layout(std430, set = 0, binding = 2) readonly buffer B { vec4 b4[]; };
layout(std430, set = 0, binding = 5) writeonly buffer C { float c[]; };
#define EPI_BASE 16
#define EPI_BINDING0 3
#define EPI_BINDING1 4
#include "math.glsl"
#include "epilogue.glsl"
#include "matmul_batch.glsl"

#define TILE 64u
#define BK 32u
#define THREADS 128u
#define VECS 4u          // vec4s of each operand tile per invocation and step
#define SA (BK + 8u)     // halves per shared row of A ([row][k]): 80 bytes
#define SB (TILE + 8u)   // halves per shared row of B ([k][column]): 144 bytes
#define SC TILE          // floats per shared row of the output tile

shared float16_t sA[TILE * SA];
shared float16_t sB[BK * SB];
shared float sC[TILE * SC];

uint offA, offB, offC;  // this batch's operand and output offsets (floats)

// Vec4 e (0..511) of a K step (k0..k0+31), zero outside. A stored [M, K]:
// row e / 8, k 4 (e % 8)..+3; stored [K, M]: k e / 16, rows 4 (e % 16)..+3.
// B stored [K, N]: k e / 16, columns 4 (e % 16)..+3; stored [N, K]:
// column e / 8, k 4 (e % 8)..+3.
vec4 loadA(uint e, uint row0, uint k0) {
  uint M = p[0], K = p[2];
  if (!transA()) {
    uint row = row0 + e / 8u, k = k0 + 4u * (e % 8u);
    return row < M && k < K ? a4[(offA + row * K + k) / 4u] : vec4(0.0);
  }
  uint k = k0 + e / 16u, row = row0 + 4u * (e % 16u);
  return k < K && row < M ? a4[(offA + k * M + row) / 4u] : vec4(0.0);
}

vec4 loadB(uint e, uint col0, uint k0) {
  uint N = p[1], K = p[2];
  if (transB()) {
    uint col = col0 + e / 8u, k = k0 + 4u * (e % 8u);
    return col < N && k < K ? b4[(offB + col * K + k) / 4u] : vec4(0.0);
  }
  uint k = k0 + e / 16u, col = col0 + 4u * (e % 16u);
  return k < K && col < N ? b4[(offB + k * N + col) / 4u] : vec4(0.0);
}

void storeA(uint e, vec4 v) {
  f16vec4 h = f16vec4(v);
  if (!transA()) {
    uint at = (e / 8u) * SA + 4u * (e % 8u);
    sA[at] = h.x, sA[at + 1u] = h.y, sA[at + 2u] = h.z, sA[at + 3u] = h.w;
    return;
  }
  uint at = 4u * (e % 16u) * SA + e / 16u;
  sA[at] = h.x, sA[at + SA] = h.y, sA[at + 2u * SA] = h.z, sA[at + 3u * SA] = h.w;
}

void storeB(uint e, vec4 v) {
  f16vec4 h = f16vec4(v);
  if (!transB()) {
    uint at = (e / 16u) * SB + 4u * (e % 16u);
    sB[at] = h.x, sB[at + 1u] = h.y, sB[at + 2u] = h.z, sB[at + 3u] = h.w;
    return;
  }
  uint at = 4u * (e % 8u) * SB + e / 8u;
  sB[at] = h.x, sB[at + SB] = h.y, sB[at + 2u * SB] = h.z, sB[at + 3u * SB] = h.w;
}

#define ACC fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define OPERAND fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>

void tile(uint row0, uint col0, uint K) {
  uint t = gl_LocalInvocationIndex, steps = (K + BK - 1u) / BK;
  uint wr = (gl_SubgroupID / 2u) * 32u, wc = (gl_SubgroupID % 2u) * 32u;
  vec4 ra[VECS], rb[VECS];
  [[unroll]] for (uint l = 0u; l < VECS; ++l) {
    ra[l] = loadA(t + THREADS * l, row0, 0u);
    rb[l] = loadB(t + THREADS * l, col0, 0u);
  }
  ACC c00 = ACC(0.0), c01 = ACC(0.0), c10 = ACC(0.0), c11 = ACC(0.0);
  for (uint s = 0u; s < steps; ++s) {
    [[unroll]] for (uint l = 0u; l < VECS; ++l) {
      storeA(t + THREADS * l, ra[l]);
      storeB(t + THREADS * l, rb[l]);
    }
    barrier();
    if (s + 1u < steps) {
      [[unroll]] for (uint l = 0u; l < VECS; ++l) {
        ra[l] = loadA(t + THREADS * l, row0, BK * (s + 1u));
        rb[l] = loadB(t + THREADS * l, col0, BK * (s + 1u));
      }
    }
    [[unroll]] for (uint kk = 0u; kk < BK; kk += 16u) {
      OPERAND a0, a1, b0, b1;
      coopMatLoadNV(a0, sA, wr * SA + kk, SA, false);
      coopMatLoadNV(a1, sA, (wr + 16u) * SA + kk, SA, false);
      coopMatLoadNV(b0, sB, kk * SB + wc, SB, false);
      coopMatLoadNV(b1, sB, kk * SB + wc + 16u, SB, false);
      c00 = coopMatMulAddNV(a0, b0, c00);
      c01 = coopMatMulAddNV(a0, b1, c01);
      c10 = coopMatMulAddNV(a1, b0, c10);
      c11 = coopMatMulAddNV(a1, b1, c11);
    }
    barrier();
  }
  coopMatStoreNV(c00, sC, wr * SC + wc, SC, false);
  coopMatStoreNV(c01, sC, wr * SC + wc + 16u, SC, false);
  coopMatStoreNV(c10, sC, (wr + 16u) * SC + wc, SC, false);
  coopMatStoreNV(c11, sC, (wr + 16u) * SC + wc + 16u, SC, false);
  barrier();
  uint M = p[0], N = p[1];
  for (uint i = t; i < TILE * TILE; i += THREADS) {
    uint row = row0 + i / TILE, col = col0 + i % TILE;
    if (row < M && col < N) {
      uint o = offC + row * N + col;
      c[o] = epilogue(sC[i], o, col);
    }
  }
  barrier();  // sC is rewritten by the next tile
}

#define TM TILE
#define TN TILE
#include "matmul_tiles.glsl"
