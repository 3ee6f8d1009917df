// copy: strided data movement, rank <= 6. Serves Transpose, Slice (any
// step sign), Expand, Concat (one dispatch per input, writing at an offset
// into the shared output) and Pad (constant value).
//
// For each element of the iteration space (dims outDim[6]) with coordinate
// c[d]: source coordinate s[d] = start[d] + c[d] * step[d]; if any s[d] lies
// outside [0, inDim[d]) the element is `padValue`, otherwise
// in[inBase + sum s[d] * inStride[d]]. It is written to out[outBase + sum c[d] * outStride[d]].
//
// Bindings: 1 = input, 2 = output (raw 32-bit words; any dtype).
// Params:
//   p[0] count      elements of the iteration space
//   p[1] outBase    element offset into the output
//   p[2] padValue   raw bits
//   p[3] inBase     element offset into the input (size-1 dims folded in)
//   p[4 + 6d ..]    dim d (6 dims, leading dims have outDim 1):
//                   outDim, outStride, start (i32), step (i32), inDim, inStride
#version 450
layout(local_size_x = 256) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer In { uint inv[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { uint outv[]; };

void main() {
  uint i = linearInvocation();
  if (i >= p[0]) return;
  uint rem = i, dst = p[1], src = p[3];
  bool inside = true;
  for (int d = 5; d >= 0; --d) {
    uint base = 4 + 6 * d;
    uint c = rem % p[base];
    rem /= p[base];
    dst += c * p[base + 1];
    int s = pint(base + 2) + int(c) * pint(base + 3);
    inside = inside && s >= 0 && s < pint(base + 4);
    src += uint(s) * p[base + 5];
  }
  uint v = p[2];
  if (inside) v = inv[src];
  outv[dst] = v;
}
