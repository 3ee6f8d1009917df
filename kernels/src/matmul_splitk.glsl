// matmul_splitk.comp's body (see there), shared with the portable build
// of matmul_f16_splitk.comp, which defines ROUND_SCALAR.
layout(local_size_x = 16, local_size_y = 16) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 2) readonly buffer B { float b[]; };
layout(std430, set = 0, binding = 3) buffer Out { uint outBits[]; };
#include "matmul_tile.glsl"
#include "atomic_add.glsl"

void main() {
  uint M = p[0], N = p[1], K = p[2], batches = p[3];
  uint slices = p[37], kLen = p[38];
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint tilesN = (N + 63) / 64, tilesM = (M + 63) / 64;
  for (uint gz = gl_WorkGroupID.z; gz < batches * slices; gz += gl_NumWorkGroups.z) {
    uint bz = gz / slices, kBegin = (gz % slices) * kLen, kEnd = min(K, kBegin + kLen);
    uint offA, offB;
    batchOffsets(bz, offA, offB);
    for (uint tm = gl_WorkGroupID.y; tm < tilesM; tm += gl_NumWorkGroups.y) {
      for (uint tn = gl_WorkGroupID.x; tn < tilesN; tn += gl_NumWorkGroups.x) {
        uint row0 = tm * 64, col0 = tn * 64;
        vec4 acc[4];
        tileProduct(row0, col0, kBegin, kEnd, offA, offB, acc);
        uint offC = bz * M * N;
        for (uint i = 0; i < 4; ++i) {
          uint row = row0 + 4 * ty + i;
          for (uint j = 0; j < 4; ++j) {
            uint col = col0 + 4 * tx + j;
            if (row < M && col < N) atomicAddFloat(offC + row * N + col, acc[i][j]);
          }
        }
      }
    }
  }
}
