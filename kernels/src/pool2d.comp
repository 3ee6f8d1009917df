// pool2d: max / average pooling over [N*C, H, W] planes, one invocation
// per output element. Windows follow ir/shape.cpp (ceil_mode may
// add a window that overhangs the padding); padding never wins a max.
// Average divisor: taps inside the input, or with count_include_pad taps
// inside input + padding (taps beyond the padding count for neither).
//
// Bindings: 1 = x (f32), 2 = out (f32).
// Params:
//   p[0] planes (N*C)  p[1] H  p[2] W  p[3] OH  p[4] OW
//   p[5] KH  p[6] KW  p[7] strideH  p[8] strideW
//   p[9] padTop  p[10] padLeft  p[11] padBottom  p[12] padRight
//   p[13] dilationH  p[14] dilationW
//   p[15] mode (0 = max, 1 = average)  p[16] countIncludePad
#version 450
layout(local_size_x = 256) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { float outv[]; };

void main() {
  uint i = linearInvocation();
  int H = pint(1), W = pint(2);
  uint OH = p[3], OW = p[4];
  if (i >= p[0] * OH * OW) return;
  uint ow = i % OW, oh = (i / OW) % OH, plane = i / (OW * OH);
  int padTop = pint(9), padLeft = pint(10), padBottom = pint(11), padRight = pint(12);
  bool isMax = p[15] == 0;
  float best = uintBitsToFloat(0xff800000u);  // -inf
  float sum = 0.0;
  uint real = 0, padded = 0;
  for (uint kh = 0; kh < p[5]; ++kh) {
    int ih = int(oh * p[7] + kh * p[13]) - padTop;
    bool rowReal = ih >= 0 && ih < H, rowPadded = ih >= -padTop && ih < H + padBottom;
    for (uint kw = 0; kw < p[6]; ++kw) {
      int iw = int(ow * p[8] + kw * p[14]) - padLeft;
      if (rowPadded && iw >= -padLeft && iw < W + padRight) ++padded;
      if (!rowReal || iw < 0 || iw >= W) continue;
      float v = x[(plane * uint(H) + uint(ih)) * uint(W) + uint(iw)];
      ++real;
      sum += v;
      best = isnan(v) || isnan(best) ? v + best : max(best, v);
    }
  }
  uint count = p[16] != 0 ? padded : real;
  outv[i] = isMax ? best : (count != 0 ? sum / float(count) : 0.0);
}
