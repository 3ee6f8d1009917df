// conv2d_direct: one invocation per output element, looping over its
// group's Cg input channels and the kernel window. For depthwise and
// other thin groups (Mg < 16), where conv2d.comp's 64-channel tiles would
// sit mostly idle. Params and bindings: conv_params.glsl.
#version 450
layout(local_size_x = 256) in;
#include "common.glsl"
#include "conv_params.glsl"

void main() {
  uint i = linearInvocation();
  uint OH = convParam(5), OW = convParam(6), M = convParam(4);
  if (i >= convParam(0) * M * OH * OW) return;
  uint ow = i % OW, oh = (i / OW) % OH, ch = (i / (OW * OH)) % M, n = i / (OW * OH * M);
  uint groups = convParam(15), Cg = convParam(1) / groups, Mg = M / groups, g = ch / Mg;
  uint KH = convParam(7), KW = convParam(8);
  float acc = convHasBias() ? bias[ch] : 0.0;
  for (uint c = 0; c < Cg; ++c)
    for (uint kh = 0; kh < KH; ++kh)
      for (uint kw = 0; kw < KW; ++kw)
        acc += w[((ch * Cg + c) * KH + kh) * KW + kw] * inputTap(n, g * Cg + c, oh, ow, kh, kw);
  outv[i] = epilogue(acc, i, 0u);
}
