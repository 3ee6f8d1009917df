// conv2d_grad: the two transposes of Conv (ir/eval_grad.cpp is
// the reference), one invocation per element of the gradient it writes, so
// no two invocations ever write the same word (no atomics, deterministic).
//   mode 0 ConvGradInput:  a = dy [N,M,OH,OW], b = w [M,C/groups,KH,KW],
//          out = dx [N,C,H,W]; loops over the group's output channels and
//          the kernel taps whose window covers the element.
//   mode 1 ConvGradWeight: a = x [N,C,H,W], b = dy [N,M,OH,OW],
//          out = dw [M,C/groups,KH,KW]; loops over images and output pixels.
//
// Bindings: 1 = a (f32), 2 = b (f32), 3 = out (f32).
// Params: conv_params.glsl's p[0..15] (N C H W M OH OW KH KW strides pads
// dilations groups), then p[16] mode.
#version 450
layout(local_size_x = 256) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 2) readonly buffer B { float b[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Out { float outv[]; };

void main() {
  uint i = linearInvocation();
  uint N = p[0], C = p[1], H = p[2], W = p[3], M = p[4], OH = p[5], OW = p[6], KH = p[7], KW = p[8];
  int sH = pint(9), sW = pint(10), padT = pint(11), padL = pint(12), dH = pint(13), dW = pint(14);
  uint groups = p[15], Cg = C / groups, Mg = M / groups;
  float acc = 0.0;
  if (p[16] == 0) {
    if (i >= N * C * H * W) return;
    uint iw = i % W, ih = (i / W) % H, c = (i / (W * H)) % C, n = i / (W * H * C);
    uint g = c / Cg, cc = c % Cg;
    for (uint kh = 0; kh < KH; ++kh) {
      int th = int(ih) + padT - int(kh) * dH;  // = oh * sH
      if (th < 0 || th % sH != 0 || th / sH >= int(OH)) continue;
      uint oh = uint(th / sH);
      for (uint kw = 0; kw < KW; ++kw) {
        int tw = int(iw) + padL - int(kw) * dW;
        if (tw < 0 || tw % sW != 0 || tw / sW >= int(OW)) continue;
        uint ow = uint(tw / sW);
        for (uint m = g * Mg; m < (g + 1) * Mg; ++m)
          acc += a[((n * M + m) * OH + oh) * OW + ow] * b[((m * Cg + cc) * KH + kh) * KW + kw];
      }
    }
  } else {
    if (i >= M * Cg * KH * KW) return;
    uint kw = i % KW, kh = (i / KW) % KH, cc = (i / (KW * KH)) % Cg, m = i / (KW * KH * Cg);
    uint c = (m / Mg) * Cg + cc;
    for (uint n = 0; n < N; ++n)
      for (uint oh = 0; oh < OH; ++oh) {
        int ih = int(oh) * sH - padT + int(kh) * dH;
        if (ih < 0 || ih >= int(H)) continue;
        for (uint ow = 0; ow < OW; ++ow) {
          int iw = int(ow) * sW - padL + int(kw) * dW;
          if (iw < 0 || iw >= int(W)) continue;
          acc += a[((n * C + c) * H + uint(ih)) * W + uint(iw)] * b[((n * M + m) * OH + oh) * OW + ow];
        }
      }
  }
  outv[i] = acc;
}
