// qmatmul: C = x @ Wᵀ for packed low-bit weights W [N, K] (QMatMul,
// ir/qweights.h; qweights.glsl decodes), x f32 [M, K] with M > 4 (a
// prefill chunk): matmul.comp's 64x64 tiles, the weight tile decoded as
// it is staged, so no dequantized copy of W ever exists. M <= 4 runs
// qmatvec.comp instead.
// Bindings: 1 = x, 2 = words, 3 = scales (words again for f16), 4, 5 =
// epilogue operands, 6 = C.
// Params: matmul.comp's (p[0] M, p[1] N, p[2] K, p[3] batch = 1, p[4..15]
// batch dims / strides, p[16..35] epilogue, p[36] = 2: B stored [N, K]),
// then p[37] format, p[38] group (p[39], p[40]: qmatvec's).
#version 450
layout(local_size_x = 16, local_size_y = 16) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 2) readonly buffer Words { uint words[]; };
layout(std430, set = 0, binding = 3) readonly buffer Scales { float scales[]; };
layout(std430, set = 0, binding = 6) writeonly buffer C { float c[]; };
#define EPI_BASE 16
#define EPI_BINDING0 4
#define EPI_BINDING1 5
#include "math.glsl"
#include "epilogue.glsl"
#include "qweights.glsl"

// W[n, k], decoded (the tiled kernel's operand fetch).
float qWeight(uint n, uint k) {
  uint K = p[2], format = p[37], bits = qBits(format), per = 32u / bits;
  uint word = words[n * (K / per) + k / per], e = k % per;
  if (format == QF16) return unpackHalf2x16(word)[e];
  return qField(word, e, bits) * scales[n * (K / p[38]) + k / p[38]];
}

#define B_ELEMENT(n, k) qWeight(n, k)
#include "matmul_tile.glsl"

void main() {
  uint M = p[0], N = p[1], K = p[2];
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint tilesN = (N + 63) / 64, tilesM = (M + 63) / 64;
  for (uint tm = gl_WorkGroupID.y; tm < tilesM; tm += gl_NumWorkGroups.y) {
    for (uint tn = gl_WorkGroupID.x; tn < tilesN; tn += gl_NumWorkGroups.x) {
      uint row0 = tm * 64, col0 = tn * 64;
      vec4 acc[4];
      tileProduct(row0, col0, 0, K, 0, 0, acc);
      for (uint i = 0; i < 4; ++i) {
        uint row = row0 + 4 * ty + i;
        for (uint j = 0; j < 4; ++j) {
          uint col = col0 + 4 * tx + j;
          if (row < M && col < N) {
            uint o = row * N + col;
            c[o] = epilogue(acc[i][j], o, col);
          }
        }
      }
    }
  }
}
