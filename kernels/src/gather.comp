// gather: out[o, j, r] = data[o, idx[j], r], data viewed as
// [outer, axisDim, inner], indices flattened to [numIdx]. Negative indices
// wrap once; indices still out of range are clamped so a bad index never
// reads outside the tensor (the CPU reference rejects them).
//
// In-stream waits (stream_sync.glsl): a decode step's embedding row and
// RoPE tables, gathered in its first level, need no barrier before the
// products that read them.
//
// Bindings: 1 = data (raw words), 2 = indices (i32), 3 = output.
// Params:
//   p[0] count     output elements (outer * numIdx * inner)
//   p[1] axisDim
//   p[2] inner
//   p[3] numIdx
#version 450
layout(local_size_x = 256) in;
#include "common.glsl"
#include "stream_sync.glsl"

layout(std430, set = 0, binding = 1) coherent readonly buffer Data { uint data[]; };
layout(std430, set = 0, binding = 2) coherent readonly buffer Idx { int idx[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Out { uint outv[]; };

void main() {
  streamWait();
  uint i = linearInvocation();
  if (i < p[0]) {
    uint axisDim = p[1], inner = p[2], numIdx = p[3];
    uint r = i % inner;
    uint t = i / inner;
    uint j = t % numIdx;
    uint o = t / numIdx;
    int k = idx[j];
    if (k < 0) k += int(axisDim);
    k = clamp(k, 0, int(axisDim) - 1);
    outv[i] = data[(o * axisDim + uint(k)) * inner + r];
  }
  streamSignal();
}
