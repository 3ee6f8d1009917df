// matmul.comp's body (see there), shared with matmul_sliced.comp.
#ifndef GEMM_SLICES
#define GEMM_SLICES 1
#endif
layout(local_size_x = 16, local_size_y = 16, local_size_z = GEMM_SLICES) in;
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
        if (gemmSlice() != 0u) continue;  // slice 0 holds the sums
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
