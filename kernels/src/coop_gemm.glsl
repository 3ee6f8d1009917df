// The cooperative-matrix GEMM core of the accelerated mode's `coopnv`
// variants: C = A B on cooperative matrices (GL_NV_cooperative_matrix,
// 16x16x16, fp16 A and B, f32 accumulators). matmul_coop.glsl applies it to
// MatMul's operands (matmul_f16, matmul_f16_large, matmul_f16_splitk),
// conv2d_coop.glsl to a convolution's implicit GEMM (conv2d_f16_splitk).
//
// The includer defines TM x TN (the workgroup's output tile) and WARPS_M x
// WARPS_N (its subgroups of 32); subgroup w owns the (TM / WARPS_M) x
// (TN / WARPS_N) block (w / WARPS_N, w % WARPS_N) as FM x FN 16x16
// accumulators. K in steps of BK (the includer's, a multiple of 16: deeper
// steps for small grids, whose few workgroups wait on each step's loads,
// shallower ones where the registers that stage a step are dear): the step's A and B tiles are read
// from memory as vec4s, rounded to fp16 and stored into shared memory as
// 8-byte packed uvec2s (the cooperative loads take no f16 vectors) in the
// operand's stored orientation (an operand stored
// transposed is loaded column-major, so no store is scattered); the next
// step's vec4s are fetched into registers while this one multiplies. Each
// 16-deep slice loads FM A fragments and, one at a time, FN B fragments,
// so every A fragment feeds FN products and every B fragment FM.
//
// The output: each subgroup stores one accumulator at a time into its own
// 16x16 staging block in shared memory and hands it to the includer's
// store() in f32 (the fused epilogue or an atomic add), a row's 16
// columns by 16 consecutive invocations: no workgroup-wide output tile, so
// shared memory stays small.
//
// Defined by the includer, after this file (declared here):
//   bool transA(), transB(): A stored [K, M] / B stored [N, K];
//   uint gemmRows(), gemmCols(): M and N;
//   vec4 loadA(uint e, uint row0, uint k0, uint kEnd), loadB(uint e, uint
//     col0, uint k0, uint kEnd): vec4 e of a K step (below), zero outside
//     the matrix or past kEnd;
//   void store(uint row, uint col, float v): the sum over the tile's K
//     range of output (row, col), row < M and col < N.
//
// Shared rows are padded by 8 halves (16 bytes): the cooperative loads
// need 16-byte aligned rows and offsets, and the pad staggers the rows of
// a fragment across banks.
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#define THREADS (32u * WARPS_M * WARPS_N)
layout(local_size_x = THREADS) in;
#include "common.glsl"

#define FM (TM / WARPS_M / 16u)  // accumulator rows per subgroup
#define FN (TN / WARPS_N / 16u)  // accumulator columns per subgroup
#define VA (TM * BK / 4u / THREADS)  // vec4s of the A tile per invocation and step
#define VB (TN * BK / 4u / THREADS)
// Row pitches in uvec2s (4 halves): [rows][k] tiles (A as stored [M, K], B as
// stored [N, K]) and [k][columns] tiles (A stored [K, M], B stored [K, N]).
#define PK ((BK + 8u) / 4u)  // (BK + 8 halves: 16-byte rows, staggered banks)
#define PA ((TM + 8u) / 4u)
#define PB ((TN + 8u) / 4u)
#define SIZE_A max(TM * PK, BK * PA)
#define SIZE_B max(TN * PK, BK * PB)

shared uvec2 sA[SIZE_A];
shared uvec2 sB[SIZE_B];
shared float sStage[THREADS / 32u * 256u];

// Vec4 e of a K step (k0..k0+BK-1), zero outside the matrix or past kEnd
// (a multiple of 4: whole vec4s), and where it
// goes in shared memory. A stored [M, K]: row e / (BK / 4), k 4 (e % (BK /
// 4))..+3; stored [K, M]: k e / (TM / 4), rows 4 (e % (TM / 4))..+3. B
// likewise.
#define KV (BK / 4u)  // vec4s per k row of a step
bool transA();
bool transB();
uint gemmRows();
uint gemmCols();
vec4 loadA(uint e, uint row0, uint k0, uint kEnd);
vec4 loadB(uint e, uint col0, uint k0, uint kEnd);
void store(uint row, uint col, float v);

