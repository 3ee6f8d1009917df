// The `coopnv` variants of matmul_f16.comp / matmul_f16_large.comp /
// matmul_f16_splitk.comp: coop_gemm.glsl's core on MatMul's operands
// (matmul_batch.glsl's layout and batches, matmul_tiles.glsl's grid), the
// fused epilogue (epilogue.glsl) applied to each sum, or with SPLIT_K each
// slice's partial sums added atomically.
#include "coop_gemm.glsl"

layout(std430, set = 0, binding = 1) readonly buffer A { vec4 a4[]; };
layout(std430, set = 0, binding = 2) readonly buffer B { vec4 b4[]; };
#ifdef SPLIT_K
// matmul_f16_splitk.comp: each workgroup adds its slice's partial tile
// into `out` (matmul_splitk.comp's bindings; conv2d_finish zeroes it
// before and runs the epilogue after).
#include "atomic_add.glsl"  // binding 3: out
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

uint offA, offB, offC;  // this batch's operand and output offsets (floats)
uint gemmRows() { return p[0]; }
uint gemmCols() { return p[1]; }

vec4 loadA(uint e, uint row0, uint k0, uint kEnd) {
  uint M = p[0], K = p[2];
  if (!transA()) {
    uint row = row0 + e / KV, k = k0 + 4u * (e % KV);
    return row < M && k < kEnd ? a4[(offA + row * K + k) / 4u] : vec4(0.0);
  }
  uint k = k0 + e / (TM / 4u), row = row0 + 4u * (e % (TM / 4u));
  return k < kEnd && row < M ? a4[(offA + k * M + row) / 4u] : vec4(0.0);
}

vec4 loadB(uint e, uint col0, uint k0, uint kEnd) {
  uint N = p[1], K = p[2];
  if (transB()) {
    uint col = col0 + e / KV, k = k0 + 4u * (e % KV);
    return col < N && k < kEnd ? b4[(offB + col * K + k) / 4u] : vec4(0.0);
  }
  uint k = k0 + e / (TN / 4u), col = col0 + 4u * (e % (TN / 4u));
  return k < kEnd && col < N ? b4[(offB + k * N + col) / 4u] : vec4(0.0);
}

void store(uint row, uint col, float v) { emit(offC + row * p[1] + col, col, v); }

#ifndef SPLIT_K
void tile(uint row0, uint col0, uint K) { tileRange(row0, col0, 0u, K); }
#endif
#include "matmul_tiles.glsl"
