// matvec: C[b] = op(A[b]) @ op(B[b]) for a few rows (M <= 4: a decode
// step's projections and attention), where the 64x64 tiles of matmul.comp
// would leave most of a GPU idle and compute 60 wasted rows. The weight
// matrix B is streamed once, coalesced, by many small workgroups:
//   B stored [K, N] (N contiguous): a workgroup owns 8 columns and
//     splits K 32 ways (8 consecutive floats, one 32-byte sector, per k
//     and slice), the 32 partial sums meet in shared memory;
//   B stored [N, K] (trans_b, K contiguous): a workgroup owns 8 columns,
//     one warp each, lanes stride over K, partial sums meet in shared
//     memory.
// Narrow (p[36] bit 2, outputs up to 8192 wide): 4 columns x 64 slices,
// which halves each lane's serial walk over K and doubles the workgroups:
// on the H200 a decode projection's time grew with K / slices, not with
// its bytes (576 x 576: 9.6 -> 7.9 us), while a wide one (an lm_head)
// is bandwidth-bound and keeps whole sectors.
// Prologues (ir/epilogue.h), operand u at binding 5: RMSNorm (p[36] bit
// 3): each workgroup first takes the mean square of A's rows (K values
// each, at most 4 rows), then multiplies as if A were A * u / rms (u[k] as
// each column of A is read, 1 / rms on the sums); SwiGLU (bit 4): A is read
// as silu(A) * u. Either costs no dispatch of its own.
// Params as matmul.comp (lowering picks one by M), bindings plus u:
// Bindings: 1 = A, 2 = B, 3, 4 = epilogue operands, 5 = u (A again
// without a prologue), 6 = C.
// Params: p[0] M, p[1] N, p[2] K, p[3] batch, p[4..7] output batch dims,
// p[8..11] / p[12..15] A / B batch strides, p[16..35] fused epilogue,
// p[36] layout bits (trans_a, trans_b, narrow, rms prologue, swiglu
// prologue), p[37] the rms prologue's epsilon (float bits).
// Grid: (column groups, 1, batch), clamped; workgroups loop over the rest.
// Variant `subgroup` (devices with subgroup arithmetic and shuffles): the
// slice sums and the prologue's mean square go through subgroup operations
// (xor shuffles over the lanes of one column, then one value per subgroup
// and column in shared memory where a column spans several subgroups):
// 0-2 barriers per column group instead of 6-7. Written for any subgroup
// width at least the lane stride between slices (narrower ones take the
// tree); it assumes subgroups are consecutive runs of
// gl_LocalInvocationIndex, as qmatvec.comp's variant does.
// mgc-variant: subgroup features=Subgroup defines=MGC_SUBGROUP env=vulkan1.1 msl=20100
#version 450
#ifdef MGC_SUBGROUP
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
layout(local_size_x = 256) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 2) readonly buffer B { float b[]; };
layout(std430, set = 0, binding = 5) readonly buffer U { float u[]; };
layout(std430, set = 0, binding = 6) writeonly buffer C { float c[]; };
#define EPI_BASE 16
#define EPI_BINDING0 3
#define EPI_BINDING1 4
#include "math.glsl"
#include "epilogue.glsl"

shared vec4 partial[256];
shared vec4 rowScale;  // 1 / rms of A's rows (the prologue)

void batchOffsets(uint batch, out uint offA, out uint offB) {
  offA = 0;
  offB = 0;
  uint rem = batch;
  for (int d = 3; d >= 0; --d) {
    uint coord = rem % p[4 + d];
    rem /= p[4 + d];
    offA += coord * p[8 + d];
    offB += coord * p[12 + d];
  }
}

// op(A)[m, k] for m < M (0 beyond), as the product sees it: a SwiGLU
// prologue's silu(A) * u (u indexed as A; A is not transposed then).
float aAt(uint offA, uint m, uint k) {
  uint M = p[0], K = p[2];
  if (m >= M) return 0.0;
  if ((p[36] & 16u) != 0u) {
    uint i = offA + m * K + k;
    float v = a[i];
    return v * sigmoid(v) * u[i];
  }
  return (p[36] & 1u) != 0u ? a[offA + k * M + m] : a[offA + m * K + k];
}

// Column k of op(A): its (up to) 4 rows, times u[k] with an rms prologue.
vec4 aColumn(uint offA, uint k) {
  vec4 col = vec4(aAt(offA, 0u, k), aAt(offA, 1u, k), aAt(offA, 2u, k), aAt(offA, 3u, k));
  return (p[36] & 8u) != 0u ? col * u[k] : col;
}

// The prologue: 1 / sqrt(mean(A[m, :]²) + eps) for A's rows, into rowScale
// (all invocations take part; partial is free on entry and exit).
void takeRowNorms(uint offA) {
  uint t = gl_LocalInvocationIndex, K = p[2];
  vec4 ss = vec4(0.0);
  for (uint k = t; k < K; k += 256u) {
    vec4 v = vec4(aAt(offA, 0u, k), aAt(offA, 1u, k), aAt(offA, 2u, k), aAt(offA, 3u, k));
    ss += v * v;
  }
  barrier();
#ifdef MGC_SUBGROUP
  vec4 s = subgroupAdd(ss);
  if (subgroupElect()) partial[gl_SubgroupID] = s;
  barrier();
  if (gl_SubgroupID == 0u) {
    vec4 r = vec4(0.0);
    for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) r += partial[i];
    r = subgroupAdd(r);
    if (subgroupElect()) rowScale = inversesqrt(r / float(K) + uintBitsToFloat(p[37]));
  }
