// matmul: C[b] = A[b] @ B[b], A[b] is [M, K], B[b] is [K, N], all f32,
// row-major; batch dims broadcast through per-operand batch strides.
// 64x64 output tile per workgroup, 16x16 threads, 4x4 outputs per thread
// (rows ty + 16i, cols tx + 16j so that loads and stores stay coalesced),
// K in steps of 16 through shared memory; f32 accumulation.
//
// Grid: (tilesN, tilesM, batch), each clamped to 65535; workgroups loop
// over the remaining tiles / batches.
// Bindings: 1 = A, 2 = B, 3 = C.
// Params:
//   p[0] M, p[1] N, p[2] K, p[3] batch (output batch count)
//   p[4..7]   output batch dims (4 entries, leading 1s)
//   p[8..11]  A batch strides (elements, 0 = broadcast)
//   p[12..15] B batch strides
#version 450
layout(local_size_x = 16, local_size_y = 16) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 2) readonly buffer B { float b[]; };
layout(std430, set = 0, binding = 3) writeonly buffer C { float c[]; };

shared float tileA[16][64];
shared float tileB[16][64];

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
        float acc[4][4];
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j) acc[i][j] = 0.0;
        for (uint k0 = 0; k0 < K; k0 += 16) {
          for (uint l = 0; l < 4; ++l) {
            uint e = t + 256 * l;
            uint m = e / 16, ka = e % 16;
            uint row = row0 + m, kk = k0 + ka;
            tileA[ka][m] = row < M && kk < K ? a[offA + row * K + kk] : 0.0;
            uint kb = e / 64, n = e % 64;
            uint col = col0 + n;
            kk = k0 + kb;
            tileB[kb][n] = col < N && kk < K ? b[offB + kk * N + col] : 0.0;
          }
          barrier();
          for (uint kk = 0; kk < 16; ++kk) {
            float av[4], bv[4];
            for (int i = 0; i < 4; ++i) av[i] = tileA[kk][ty + 16 * i];
            for (int j = 0; j < 4; ++j) bv[j] = tileB[kk][tx + 16 * j];
            for (int i = 0; i < 4; ++i)
              for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
          }
          barrier();
        }
        uint offC = bz * M * N;
        for (int i = 0; i < 4; ++i) {
          uint row = row0 + ty + 16 * i;
          for (int j = 0; j < 4; ++j) {
            uint col = col0 + tx + 16 * j;
            if (row < M && col < N) c[offC + row * N + col] = acc[i][j];
          }
        }
      }
    }
  }
}
