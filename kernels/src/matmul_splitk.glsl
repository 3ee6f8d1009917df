// matmul_splitk.comp's body (see there), shared with the portable build
// of matmul_f16_splitk.comp, which defines ROUND_SCALAR.
layout(local_size_x = 16, local_size_y = 16) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 2) readonly buffer B { float b[]; };
#include "atomic_add.glsl"  // binding 3: out
#include "matmul_tile.glsl"

uint offA, offB, offC;  // this batch's operand and output offsets (floats)

// This invocation's 4x4 block of the tile over k in [kBegin, kEnd), added
// into `out`.
void tileRange(uint row0, uint col0, uint kBegin, uint kEnd) {
  uint M = p[0], N = p[1], tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  vec4 acc[4];
  tileProduct(row0, col0, kBegin, kEnd, offA, offB, acc);
  for (uint i = 0; i < 4; ++i) {
    uint row = row0 + 4 * ty + i;
    for (uint j = 0; j < 4; ++j) {
      uint col = col0 + 4 * tx + j;
      if (row < M && col < N) atomicAddFloat(offC + row * N + col, acc[i][j]);
    }
  }
}

#define TM 64u
#define TN 64u
#define SPLIT_K
#include "matmul_tiles.glsl"
