// attention: out = softmax(q kᵀ * scale + mask, over the keys) v, one
// query row per workgroup. Keys go by in chunks of 128 (one per
// invocation) with an online softmax: a running max and sum, and the
// output accumulators rescaled when the max grows, so K and V are read
// once and no score tensor exists. A key whose mask is <= -1e30 (a causal
// mask's hidden position) scores exactly its mask and its K and V rows are
// not read: attention reads only the valid prefix of a KV cache (ir/ops.def).
// A chunk whose scores all lie over 104 below the running max (exp flushes
// to 0: a cache's hidden tail) changes nothing and is skipped whole, and
// the weighted sum of V stops at the chunk's last nonzero weight.
//
// Bindings: 1 = q [B, T, D], 2 = k [Bk, S, D], 3 = v [Bk, S, Dv],
//           4 = mask [T, S] (q when there is none), 5 = out [B, T, Dv]; f32.
// Params:
//   p[0] rows (B * T)  p[1] T  p[2] S  p[3] D (<= 512)  p[4] Dv (<= 512)
//   p[5] scale (f32 bits)  p[6] has mask (0/1)
//   p[7..12]  q's leading dims (B = their product), 1-padded on the left
//   p[13..18] k's batch stride along each of those dims (0: broadcast)
#version 450
layout(local_size_x = 128) in;
#include "common.glsl"
#include "rows.glsl"

layout(std430, set = 0, binding = 1) readonly buffer Q { float q[]; };
layout(std430, set = 0, binding = 2) readonly buffer K { vec4 k4[]; };  // (the binding covers whole vec4s)
layout(std430, set = 0, binding = 3) readonly buffer V { float v[]; };
layout(std430, set = 0, binding = 4) readonly buffer Mask { float mask[]; };
layout(std430, set = 0, binding = 5) writeonly buffer Out { float outv[]; };

shared float qRow[512];
shared float weight[128];
shared vec2 sumLast[128];

float kAt(uint i) { return k4[i >> 2u][i & 3u]; }

// (Σ w, max last) over the workgroup: the chunk's weight sum and one past
// its last nonzero weight. Its first barrier also publishes weight[].
vec2 sumAndLast(float w, float last) {
  uint t = gl_LocalInvocationIndex;
  barrier();
  sumLast[t] = vec2(w, last);
  barrier();
  for (uint h = 64; h > 0; h >>= 1) {
    if (t < h) sumLast[t] = vec2(sumLast[t].x + sumLast[t + h].x, max(sumLast[t].y, sumLast[t + h].y));
    barrier();
  }
  return sumLast[0];
}

const float kHidden = -1e30;

bool negInf(float x) { return isinf(x) && x < 0.0; }

void main() {
  uint row = linearGroup();
  if (row >= p[0]) return;  // uniform per workgroup
  uint T = p[1], S = p[2], D = p[3], Dv = p[4];
  float scale = pfloat(5);
  uint t = row % T, rest = row / T, kb = 0;
  for (int a = 5; a >= 0; --a) {
    kb += (rest % p[7 + a]) * p[13 + a];
    rest /= p[7 + a];
  }
  uint tid = gl_LocalInvocationIndex;
  for (uint d = tid; d < D; d += 128) qRow[d] = q[row * D + d];
  barrier();
  uint kBase = kb * S * D, vBase = kb * S * Dv;
  float runMax = uintBitsToFloat(0xff800000u), runSum = 0.0;
  float acc[4] = float[4](0.0, 0.0, 0.0, 0.0);
  for (uint j0 = 0; j0 < S; j0 += 128) {
    uint j = j0 + tid;
    float s = uintBitsToFloat(0xff800000u);  // past the last key: weighs nothing
    if (j < S) {
      float m = p[6] != 0 ? mask[t * S + j] : 0.0;
      if (m <= kHidden) {
        s = m;
      } else {
        float qk = 0.0;
        uint at = kBase + j * D;
        if ((D & 3u) == 0u) {  // whole vec4s
          for (uint d = 0; d < D; d += 4u)
            qk += dot(vec4(qRow[d], qRow[d + 1u], qRow[d + 2u], qRow[d + 3u]), k4[(at + d) >> 2u]);
        } else {
          for (uint d = 0; d < D; ++d) qk += qRow[d] * kAt(at + d);
        }
        s = qk * scale + m;
      }
    }
    float chunkMax = workgroupMax(s);
    float newMax = maxNan(runMax, chunkMax);
    // Every weight of this chunk would be exp(<= -104) = 0 and the running
    // max stays: nothing changes (uniform: chunkMax is the workgroup's).
    if (negInf(chunkMax) || chunkMax < newMax - 104.0) continue;
    // exp(-inf - -inf) is NaN: nothing seen yet weighs 0.
    float w = negInf(s) ? 0.0 : exp(s - newMax);
    float rescale = negInf(runMax) ? 0.0 : exp(runMax - newMax);
    weight[tid] = w;
    vec2 sl = sumAndLast(w, w != 0.0 ? float(tid + 1u) : 0.0);  // its barriers publish weight[]
    runSum = runSum * rescale + sl.x;
    uint n = min(uint(sl.y), S - j0);
    for (uint i = 0; i < 4; ++i) {
      uint e = tid + i * 128;
      if (e < Dv) {
        float a = acc[i] * rescale;
        for (uint jj = 0; jj < n; ++jj) {
          float wj = weight[jj];
          if (wj != 0.0) a += wj * v[vBase + (j0 + jj) * Dv + e];
        }
        acc[i] = a;
      }
    }
    runMax = newMax;
    barrier();  // every weight[] read is done before the next chunk writes
  }
  for (uint i = 0; i < 4; ++i) {
    uint e = tid + i * 128;
    if (e < Dv) outv[row * Dv + e] = acc[i] / runSum;
  }
}
