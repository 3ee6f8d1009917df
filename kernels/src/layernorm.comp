// layernorm: each row of D = prod(shape[axis:]) elements becomes
// (x - mean) / sqrt(var + eps) * scale + bias, biased variance, computed
// in two passes (mean, then squared deviations) for accuracy; or, for
// RMSNorm (p[5] != 0), x / r * scale with r = sqrt(mean(x²) + eps)
// (p[5] = 1) or sqrt(mean(x²)) + eps (p[5] = 2), one pass for the
// statistics. rows.glsl describes the two modes.
//
// Bindings: 1 = x, 2 = scale [D], 3 = bias [D] (the scale again when
// absent), 4 = out; all f32.
// Params:
//   p[0] rows  p[1] D  p[2] epsilon (f32 bits)  p[3] hasBias  p[4] mode
//   p[5] 0 = LayerNorm, 1 = RMSNorm, 2 = RMSNorm with epsilon outside the root
#version 450
layout(local_size_x = 128) in;
#include "common.glsl"
#include "rows.glsl"

layout(std430, set = 0, binding = 1) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Scale { float scale[]; };
layout(std430, set = 0, binding = 3) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Out { float outv[]; };

void main() {
  uint row, first, step;
  if (!rowSetup(p[0], row, first, step)) return;
  uint D = p[1], base = row * D;
  if (p[5] != 0) {
    float sq = 0.0;
    for (uint d = first; d < D; d += step) sq += x[base + d] * x[base + d];
    if (p[4] != 0) sq = workgroupSum(sq);
    float ms = sq / float(D);
    float inv = p[5] == 1 ? inversesqrt(ms + pfloat(2)) : 1.0 / (sqrt(ms) + pfloat(2));
    for (uint d = first; d < D; d += step) outv[base + d] = x[base + d] * inv * scale[d];
    return;
  }
  float sum = 0.0;
  for (uint d = first; d < D; d += step) sum += x[base + d];
  if (p[4] != 0) sum = workgroupSum(sum);
  float mean = sum / float(D);
  float sq = 0.0;
  for (uint d = first; d < D; d += step) {
    float c = x[base + d] - mean;
    sq += c * c;
  }
  if (p[4] != 0) sq = workgroupSum(sq);
  float inv = inversesqrt(sq / float(D) + pfloat(2));
  for (uint d = first; d < D; d += step)
    outv[base + d] = (x[base + d] - mean) * inv * scale[d] + (p[3] != 0 ? bias[d] : 0.0);
}
