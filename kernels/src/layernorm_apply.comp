// layernorm_apply: layernorm.comp's LayerNorm, (x - mean) / sqrt(var + eps)
// * scale + bias over rows of D values, with each row's mean and variance
// combined from the (mean, M2) of its P chunks of D / P values
// (moments.comp) instead of read off the row: the rows are few and long
// (GroupNorm as exported: 8 rows of 32,768 values), so the workgroups split
// the elements, not the rows. Chunks combine as Chan et al.'s pairwise
// update: mean = the chunks' mean of means, M2 = sum of M2 + (D / P) · sum
// of (chunk mean - mean)².
//
// Each 128-invocation workgroup owns p[5] consecutive elements (at most a
// few rows: D is long), combines the chunk moments of each row it touches,
// then normalizes its elements of that row.
// Bindings: 1 = x, 2 = scale [D], 3 = bias [D] (the scale again when
// absent), 4 = moments [R, P, 2], 5 = out; all f32.
// Params: p[0] R, p[1] D, p[2] epsilon (f32 bits), p[3] hasBias, p[4] P,
// p[5] elements per workgroup.
#version 450
layout(local_size_x = 128) in;
#include "common.glsl"
#include "rows.glsl"

layout(std430, set = 0, binding = 1) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Scale { float scale[]; };
layout(std430, set = 0, binding = 3) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = 4) readonly buffer Moments { float moments[]; };
layout(std430, set = 0, binding = 5) writeonly buffer Out { float outv[]; };

void main() {
  uint R = p[0], D = p[1], P = p[4], E = p[5], t = gl_LocalInvocationIndex;
  uint first = linearGroup() * E, total = R * D;
  if (first >= total) return;  // uniform per workgroup
  uint end = min(total, first + E);
  float chunk = float(D / P);
  for (uint r = first / D; r <= (end - 1u) / D; ++r) {
    uint m = 2u * r * P;
    float s = 0.0;
    for (uint c = t; c < P; c += 128u) s += moments[m + 2u * c];
    float mean = workgroupSum(s) / float(P);
    float q = 0.0;
    for (uint c = t; c < P; c += 128u) {
      float dm = moments[m + 2u * c] - mean;
      q += moments[m + 2u * c + 1u] + chunk * dm * dm;
    }
    float inv = inversesqrt(workgroupSum(q) / float(D) + pfloat(2));
    uint lo = max(first, r * D), hi = min(end, r * D + D);
    for (uint o = lo + t; o < hi; o += 128u) {
      uint d = o - r * D;
      outv[o] = (x[o] - mean) * inv * scale[d] + (p[3] != 0u ? bias[d] : 0.0);
    }
  }
}
