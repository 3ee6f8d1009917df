// matmul: C[b] = A[b] @ B[b], A[b] is [M, K], B[b] is [K, N], all f32,
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
#include "gemm_tile.glsl"

void batchOffsets(uint batch, out uint offA, out uint offB) {
  offA = 0;
  offB = 0;
  uint rem = batch;
  for (int d = 3; d >= 0; --d) {
    uint coord = rem % p[4 + d];
    rem /= p[4 + d];
    offA += coord * p[8 + d];
    offB += coord * p[12 + d];
  }
}

void main() {
  uint M = p[0], N = p[1], K = p[2], batches = p[3];
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint t = gl_LocalInvocationIndex;
  uint tilesN = (N + 63) / 64, tilesM = (M + 63) / 64;
  for (uint bz = gl_WorkGroupID.z; bz < batches; bz += gl_NumWorkGroups.z) {
    uint offA, offB;
    batchOffsets(bz, offA, offB);
    for (uint tm = gl_WorkGroupID.y; tm < tilesM; tm += gl_NumWorkGroups.y) {
      for (uint tn = gl_WorkGroupID.x; tn < tilesN; tn += gl_NumWorkGroups.x) {
        uint row0 = tm * 64, col0 = tn * 64;
        float ra[4], rb[4];
        vec4 acc[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
        for (uint k0 = 0; k0 < K + 16; k0 += 16) {
          if (k0 > 0) {
            barrier();  // previous multiply done with the tiles
            stageTiles(t, ra, rb);
            barrier();
          }
          if (k0 < K) {  // fetch step k0 into registers while step k0-16 multiplies
            for (uint l = 0; l < 4; ++l) {
              uint e = t + 256 * l;
              uint row = row0 + e / 16, ka = k0 + e % 16;
              ra[l] = row < M && ka < K ? a[offA + row * K + ka] : 0.0;
              uint kb = k0 + e / 64, col = col0 + e % 64;
              rb[l] = col < N && kb < K ? b[offB + kb * N + col] : 0.0;
            }
          }
          if (k0 > 0) multiplyTiles(tx, ty, acc);
        }
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
