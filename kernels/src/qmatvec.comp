// qmatvec: C = x @ Wᵀ for packed low-bit weights W [N, K] (qweights.glsl)
// and at most 4 rows of x (decode steps). Bytes streamed per weight: 2
// (f16), 1 (int8), 0.5 (int4), 0.25 (ternary), plus 4 / group for scales.
//
// Two paths, chosen by the lowering (p[42], kernels/lower_qmatmul.cpp):
// - One row of x whose row of W is a multiple of 4 words (p[42] = S != 0,
//   qmatvec_rows.glsl): a warp computes 4 rows of W at once, 16-byte loads,
//   x staged in shared memory transposed so each vec4 a lane reads serves
//   the 4 rows; S warps share 4 rows when W is narrow. 32 / S rows of W per
//   workgroup.
// - Otherwise (p[42] = 0): matvec.comp's trans_b scheme on 32-bit words, a
//   warp per row of W (8 per workgroup), lanes striding over the row, vec4
//   math over x's rows, fields decoded by qField.
// Prologues (ir/epilogue.h), operand u at binding 6: RMSNorm (p[36] bit
// 3): each workgroup first takes the mean square of x's rows, x is read
// times u, and the sums are scaled by 1 / rms; SwiGLU (bit 4): x is read as
// silu(x) * u. The one-row path applies them as it stages x.
// Bindings: as qmatmul.comp with u inserted before the output: 1 = x,
// 2 = words, 3 = scales, 4, 5 = epilogue operands, 6 = u (x again without
// a prologue), 7 = C. Params: qmatmul.comp's, plus p[39] words per group,
// p[40] groups per row, p[41] the rms prologue's epsilon (float bits),
// p[42] S (slices per 4 rows of W; 0: the per-row path), p[43] P, p[44]
// the columns (4 words each) of a part (split-K, below).
// Grid: (ceil(N / rows per workgroup), 1, 1), clamped (times P); workgroups
// loop.
// Split-K (P > 1 parts; the one-row path where a row of x exceeds a staged
// chunk and the epilogue only adds): workgroup w takes part w % P of its
// rows, staging only that part of x, once; the parts add their sums into C
// (atomic_add.glsl), which the lowering zeroes in a pass a level earlier,
// part 0 with the epilogue's operands.
// In-stream waits (stream_sync.glsl): the one-row path issues its first
// row group's weight loads before it waits.
// Specialized copies (kernels/specialize.h): M, K, the flags, format, words
// per group, groups per row and S are also specialization constants
// (SpecId = word), so the driver folds the format and prologue branches,
// the field shifts and the group arithmetic of each dispatch.
// Variant `subgroup` (devices with subgroup arithmetic): the sums over a
// warp's 32 lanes and the prologue's mean square use subgroupAdd instead
// of trees in shared memory (0 barriers per column group instead of 7 when
// subgroups are 32 wide, 2 when narrower; wider ones take the tree). It
// assumes subgroups are consecutive runs of gl_LocalInvocationIndex, as on
// every driver it runs on (tests: lavapipe's 8-wide, NVIDIA's 32-wide).
// Variants `atomicf` / `subgroup_atomicf` (VK_EXT_shader_atomic_float):
// split-K's adds are native float atomics, not a compare-and-swap loop.
// mgc-variant: subgroup_atomicf features=Subgroup,AtomicFloat32Add defines=MGC_SUBGROUP,MGC_ATOMIC_FLOAT env=vulkan1.1 msl=none
// mgc-variant: subgroup features=Subgroup defines=MGC_SUBGROUP env=vulkan1.1 msl=20100
// mgc-variant: atomicf features=AtomicFloat32Add defines=MGC_ATOMIC_FLOAT msl=none
#version 450
#extension GL_EXT_control_flow_attributes : require
#ifdef MGC_SUBGROUP
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
layout(local_size_x = 256) in;
#include "common.glsl"
#include "stream_sync.glsl"
#define STREAM_IN coherent