#else
  partial[t] = ss;
  barrier();
  for (uint h = 128u; h > 0u; h >>= 1u) {
    if (t < h) partial[t] += partial[t + h];
    barrier();
  }
  if (t == 0u) rowScale = inversesqrt(partial[0] / float(K) + uintBitsToFloat(p[37]));
#endif
  barrier();
}

// The sum of v over the slices of invocation t's column, valid where
// slice == 0. Lanes: trans_b, t = col * slices + slice (a column's slices
// adjacent); else t = slice * cols + col. Called in uniform control flow;
// `partial` may be in use by the previous column group on entry.
vec4 sliceSum(vec4 v, uint t, uint slice, uint col, uint cols, uint slices, bool tb) {
#ifdef MGC_SUBGROUP
  uint S = gl_SubgroupSize, stride = tb ? 1u : cols;  // lanes between a column's slices
  if (S >= stride) {
    for (uint o = stride; o < min(S, stride * slices); o <<= 1u) v += subgroupShuffleXor(v, o);
    if (stride * slices <= S) return v;  // the column lies in one subgroup
    barrier();
    if (gl_SubgroupInvocationID < stride) partial[gl_SubgroupID * stride + gl_SubgroupInvocationID] = v;
    barrier();
    vec4 r = vec4(0.0);
    if (slice == 0u) {
      if (tb)  // the column's slices/S subgroups, in a row
        for (uint g = col * (slices / S); g < (col + 1u) * (slices / S); ++g) r += partial[g];
      else  // every subgroup holds S/cols slices of every column
        for (uint g = 0u; g < gl_NumSubgroups; ++g) r += partial[g * cols + col];
    }
    return r;
  }
#endif
  // partial[slice * cols + col], a tree over slices.
  barrier();
  partial[slice * cols + col] = v;
  barrier();
  for (uint h = slices / 2u; h > 0u; h >>= 1u) {
    if (slice < h) partial[slice * cols + col] += partial[(slice + h) * cols + col];
    barrier();
  }
  return partial[col];
}

float bAt(bool tb, uint offB, uint k, uint n) { return tb ? b[offB + n * p[2] + k] : b[offB + k * p[1] + n]; }

void main() {
  uint M = p[0], N = p[1], K = p[2], batches = p[3];
  bool tb = (p[36] & 2u) != 0u;
  uint t = gl_LocalInvocationIndex;
  // 8 columns x 32 k-slices (narrow: 4 x 64); [N, K]: lanes along K.
  bool narrow = (p[36] & 4u) != 0u;
  uint cols = narrow ? 4u : 8u, slices = narrow ? 64u : 32u;
  uint col = tb ? t / slices : t % cols, slice = tb ? t % slices : t / cols;
  uint groups = (N + cols - 1u) / cols;
  for (uint bz = gl_WorkGroupID.z; bz < batches; bz += gl_NumWorkGroups.z) {
    uint offA, offB;
    batchOffsets(bz, offA, offB);
    bool rms = (p[36] & 8u) != 0u;
    if (rms) takeRowNorms(offA);
    for (uint gx = gl_WorkGroupID.x; gx < groups; gx += gl_NumWorkGroups.x) {
      uint n = gx * cols + col;
      vec4 acc = vec4(0.0);
      if (n < N) {
        // Four independent loads in flight per step: a decode step's
        // matrices are too small to hide memory latency with warps alone.
        uint k = slice;
        vec4 acc1 = vec4(0.0), acc2 = vec4(0.0), acc3 = vec4(0.0);
        for (; k + 3u * slices < K; k += 4u * slices) {
          float w0 = bAt(tb, offB, k, n), w1 = bAt(tb, offB, k + slices, n);
          float w2 = bAt(tb, offB, k + 2u * slices, n), w3 = bAt(tb, offB, k + 3u * slices, n);
          acc += w0 * aColumn(offA, k);
          acc1 += w1 * aColumn(offA, k + slices);
          acc2 += w2 * aColumn(offA, k + 2u * slices);
          acc3 += w3 * aColumn(offA, k + 3u * slices);
        }
        for (; k < K; k += slices) acc += bAt(tb, offB, k, n) * aColumn(offA, k);
        acc += acc1 + acc2 + acc3;
      }
      vec4 s = sliceSum(acc, t, slice, col, cols, slices, tb);
      if (slice == 0u && n < N) {
        if (rms) s *= rowScale;
        for (uint m = 0u; m < min(M, 4u); ++m) {
          uint o = bz * M * N + m * N + n;
          c[o] = epilogue(s[m], o, n);
        }
      }
    }
  }
}
