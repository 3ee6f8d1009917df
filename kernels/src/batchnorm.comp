// batchnorm (inference): out = (x - mean[c]) * scale[c] / sqrt(var[c] + eps)
// + bias[c], x viewed as [N, C, inner]; one invocation per element.
//
// Bindings: 1 = x, 2 = scale, 3 = bias, 4 = mean, 5 = var, 6 = out; all f32.
// Params:
//   p[0] count  p[1] C  p[2] inner  p[3] epsilon (f32 bits)
#version 450
layout(local_size_x = 256) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Scale { float scale[]; };
layout(std430, set = 0, binding = 3) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = 4) readonly buffer Mean { float mean[]; };
layout(std430, set = 0, binding = 5) readonly buffer Var { float var_[]; };
layout(std430, set = 0, binding = 6) writeonly buffer Out { float outv[]; };

void main() {
  uint i = linearInvocation();
  if (i >= p[0]) return;
  uint c = (i / p[2]) % p[1];
  float mul = scale[c] / sqrt(var_[c] + pfloat(3));
  outv[i] = (x[i] - mean[c]) * mul + bias[c];
}