layout(std430, set = 0, binding = 1) coherent readonly buffer A { vec4 a4[]; };  // x, 4 floats per element
layout(std430, set = 0, binding = 2) readonly buffer Words { uvec4 words4[]; };  // 4 words per element
layout(std430, set = 0, binding = 3) readonly buffer Scales { float scales[]; };
layout(std430, set = 0, binding = 6) coherent readonly buffer U { vec4 u4[]; };  // the prologue's operand, 4 floats per element
#define ATOMIC_OUT_BINDING 7  // C
#include "atomic_add.glsl"
#define EPI_BASE 16
#define EPI_BINDING0 4
#define EPI_BINDING1 5
#include "math.glsl"
#include "epilogue.glsl"
#include "qweights.glsl"

#include "specialize.glsl"
#include "qmatvec_common.glsl"
SPEC_PARAM(43)  // P: split-K parts (0 or 1: none)
SPEC_PARAM(44)  // columns of a part
uint parts() { return PARAM(43); }
uint partColumns() { return PARAM(44); }

float xAt(uint i) {
  float v = a4[i >> 2u][i & 3u];
  if (!hasPrologue()) return v;
  uint j = rmsOn() ? i % dimK() : i;  // rms: u[k]; swiglu: u as x
  return prologue(vec4(v), vec4(u4[j >> 2u][j & 3u])).x;
}

// ---- Any M <= 4, a warp per row of W -----------------------------------

// Rows 0..3 of x at column k (0 past M).
vec4 xColumn(uint k) {
  uint M = rowsOfX(), K = dimK();
  return vec4(xAt(k), M > 1u ? xAt(K + k) : 0.0, M > 2u ? xAt(2u * K + k) : 0.0, M > 3u ? xAt(3u * K + k) : 0.0);
}

// Σ over word j's fields e of W[n, k0 + e] * x[:, k0 + e], scaled.
vec4 scaledWordDot(uint n, uint j, uint format) {
  uint per = 32u / qBits(format), k0 = j * per, W = dimK() / per;
  uint word = words4[(n * W + j) >> 2u][(n * W + j) & 3u];
  if (format == QF16) {
    vec2 h = unpackHalf2x16(word);
    return h.x * xColumn(k0) + h.y * xColumn(k0 + 1u);
  }
  vec4 s = vec4(0.0);
  for (uint e = 0u; e < per; ++e) s += qField(word, e, qBits(format)) * xColumn(k0 + e);
  return scales[n * groupsPerRow() + j / wordsPerGroup()] * s;
}

void wordsPath(uint t) {
  uint M = rowsOfX(), N = p[1], format = qFormat(), W = dimK() / (32u / qBits(format));
  uint col = t / 32u, lane = t % 32u, groups = (N + 7u) / 8u;
  for (uint gx = gl_WorkGroupID.x; gx < groups; gx += gl_NumWorkGroups.x) {
    uint n = gx * 8u + col, j = lane;
    vec4 acc = vec4(0.0), acc1 = vec4(0.0), acc2 = vec4(0.0), acc3 = vec4(0.0);
    if (n < N) {
      for (; j + 96u < W; j += 128u) {
        acc += scaledWordDot(n, j, format);
        acc1 += scaledWordDot(n, j + 32u, format);
        acc2 += scaledWordDot(n, j + 64u, format);
        acc3 += scaledWordDot(n, j + 96u, format);
      }
      for (; j < W; j += 32u) acc += scaledWordDot(n, j, format);
    }
    vec4 s = columnSum(acc + acc1 + acc2 + acc3, t, lane);
    if (lane == 0u && n < N) {
      if (rmsOn()) s *= rowScale;
      for (uint m = 0u; m < min(M, 4u); ++m) storeFloat(m * N + n, epilogue(s[m], m * N + n, n));
    }
  }
}

#include "qmatvec_rows.glsl"

// x's sums of squares, invocation t's part.
vec4 squareSums(uint t) {
  uint M = rowsOfX(), K = dimK();
  vec4 ss = vec4(0.0);
  for (uint k = t; k < K; k += 256u)
    for (uint m = 0u; m < min(M, 4u); ++m) {
      float v = a4[(m * K + k) >> 2u][(m * K + k) & 3u];
      ss[m] += v * v;
    }
  return ss;
}

void main() {
  uint t = gl_LocalInvocationIndex;
  if (slices() == 0u) streamWait();  // the one-row path waits as it first loads x, after its weights
  if (rmsOn() && slices() == 0u) takeRowNorms(squareSums(t));  // the one-row path takes them as it stages x
  if (slices() != 0u) rowsPath(t);
  else wordsPath(t);
  streamWait();
  streamSignal();
}