uint slotA(uint e) { return transA() ? (e / (TM / 4u)) * PA + e % (TM / 4u) : (e / KV) * PK + e % KV; }
uint slotB(uint e) { return transB() ? (e / KV) * PK + e % KV : (e / (TN / 4u)) * PB + e % (TN / 4u); }

uvec2 half4(vec4 v) { return uvec2(packFloat2x16(f16vec2(v.xy)), packFloat2x16(f16vec2(v.zw))); }

#define ACC fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define OPERAND fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>

// The 16x16 fragment of A at rows r.., k kk.. and of B at k kk.., columns
// c.. in shared memory (offsets and strides in uvec2s).
void loadFragA(out OPERAND f, uint r, uint kk) {
  if (transA()) coopMatLoadNV(f, sA, kk * PA + r / 4u, PA, true);
  else coopMatLoadNV(f, sA, r * PK + kk / 4u, PK, false);
}
void loadFragB(out OPERAND f, uint kk, uint col) {
  if (transB()) coopMatLoadNV(f, sB, col * PK + kk / 4u, PK, true);
  else coopMatLoadNV(f, sB, kk * PB + col / 4u, PB, false);
}

// The tile's product over k in [kBegin, kEnd), through store().
void tileRange(uint row0, uint col0, uint kBegin, uint kEnd) {
  uint t = gl_LocalInvocationIndex, steps = (kEnd - kBegin + BK - 1u) / BK;
  uint wr = (gl_SubgroupID / WARPS_N) * (TM / WARPS_M), wc = (gl_SubgroupID % WARPS_N) * (TN / WARPS_N);
  vec4 ra[VA], rb[VB];
  [[unroll]] for (uint l = 0u; l < VA; ++l) ra[l] = loadA(t + THREADS * l, row0, kBegin, kEnd);
  [[unroll]] for (uint l = 0u; l < VB; ++l) rb[l] = loadB(t + THREADS * l, col0, kBegin, kEnd);
  ACC acc[FM][FN];
  [[unroll]] for (uint i = 0u; i < FM; ++i)
    [[unroll]] for (uint j = 0u; j < FN; ++j) acc[i][j] = ACC(0.0);
  for (uint s = 0u; s < steps; ++s) {
    [[unroll]] for (uint l = 0u; l < VA; ++l) sA[slotA(t + THREADS * l)] = half4(ra[l]);
    [[unroll]] for (uint l = 0u; l < VB; ++l) sB[slotB(t + THREADS * l)] = half4(rb[l]);
    barrier();
    if (s + 1u < steps) {
      [[unroll]] for (uint l = 0u; l < VA; ++l) ra[l] = loadA(t + THREADS * l, row0, kBegin + BK * (s + 1u), kEnd);
      [[unroll]] for (uint l = 0u; l < VB; ++l) rb[l] = loadB(t + THREADS * l, col0, kBegin + BK * (s + 1u), kEnd);
    }
    [[unroll]] for (uint kk = 0u; kk < BK; kk += 16u) {
      OPERAND fa[FM];
      [[unroll]] for (uint i = 0u; i < FM; ++i) loadFragA(fa[i], wr + 16u * i, kk);
      [[unroll]] for (uint j = 0u; j < FN; ++j) {
        OPERAND fb;
        loadFragB(fb, kk, wc + 16u * j);
        [[unroll]] for (uint i = 0u; i < FM; ++i) acc[i][j] = coopMatMulAddNV(fa[i], fb, acc[i][j]);
      }
    }
    barrier();
  }
  // Each store instruction of the subgroup writes 2 rows of 16 consecutive
  // columns (lane % 16 the column, lane / 16 the row's parity): whole
  // 64-byte runs of a row-major output.
  uint M = gemmRows(), N = gemmCols(), lane = gl_SubgroupInvocationID, stage = gl_SubgroupID * 256u;
  uint c = lane % 16u, r0 = lane / 16u;
  [[unroll]] for (uint i = 0u; i < FM; ++i) {
    [[unroll]] for (uint j = 0u; j < FN; ++j) {
      coopMatStoreNV(acc[i][j], sStage, stage, 16u, false);
      subgroupBarrier();
      uint row = row0 + wr + 16u * i + r0, col = col0 + wc + 16u * j + c;
      if (col < N) {
        [[unroll]] for (uint q = 0u; q < 16u; q += 2u) {
          if (row + q < M) store(row + q, col, sStage[stage + 16u * (r0 + q) + c]);
        }
      }
      subgroupBarrier();  // the stage is rewritten by the next accumulator
    }
  }
}
