// conv2d_finish: the passes around conv2d_splitk.comp over the conv output
// [N, M, OH*OW] (and around matmul_splitk.comp, as [rows, N, 1]: p[1] = N,
// p[2] = 1, no bias). Mode 0 starts it at the bias (0 without one) plus
// the operands of the adds the fused epilogue starts with (all linear: the
// slices then add into it); mode 1 applies the rest of the epilogue in
// place, once the sum is whole (kernels/lower_common.h hasEpilogueTail: none
// left, no mode 1 pass). Row-vector epilogue operands (matmul's) are
// indexed by the channel, (o / p[2]) % p[1]: the column for a matmul.
// One invocation per element (common.glsl grid).
// Bindings: 1 = bias (the weight again when absent), 2, 3 = epilogue
// operands (x again when absent), 4 = out.
// Params: p[0] count, p[1] M, p[2] OH*OW, p[3] hasBias, p[4] mode,
// p[5..24] fused epilogue (epilogue.glsl).
#version 450
layout(local_size_x = 256) in;
#include "common.glsl"
#include "stream_sync.glsl"
#define STREAM_IN coherent

layout(std430, set = 0, binding = 1) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = 4) coherent buffer Out { float outv[]; };
#define EPI_BASE 5
#define EPI_BINDING0 2
#define EPI_BINDING1 3
#include "math.glsl"
#include "specialize.glsl"
// Specialized copies (kernels/specialize.h): every word, the epilogue's
// included, is a constant.
SPEC_PARAM(0) SPEC_PARAM(1) SPEC_PARAM(2) SPEC_PARAM(3) SPEC_PARAM(4) SPEC_PARAM(5) SPEC_PARAM(6) SPEC_PARAM(7) SPEC_PARAM(8) SPEC_PARAM(9) SPEC_PARAM(10) SPEC_PARAM(11) SPEC_PARAM(12)
SPEC_PARAM(13) SPEC_PARAM(14) SPEC_PARAM(15) SPEC_PARAM(16) SPEC_PARAM(17) SPEC_PARAM(18) SPEC_PARAM(19) SPEC_PARAM(20) SPEC_PARAM(21) SPEC_PARAM(22) SPEC_PARAM(23) SPEC_PARAM(24)
uint param(uint k) {
  if (kSpecialized) switch (k) {
      SPEC_CASE(0) SPEC_CASE(1) SPEC_CASE(2) SPEC_CASE(3) SPEC_CASE(4) SPEC_CASE(5) SPEC_CASE(6) SPEC_CASE(7) SPEC_CASE(8) SPEC_CASE(9) SPEC_CASE(10) SPEC_CASE(11) SPEC_CASE(12)
      SPEC_CASE(13) SPEC_CASE(14) SPEC_CASE(15) SPEC_CASE(16) SPEC_CASE(17) SPEC_CASE(18) SPEC_CASE(19) SPEC_CASE(20) SPEC_CASE(21) SPEC_CASE(22) SPEC_CASE(23) SPEC_CASE(24)
    }
  return p[k];
}
#define EPI_PARAM(k) param(k)
#include "epilogue.glsl"

void main() {
  streamWait();
  uint o = linearInvocation();
  if (o < param(0)) {
    uint channel = (o / param(2)) % param(1), head = epilogueAddHead();
    if (param(4) == 0u) outv[o] = epilogueRange(param(3) != 0u ? bias[channel] : 0.0, o, channel, 0u, head);
    else outv[o] = epilogueRange(outv[o], o, channel, head, 6u);
  }
  streamSignal();  // (stream_sync.glsl)
}
