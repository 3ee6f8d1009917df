// pool2d_grad: MaxPoolGrad / AvgPoolGrad (ir/eval_grad.cpp is the
// reference), one invocation per input element: it visits every window
// that covers it and adds that window's share of dy, so no two invocations
// write the same word. Windows follow pool2d.comp exactly.
//   max: the window's dy goes to its first maximum (strict >, a NaN takes
//        over: PyTorch's rule); the window's argmax is recomputed here.
//   avg: dy / divisor, the divisor counted as pool2d.comp counts it.
//
// Bindings: 1 = x (f32; max mode; avg mode binds dy again), 2 = dy (f32),
//           3 = dx (f32).
// Params: pool2d.comp's p[0..16] (planes H W OH OW KH KW strides pads[4]
// dilations mode countIncludePad).
#version 450
layout(local_size_x = 256) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 2) readonly buffer DY { float dy[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Out { float outv[]; };

// Flat index (within the plane) of the first maximum of window (oh, ow).
int argmaxOf(uint planeBase, uint oh, uint ow) {
  int H = pint(1), W = pint(2);
  int best = -1;
  float bestV = 0.0;
  for (uint kh = 0; kh < p[5]; ++kh) {
    int ih = int(oh * p[7] + kh * p[13]) - pint(9);
    if (ih < 0 || ih >= H) continue;
    for (uint kw = 0; kw < p[6]; ++kw) {
      int iw = int(ow * p[8] + kw * p[14]) - pint(10);
      if (iw < 0 || iw >= W) continue;
      float v = x[planeBase + uint(ih * W + iw)];
      if (best < 0 || v > bestV || isnan(v)) {
        best = ih * W + iw;
        bestV = v;
      }
    }
  }
  return best;
}

// Taps of one axis inside [lo, hi) for the window starting at `start`.
uint tapsInside(int start, uint k, uint dilation, int lo, int hi) {
  uint c = 0;
  for (uint t = 0; t < k; ++t) {
    int at = start + int(t * dilation);
    if (at >= lo && at < hi) ++c;
  }
  return c;
}

void main() {
  uint i = linearInvocation();
  int H = pint(1), W = pint(2);
  uint OH = p[3], OW = p[4];
  if (i >= p[0] * uint(H * W)) return;
  int iw = int(i % uint(W)), ih = int((i / uint(W)) % uint(H));
  uint plane = i / uint(H * W), planeBase = plane * uint(H * W);
  int sH = pint(7), sW = pint(8), padT = pint(9), padL = pint(10), padB = pint(11), padR = pint(12);
  int dH = pint(13), dW = pint(14);
  bool isMax = p[15] == 0;
  float acc = 0.0;
  for (uint kh = 0; kh < p[5]; ++kh) {
    int th = ih + padT - int(kh) * dH;  // = oh * sH
    if (th < 0 || th % sH != 0 || th / sH >= int(OH)) continue;
    uint oh = uint(th / sH);
    for (uint kw = 0; kw < p[6]; ++kw) {
      int tw = iw + padL - int(kw) * dW;
      if (tw < 0 || tw % sW != 0 || tw / sW >= int(OW)) continue;
      uint ow = uint(tw / sW);
      float g = dy[(plane * OH + oh) * OW + ow];
      if (isMax) {
        if (argmaxOf(planeBase, oh, ow) == ih * W + iw) acc += g;
      } else {
        int h0 = int(oh) * sH - padT, w0 = int(ow) * sW - padL;
        uint count = p[16] != 0
            ? tapsInside(h0, p[5], p[13], -padT, H + padB) * tapsInside(w0, p[6], p[14], -padL, W + padR)
            : tapsInside(h0, p[5], p[13], 0, H) * tapsInside(w0, p[6], p[14], 0, W);
        if (count != 0) acc += g / float(count);
      }
    }
  }
  outv[i] = acc;
}
