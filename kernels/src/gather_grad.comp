// gather_grad: GatherGrad, the transpose of gather.comp:
// out[o, a, r] = sum over j with idx[j] == a of dy[o, j, r], out viewed as
// [outer, axisDim, inner], indices flattened to [numIdx]. One invocation per
// output element loops over all indices: race-free and deterministic
// (duplicates add in index order), at the cost of numIdx reads each.
// Negative indices wrap once; indices still out of range add nothing.
//
// Bindings: 1 = dy (f32), 2 = indices (i32), 3 = out (f32).
// Params:
//   p[0] count     output elements (outer * axisDim * inner)
//   p[1] axisDim
//   p[2] inner
//   p[3] numIdx
#version 450
layout(local_size_x = 256) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer DY { float dy[]; };
layout(std430, set = 0, binding = 2) readonly buffer Idx { int idx[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Out { float outv[]; };

void main() {
  uint i = linearInvocation();
  if (i >= p[0]) return;
  uint axisDim = p[1], inner = p[2], numIdx = p[3];
  uint r = i % inner;
  uint a = (i / inner) % axisDim;
  uint o = i / (inner * axisDim);
  float acc = 0.0;
  for (uint j = 0; j < numIdx; ++j) {
    int k = idx[j];
    if (k < 0) k += int(axisDim);
    if (k == int(a)) acc += dy[(o * numIdx + j) * inner + r];
  }
  outv[i] = acc;
}
