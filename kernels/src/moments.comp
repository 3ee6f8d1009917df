// moments: each row of L values (x viewed [rows, L]) → its mean and M2, the
// sum of squared deviations from that mean, in two passes over the row (the
// second from cache) for accuracy. The first step of a layer_norm over a
// few long rows (passes/graph/split_long_rows.cpp): x [R, P, L], one
// workgroup per chunk, R·P of them; layernorm_apply.comp combines them.
// One 128-invocation workgroup per row (setGroupGrid).
// Bindings: 1 = x, 2 = out [rows, 2]; all f32.
// Params: p[0] rows, p[1] L.
#version 450
layout(local_size_x = 128) in;
#include "common.glsl"
#include "rows.glsl"

layout(std430, set = 0, binding = 1) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { float outv[]; };

void main() {
  uint row = linearGroup(), L = p[1], t = gl_LocalInvocationIndex;
  if (row >= p[0]) return;  // uniform per workgroup
  uint base = row * L;
  float sum = 0.0;
  for (uint i = t; i < L; i += 128u) sum += x[base + i];
  float mean = workgroupSum(sum) / float(L);
  float sq = 0.0;
  for (uint i = t; i < L; i += 128u) {
    float c = x[base + i] - mean;
    sq += c * c;
  }
  float m2 = workgroupSum(sq);
  if (t == 0u) {
    outv[2u * row] = mean;
    outv[2u * row + 1u] = m2;
  }
}
