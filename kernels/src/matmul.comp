// matmul: C[b] = op(A[b]) @ op(B[b]), op(A[b]) is [M, K], op(B[b]) is [K, N], f32,
// row-major; batch dims broadcast through per-operand batch strides.
// 64x64 output tile per workgroup, 16x16 threads, 4x4 outputs per thread,
// K in steps of 16 through shared memory (gemm_tile.glsl: vec4 shared
// reads, next step fetched while the current one multiplies); f32
// accumulation; fused epilogue (epilogue.glsl) before the store.
//
// matmul_sliced.comp is this kernel with two K slices per workgroup
// (gemm_tile.glsl's GEMM_SLICES; 512 threads).
//
// Grid: (tilesN, tilesM, batch), each clamped to 65535; workgroups loop
// over the remaining tiles / batches.
// Bindings: 1 = A, 2 = B, 3, 4 = epilogue operands (A again when absent),
// 5 = C.
// Params:
//   p[0] M, p[1] N, p[2] K, p[3] batch (output batch count)
//   p[4..7]   output batch dims (4 entries, leading 1s)
//   p[8..11]  A batch strides (elements, 0 = broadcast)
//   p[12..15] B batch strides
//   p[16..35] fused epilogue (epilogue.glsl; row vectors indexed by column)
//   p[36]     layout: bit 0 A stored [K, M] (trans_a), bit 1 B stored [N, K]
//             (trans_b); batch strides as for the untransposed operands
#version 450
#include "matmul.glsl"
