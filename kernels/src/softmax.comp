// softmax / log_softmax along one axis; x viewed as [outer, D, inner], a
// row is the D elements sharing (outer, inner). Shifted by the row max so
// exp never overflows; rows.glsl describes the two modes.
//
// Bindings: 1 = x (f32), 2 = out (f32).
// Params:
//   p[0] rows (outer * inner)  p[1] D  p[2] inner  p[3] log (0/1)  p[4] mode
#version 450
layout(local_size_x = 128) in;
#include "common.glsl"
#include "rows.glsl"

layout(std430, set = 0, binding = 1) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { float outv[]; };

void main() {
  uint row, first, step;
  if (!rowSetup(p[0], row, first, step)) return;
  uint D = p[1], inner = p[2];
  uint base = (row / inner) * D * inner + row % inner;
  float mx = uintBitsToFloat(0xff800000u);
  for (uint d = first; d < D; d += step) mx = maxNan(mx, x[base + d * inner]);
  if (p[4] != 0) mx = workgroupMax(mx);
  float sum = 0.0;
  for (uint d = first; d < D; d += step) sum += exp(x[base + d * inner] - mx);
  if (p[4] != 0) sum = workgroupSum(sum);
  float logSum = log(sum), inv = 1.0 / sum;
  for (uint d = first; d < D; d += step) {
    float v = x[base + d * inner] - mx;
    outv[base + d * inner] = p[3] != 0 ? v - logSum : exp(v) * inv;
  }
}
