// scatter_elements: out = data with updates written (or added / multiplied)
// at indices along the axis. One invocation per output element loops over
// the indices of its (outer, inner) column in order: race-free, and
// duplicate indices apply in index order like the CPU reference. data and
// output are [outer, axisDim, inner]; indices and updates [outer, numIdx,
// inner]. Negative indices wrap once; others out of range match nothing.
//
// Bindings: 1 = data (raw words), 2 = indices (i32), 3 = updates (raw
// words), 4 = output.
// Params:
//   p[0] count      output elements (outer * axisDim * inner)
//   p[1] axisDim
//   p[2] inner
//   p[3] numIdx     indices along the axis
//   p[4] reduction  0 none, 1 add, 2 mul
//   p[5] isInt      1: words are i32, 0: f32
#version 450
layout(local_size_x = 256) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer Data { uint data[]; };
layout(std430, set = 0, binding = 2) readonly buffer Idx { int idx[]; };
layout(std430, set = 0, binding = 3) readonly buffer Upd { uint upd[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Out { uint outv[]; };

void main() {
  uint i = linearInvocation();
  if (i >= p[0]) return;
  uint axisDim = p[1], inner = p[2], numIdx = p[3], reduction = p[4];
  bool isInt = p[5] != 0u;
  uint r = i % inner;
  uint t = i / inner;
  int k = int(t % axisDim);
  uint o = t / axisDim;
  uint v = data[i];
  for (uint j = 0u; j < numIdx; ++j) {
    uint at = (o * numIdx + j) * inner + r;
    int target = idx[at];
    if (target < 0) target += int(axisDim);
    if (target != k) continue;
    uint u = upd[at];
    if (reduction == 0u) {
      v = u;
    } else if (isInt) {
      v = uint(reduction == 1u ? int(v) + int(u) : int(v) * int(u));
    } else {
      float a = uintBitsToFloat(v), b = uintBitsToFloat(u);
      v = floatBitsToUint(reduction == 1u ? a + b : a * b);
    }
  }
  outv[i] = v;
}
