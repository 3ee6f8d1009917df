// matmul: C[b] = op(A[b]) @ op(B[b]), op(A[b]) is [M, K], op(B[b]) is [K, N], f32,
// row-major; batch dims broadcast through per-operand batch strides.
// 64x64 output tile per workgroup, 16x16 threads, 4x4 outputs per thread,
// K in steps of 16 through shared memory (gemm_tile.glsl: vec4 shared
// reads, next step fetched while the current one multiplies); f32
// accumulation; fused epilogue (epilogue.glsl) before the store.
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
layout(local_size_x = 16, local_size_y = 16) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 2) readonly buffer B { float b[]; };
layout(std430, set = 0, binding = 5) writeonly buffer C { float c[]; };
#define EPI_BASE 16
#define EPI_BINDING0 3
#define EPI_BINDING1 4
#include "math.glsl"
#include "epilogue.glsl"
#include "matmul_tile.glsl"

void main() {
  uint M = p[0], N = p[1], K = p[2], batches = p[3];
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint tilesN = (N + 63) / 64, tilesM = (M + 63) / 64;
  for (uint bz = gl_WorkGroupID.z; bz < batches; bz += gl_NumWorkGroups.z) {
    uint offA, offB;
    batchOffsets(bz, offA, offB);
    for (uint tm = gl_WorkGroupID.y; tm < tilesM; tm += gl_NumWorkGroups.y) {
      for (uint tn = gl_WorkGroupID.x; tn < tilesN; tn += gl_NumWorkGroups.x) {
        uint row0 = tm * 64, col0 = tn * 64;
        vec4 acc[4];
        tileProduct(row0, col0, 0, K, offA, offB, acc);
        uint offC = bz * M * N;
        for (uint i = 0; i < 4; ++i) {
          uint row = row0 + 4 * ty + i;
          for (uint j = 0; j < 4; ++j) {
            uint col = col0 + 4 * tx + j;
            if (row < M && col < N) {
              uint o = offC + row * N + col;
              c[o] = epilogue(acc[i][j], o, col);
            }
          }
        }
      }
    }
  }
}
