// gather_elements: out[o, j, r] = data[o, idx[o, j, r], r], data viewed as
// [outer, axisDim, inner] and indices / output as [outer, numIdx, inner].
// Negative indices wrap once; indices still out of range are clamped so a
// bad index never reads outside the tensor (the CPU reference rejects them).
//
// Bindings: 1 = data (raw words), 2 = indices (i32), 3 = output.
// Params:
//   p[0] count     output elements (outer * numIdx * inner)
//   p[1] axisDim
//   p[2] inner
//   p[3] numIdx    indices along the axis
#version 450
layout(local_size_x = 256) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer Data { uint data[]; };
layout(std430, set = 0, binding = 2) readonly buffer Idx { int idx[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Out { uint outv[]; };

void main() {
  uint i = linearInvocation();
  if (i >= p[0]) return;
  uint axisDim = p[1], inner = p[2], numIdx = p[3];
  uint r = i % inner;
  uint o = i / inner / numIdx;
  int k = idx[i];
  if (k < 0) k += int(axisDim);
  k = clamp(k, 0, int(axisDim) - 1);
  outv[i] = data[(o * axisDim + uint(k)) * inner + r];
}
