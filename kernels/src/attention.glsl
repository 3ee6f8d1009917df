// The online-softmax loop of the attention kernels (attention.comp,
// attention_cache.comp): one query row per 128-invocation workgroup, keys
// in chunks of 128 (one per invocation), a running max and sum, and the
// output accumulators rescaled when the max grows, so K and V are read
// once and no score tensor exists. A key whose mask is <= -1e30 (a causal
// mask's hidden position) scores exactly its mask and its K row is not
// read (ir/ops.def). A chunk whose scores all lie over 104 below the
// running max (exp flushes to 0: a cache's hidden tail) changes nothing and
// is skipped whole, and the weighted sum of V stops at the chunk's last
// nonzero weight; a zero weight inside it adds exactly 0 (a select, not a
// product: its V row may hold anything).
//
// The weighted sum of V: when Dv / 4 = R divides 128 (heads of 64: R 16),
// the workgroup is 128 / R lanes of R invocations, an invocation owning 4
// elements (one 16-byte load per key), each lane taking every (128 / R)-th
// key of the chunk, up to 16 keys' loads in flight per step (a step per
// chunk for heads of 64: a decode row waits for its values once); the
// lanes' sums meet once, at the end. Otherwise each invocation owns
// elements tid, tid + 128, ... over every key. The includers specialize D and Dv (SPEC_PARAM),
// so that the products' loops unroll and their loads issue together.
//
// The includer declares the buffers `mask` and `outv` before this file (or
// defines ATTN_STORE(i, v), where element i of the row goes) and defines
// the functions declared here after it.
#ifndef ATTN_STORE
#define ATTN_STORE(i, v) outv[i] = (v)
#endif
shared float qRow[512];  // the query row, loaded by the includer

float keyDot(uint j);             // q · key j (q from qRow[])
float valueAt(uint j, uint e);    // element e of value row j
vec4 valueAt4(uint j, uint e4);   // elements 4 e4 .. 4 e4 + 3 of value row j (Dv % 4 == 0)

shared float weight[128];
const uint kValueLoads = 16u;
shared vec2 sumLast[128];
shared vec4 laneSums[128];

// (Σ w, max last) over the workgroup: the chunk's weight sum and one past
// its last nonzero weight. Its first barrier also publishes weight[].
vec2 sumAndLast(float w, float last) {
#ifdef MGC_SUBGROUP  // each subgroup's, then the subgroups' (rows.glsl's workgroupMax)
  vec2 s = vec2(subgroupAdd(w), subgroupMax(last));
  barrier();
  if (subgroupElect()) sumLast[gl_SubgroupID] = s;
  barrier();
  vec2 r = sumLast[0];
  for (uint i = 1u; i < gl_NumSubgroups; ++i) r = vec2(r.x + sumLast[i].x, max(r.y, sumLast[i].y));
  return r;
#else
  uint t = gl_LocalInvocationIndex;
  barrier();
  sumLast[t] = vec2(w, last);
  barrier();
  for (uint h = 64; h > 0; h >>= 1) {
    if (t < h) sumLast[t] = vec2(sumLast[t].x + sumLast[t + h].x, max(sumLast[t].y, sumLast[t + h].y));
    barrier();
  }
  return sumLast[0];
#endif
}

const float kHidden = -1e30;
// Without a mask: keys past this one are hidden, scoring -FLT_MAX as a
// causal mask's would (attention_cache.glsl's causal rows set it).
int attnLastKey = 0x7fffffff;

bool negInf(float x) { return isinf(x) && x < 0.0; }

// outv[outBase + e] = Σ_j softmax_j(keyDot(j) * scale + mask[t, j]) valueAt(j, e)
// over keys j < S (without a mask: hidden past attnLastKey).
void attendRow(uint outBase, uint t, uint S, uint Dv, float scale, bool hasMask) {
  uint tid = gl_LocalInvocationIndex;
  float runMax = uintBitsToFloat(0xff800000u), runSum = 0.0;
  float acc[4] = float[4](0.0, 0.0, 0.0, 0.0);
  uint R = Dv / 4u;  // invocations per value row
  bool lanesSplit = Dv % 4u == 0u && 128u % R == 0u;  // uniform; constant when specialized
  uint lanes = lanesSplit ? 128u / R : 1u, lane = lanesSplit ? tid / R : 0u, e4 = lanesSplit ? tid % R : 0u;
  vec4 acc4 = vec4(0.0);
  for (uint j0 = 0; j0 < S; j0 += 128) {
    uint j = j0 + tid;
    float s = uintBitsToFloat(0xff800000u);  // past the last key: weighs nothing
    if (j < S) {
      float m = hasMask ? mask[t * S + j] : int(j) > attnLastKey ? uintBitsToFloat(0xff7fffffu) : 0.0;
      s = m <= kHidden ? m : keyDot(j) * scale + m;
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
    if (lanesSplit) {
      vec4 a = acc4 * rescale;
      // kValueLoads keys' loads in flight per step (all of a lane's keys
      // in one step when the lanes are 8 or more: heads of 64 or less).
      for (uint jj = lane; jj < n; jj += kValueLoads * lanes) {
        float w[kValueLoads];
        vec4 v[kValueLoads];
        [[unroll]] for (uint i = 0u; i < kValueLoads; ++i) {
          uint j = jj + i * lanes;
          w[i] = j < n ? weight[j] : 0.0;
          v[i] = w[i] != 0.0 ? valueAt4(j0 + j, e4) : vec4(0.0);
        }
        [[unroll]] for (uint i = 0u; i < kValueLoads; ++i) a += w[i] != 0.0 ? w[i] * v[i] : vec4(0.0);
      }
      acc4 = a;
    } else {
      for (uint i = 0; i < 4; ++i) {
        uint e = tid + i * 128;
        if (e < Dv) {
          float a = acc[i] * rescale;
          for (uint jj = 0; jj < n; ++jj) {
            float wj = weight[jj];
            if (wj != 0.0) a += wj * valueAt(j0 + jj, e);
          }
          acc[i] = a;
        }
      }
    }
    runMax = newMax;
    barrier();  // every weight[] read is done before the next chunk writes
  }
  if (lanesSplit) {  // the lanes' sums of elements 4 e4 .., added in lane order
    barrier();
    laneSums[tid] = acc4;
    barrier();
    if (lane == 0u) {
      vec4 a = acc4;
      for (uint l = 1u; l < lanes; ++l) a += laneSums[l * R + e4];
      a /= runSum;
      for (uint i = 0u; i < 4u; ++i) ATTN_STORE(outBase + 4u * e4 + i, a[i]);
    }
    return;
  }
  for (uint i = 0; i < 4; ++i) {
    uint e = tid + i * 128;
    if (e < Dv) ATTN_STORE(outBase + e, acc[i] / runSum);
  }
}
