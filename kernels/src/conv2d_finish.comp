// conv2d_finish: the passes around conv2d_splitk.comp over the conv output
// [N, M, OH*OW] (and around matmul_splitk.comp, as [rows, N, 1]: p[1] = N,
// p[2] = 1, no bias). Mode 0 zeroes it (the slices add into it); mode 1
// adds the bias and applies the fused epilogue in place, once the sum is
// whole. Row-vector epilogue operands (matmul's) are indexed by the
// channel, (o / p[2]) % p[1]: the column for a matmul.
// One invocation per element (common.glsl grid).
// Bindings: 1 = bias (the weight again when absent), 2, 3 = epilogue
// operands (x again when absent), 4 = out.
// Params: p[0] count, p[1] M, p[2] OH*OW, p[3] hasBias, p[4] mode,
// p[5..24] fused epilogue (epilogue.glsl).
#version 450
layout(local_size_x = 256) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = 4) buffer Out { float outv[]; };
#define EPI_BASE 5
#define EPI_BINDING0 2
#define EPI_BINDING1 3
#include "math.glsl"
#include "epilogue.glsl"

void main() {
  uint o = linearInvocation();
  if (o >= p[0]) return;
  if (p[4] == 0u) {
    outv[o] = 0.0;
    return;
  }
  float v = outv[o];
  uint channel = (o / p[2]) % p[1];
  if (p[3] != 0u) v += bias[channel];
  outv[o] = epilogue(v, o, channel);
}
