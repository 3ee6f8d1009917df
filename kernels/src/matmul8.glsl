// matmul_large.comp / matmul_medium.comp: matmul.comp's product on TM x TN
// tiles of matmul_tile8.glsl's 8x8-per-thread core (the includer defines
// TM, TN and local_size = (TN / 8, TM / 8)). Operands are read as vec4s:
// op(A)'s and op(B)'s stored rows must be whole vec4s, which also keeps
// batch strides and tensor starts vec4-aligned (lower_matmul.cpp checks).
// f32 accumulation; fused epilogue (epilogue.glsl) before the store.
//
// Grid: (tilesN, tilesM, batch) of TM x TN tiles, each clamped to 65535;
// workgroups loop over the remaining tiles / batches.
// Bindings and params: matmul.comp's. With SPLIT_K
// (matmul_medium_splitk): matmul_splitk.comp's grid, bindings and params —
// K in slices of p[38] k values (a multiple of 8), each tile's slice added
// into out (binding 3) with float atomics, no epilogue.
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer A { vec4 a4[]; };
layout(std430, set = 0, binding = 2) readonly buffer B { vec4 b4[]; };
#ifdef SPLIT_K
#include "atomic_add.glsl"  // binding 3: out
#include "math.glsl"
void emit(uint o, uint col, float v) { atomicAddFloat(o, v); }
#else
layout(std430, set = 0, binding = 5) writeonly buffer C { float c[]; };
#define EPI_BASE 16
#define EPI_BINDING0 3
#define EPI_BINDING1 4
#include "math.glsl"
#include "epilogue.glsl"
void emit(uint o, uint col, float v) { c[o] = epilogue(v, o, col); }
#endif
#include "matmul_batch.glsl"

// The includer may round each operand as it is read (matmul_f16.comp).
#ifndef ROUND_OPERAND
#define ROUND_OPERAND(v) (v)
#endif

#define A_KMAJOR transA()
#define B_KMAJOR (!transB())
#include "matmul_tile8.glsl"

uint offA, offB, offC;  // this batch's operand and output offsets (floats)

// Vec4 e of one K step (k0..k0+7) of each tile, zero outside (and from
// kEnd on). A stored [M, K]: row e / 2, k 4 (e % 2)..+3; stored [K, M]:
// k e / (TM / 4), rows 4 (e % (TM / 4))..+3. B stored [K, N]: k e / (TN /
// 4), columns 4 (e % (TN / 4))..+3; stored [N, K]: column e / 2, k 4 (e %
// 2)..+3. Offsets in floats.
vec4 tileA(uint e, uint row0, uint k0, uint kEnd) {
  uint M = p[0], K = p[2];
  if (!transA()) {
    uint row = row0 + e / 2u, k = k0 + 4u * (e % 2u);
    return row < M && k < kEnd ? ROUND_OPERAND(a4[(offA + row * K + k) / 4u]) : vec4(0.0);
  }
  uint k = k0 + e / (TM / 4u), row = row0 + 4u * (e % (TM / 4u));
  return k < kEnd && row < M ? ROUND_OPERAND(a4[(offA + k * M + row) / 4u]) : vec4(0.0);
}

vec4 tileB(uint e, uint col0, uint k0, uint kEnd) {
  uint N = p[1], K = p[2];
  if (transB()) {
    uint col = col0 + e / 2u, k = k0 + 4u * (e % 2u);
    return col < N && k < kEnd ? ROUND_OPERAND(b4[(offB + col * K + k) / 4u]) : vec4(0.0);
  }
  uint k = k0 + e / (TN / 4u), col = col0 + 4u * (e % (TN / 4u));
  return k < kEnd && col < N ? ROUND_OPERAND(b4[(offB + k * N + col) / 4u]) : vec4(0.0);
}

// Four outputs of a row from column `col` on, each emitted.
void tileOut(uint row, uint col, vec4 v) {
  uint M = p[0], N = p[1], o = offC + row * N + col;
  if (row >= M) return;
  if (col < N) emit(o, col, v.x);
  if (col + 1u < N) emit(o + 1u, col + 1u, v.y);
  if (col + 2u < N) emit(o + 2u, col + 2u, v.z);
  if (col + 3u < N) emit(o + 3u, col + 3u, v.w);
}

void tileRange(uint row0, uint col0, uint kBegin, uint kEnd) { tile8(row0, col0, kBegin, kEnd); }
#ifndef SPLIT_K
void tile(uint row0, uint col0, uint K) { tileRange(row0, col0, 0u, K); }
#endif
#include "matmul_tiles.glsl"
