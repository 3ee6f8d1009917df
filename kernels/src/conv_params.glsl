// Params shared by conv2d.comp and conv2d_direct.comp (host side:
// kernels/lower_conv.cpp). x is [N, C, H, W], w is [M, C/groups, KH, KW],
// bias [M], out [N, M, OH, OW]; all f32.
//   p[0] N   p[1] C   p[2] H   p[3] W   p[4] M   p[5] OH  p[6] OW
//   p[7] KH  p[8] KW  p[9] strideH  p[10] strideW  p[11] padTop  p[12] padLeft
//   p[13] dilationH  p[14] dilationW  p[15] groups  p[16] bits: hasBias, relu_input (conv_spec.glsl)
//   p[17..36] fused epilogue (epilogue.glsl)
// Bindings: 1 = x, 2 = w, 3 = bias (the weight again when absent),
// 4, 5 = epilogue operands (x again when absent), 6 = out.
#include "conv_spec.glsl"
layout(std430, set = 0, binding = 1) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Wt { float w[]; };
layout(std430, set = 0, binding = 3) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = 6) writeonly buffer Out { float outv[]; };
#define EPI_BASE 17
#define EPI_BINDING0 4
#define EPI_BINDING1 5
#include "math.glsl"
// The epilogue's words too, when specialized (epilogue.glsl's EPI_PARAM).
SPEC_PARAM(17) SPEC_PARAM(18) SPEC_PARAM(19) SPEC_PARAM(20) SPEC_PARAM(21) SPEC_PARAM(22) SPEC_PARAM(23) SPEC_PARAM(24) SPEC_PARAM(25) SPEC_PARAM(26)
SPEC_PARAM(27) SPEC_PARAM(28) SPEC_PARAM(29) SPEC_PARAM(30) SPEC_PARAM(31) SPEC_PARAM(32) SPEC_PARAM(33) SPEC_PARAM(34) SPEC_PARAM(35) SPEC_PARAM(36)
uint epiParam(uint k) {
  if (kSpecialized) switch (k) {
      SPEC_CASE(17) SPEC_CASE(18) SPEC_CASE(19) SPEC_CASE(20) SPEC_CASE(21) SPEC_CASE(22) SPEC_CASE(23) SPEC_CASE(24) SPEC_CASE(25) SPEC_CASE(26)
      SPEC_CASE(27) SPEC_CASE(28) SPEC_CASE(29) SPEC_CASE(30) SPEC_CASE(31) SPEC_CASE(32) SPEC_CASE(33) SPEC_CASE(34) SPEC_CASE(35) SPEC_CASE(36)
    }
  return p[k];
}
#define EPI_PARAM(k) epiParam(k)
#include "epilogue.glsl"

// x value for output pixel (oh, ow), input channel ch of image n, kernel
// tap (kh, kw); 0 in the padding.
float inputTap(uint n, uint ch, uint oh, uint ow, uint kh, uint kw) {
  int ih = int(oh * convParam(9) + kh * convParam(13)) - int(convParam(11));
  int iw = int(ow * convParam(10) + kw * convParam(14)) - int(convParam(12));
  if (ih < 0 || iw < 0 || ih >= int(convParam(2)) || iw >= int(convParam(3))) return 0.0;
  return convInput(x[((n * convParam(1) + ch) * convParam(2) + uint(ih)) * convParam(3) + uint(iw)]);
}
