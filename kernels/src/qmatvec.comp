// qmatvec: C = x @ Wᵀ for packed low-bit weights W [N, K] and at most 4
// rows of x (a decode step): matvec.comp's trans_b scheme on packed words.
// A workgroup owns 8 columns (rows of W), one warp each; lanes stride over
// the row's 32-bit words (coalesced: 128 bytes per warp per step, four
// words in flight per lane), decode each word in registers (qweights.glsl)
// and apply the group scale once per word; partial sums meet in shared
// memory. One row (M = 1, a decode step) takes a scalar path reading x
// as aligned vec4s and, when rows are a multiple of 4 words, the weights
// 16 bytes per load (four loads, 64 bytes, in flight per lane). Bytes streamed per weight: 2 (f16), 1 (int8), 0.5 (int4), 0.25
// (ternary), plus 4 / group for the scales.
// Prologues (ir/epilogue.h), operand u at binding 6: RMSNorm (p[36] bit
// 3): as matvec.comp, each workgroup takes the mean square of x's rows
// first, x is read times u, and the sums are scaled by 1 / rms; SwiGLU
// (bit 4): x is read as silu(x) * u. One row (K <= kStagedK) is staged in
// shared memory with the prologue applied, so the many unrolled dot
// products read it as they read x (and the shader does not carry the
// prologue at each of them); several rows apply it per read.
// Bindings: as qmatmul.comp with u inserted before the output: 1 = x,
// 2 = words, 3 = scales, 4, 5 = epilogue operands, 6 = u (x again without
// a prologue), 7 = C. Params: qmatmul.comp's, plus p[39] words per group,
// p[40] groups per row, p[41] the rms prologue's epsilon (float bits).
// Grid: (column groups, 1, 1), clamped.
// Variant `subgroup` (devices with subgroup arithmetic): the sums over a
// column's 32 lanes and the prologue's mean square use subgroupAdd instead
// of trees in shared memory (0 barriers per column group instead of 7 when
// subgroups are 32 wide, 2 when narrower; wider ones take the tree). It
// assumes subgroups are consecutive runs of gl_LocalInvocationIndex, as on
// every driver it runs on (tests: lavapipe's 8-wide, NVIDIA's 32-wide).
// mgc-variant: subgroup features=Subgroup defines=MGC_SUBGROUP env=vulkan1.1 msl=20100
#version 450
#ifdef MGC_SUBGROUP
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
layout(local_size_x = 256) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer A { vec4 a4[]; };  // x, 4 floats per element
layout(std430, set = 0, binding = 2) readonly buffer Words { uvec4 words4[]; };  // 4 words per element
layout(std430, set = 0, binding = 3) readonly buffer Scales { float scales[]; };
layout(std430, set = 0, binding = 6) readonly buffer U { vec4 u4[]; };  // the prologue's operand, 4 floats per element
layout(std430, set = 0, binding = 7) writeonly buffer C { float c[]; };
#define EPI_BASE 16
#define EPI_BINDING0 4
#define EPI_BINDING1 5
#include "math.glsl"
#include "epilogue.glsl"
#include "qweights.glsl"

shared vec4 partial[256];
shared vec4 rowScale;  // 1 / rms of x's rows (the prologue)

// x's elements as the product sees them: times u (rms prologue), or
// silu(x) * u (swiglu prologue).
vec4 prologue(vec4 x, vec4 u) {
  if ((p[36] & 8u) != 0u) return x * u;
  if ((p[36] & 16u) != 0u) return x * vec4(sigmoid(x.x), sigmoid(x.y), sigmoid(x.z), sigmoid(x.w)) * u;
  return x;
}
bool hasPrologue() { return (p[36] & 24u) != 0u; }
const uint kStagedK = 4096;  // lower_qmatmul.cpp's limit for one row with a prologue
shared vec4 xs[kStagedK / 4u];  // one row of x, the prologue applied
vec4 x4(uint i4) { return hasPrologue() ? xs[i4] : a4[i4]; }  // one row (M = 1)
float xAt(uint i) {
  float v = a4[i >> 2u][i & 3u];
  if (!hasPrologue()) return v;
  uint j = (p[36] & 8u) != 0u ? i % p[2] : i;  // rms: u[k]; swiglu: u as x
  return prologue(vec4(v), vec4(u4[j >> 2u][j & 3u])).x;
}

// The prologue: 1 / sqrt(mean(x[m, :]²) + eps) for x's rows, into rowScale.
void takeRowNorms() {
  uint t = gl_LocalInvocationIndex, M = p[0], K = p[2];
  vec4 ss = vec4(0.0);
  for (uint k = t; k < K; k += 256u)
    for (uint m = 0u; m < min(M, 4u); ++m) {
      float v = a4[(m * K + k) >> 2u][(m * K + k) & 3u];
      ss[m] += v * v;
    }
#ifdef MGC_SUBGROUP
  vec4 s = subgroupAdd(ss);
  if (subgroupElect()) partial[gl_SubgroupID] = s;
  barrier();
  if (gl_SubgroupID == 0u) {
    vec4 r = vec4(0.0);
    for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) r += partial[i];
    r = subgroupAdd(r);
    if (subgroupElect()) rowScale = inversesqrt(r / float(K) + uintBitsToFloat(p[41]));
  }
#else
  partial[t] = ss;
  barrier();
  for (uint h = 128u; h > 0u; h >>= 1u) {
    if (t < h) partial[t] += partial[t + h];
    barrier();
  }
  if (t == 0u) rowScale = inversesqrt(partial[0] / float(K) + uintBitsToFloat(p[41]));
#endif
  barrier();
}

// The sum of v over the 32 lanes of invocation t's column (t / 32), valid
// in the column's lane 0. Called in uniform control flow; `partial` may be
// in use by the previous column group on entry.
vec4 columnSum(vec4 v, uint t, uint lane) {
#ifdef MGC_SUBGROUP
  if (gl_SubgroupSize == 32u) return subgroupAdd(v);
  if (gl_SubgroupSize < 32u) {
    vec4 s = subgroupAdd(v);
    barrier();
    if (subgroupElect()) partial[gl_SubgroupID] = s;
    barrier();
    vec4 r = vec4(0.0);
    if (lane == 0u)
      for (uint i = t / gl_SubgroupSize, e = i + 32u / gl_SubgroupSize; i < e; ++i) r += partial[i];
    return r;
  }
#endif
  barrier();
  partial[t] = v;
  barrier();
  for (uint h = 16u; h > 0u; h >>= 1u) {
    if (lane < h) partial[t] += partial[t + h];
    barrier();
  }
  return partial[t];
}

// Rows 0..3 of x at column k (0 past M).
vec4 xColumn(uint k) {
  uint M = p[0], K = p[2];
  return vec4(xAt(k), M > 1u ? xAt(K + k) : 0.0, M > 2u ? xAt(2u * K + k) : 0.0, M > 3u ? xAt(3u * K + k) : 0.0);
}

// Any M <= 4: Σ over the word's fields e of W[n, k0 + e] * x[:, k0 + e].
vec4 wordDot(uint word, uint k0, uint format) {
  if (format == QF16) {
    vec2 h = unpackHalf2x16(word);
    return h.x * xColumn(k0) + h.y * xColumn(k0 + 1u);
  }
  uint bits = qBits(format), per = 32u / bits;
  vec4 s = vec4(0.0);
  for (uint e = 0u; e < per; ++e) s += qField(word, e, bits) * xColumn(k0 + e);
  return s;
}

// One row (M = 1: x read as vec4s; bindings cover whole vec4s, see
// compiler/bundle_builder.cpp): the same sum, scalar.
float wordDot1(uint word, uint k0, uint format) {
  if (format == QF16) {
    vec4 x = x4(k0 >> 2u);
    vec2 h = unpackHalf2x16(word);
    return (k0 & 2u) != 0u ? h.x * x.z + h.y * x.w : h.x * x.x + h.y * x.y;
  }
  uint bits = qBits(format), per = 32u / bits;
  float s = 0.0;
  for (uint v = 0u; v < per / 4u; ++v) {
    vec4 x = x4((k0 >> 2u) + v);
    s += dot(x, vec4(qField(word, 4u * v, bits), qField(word, 4u * v + 1u, bits), qField(word, 4u * v + 2u, bits),
                     qField(word, 4u * v + 3u, bits)));
  }
  return s;
}

uint wordAt(uint i) { return words4[i >> 2u][i & 3u]; }

float scaleOf(uint n, uint k0, uint format) { return format == QF16 ? 1.0 : scales[n * (p[2] / p[38]) + k0 / p[38]]; }

vec4 scaledWordDot(uint n, uint j, uint format, bool one) {
  uint K = p[2], per = 32u / qBits(format), k0 = j * per;
  uint word = wordAt(n * (K / per) + j);
  float s = scaleOf(n, k0, format);
  return one ? vec4(s * wordDot1(word, k0, format), 0.0, 0.0, 0.0) : s * wordDot(word, k0, format);
}

// ---- One row, rows of W a multiple of 4 words: 16-byte loads ----------
// Each format's decode is spelled with constant widths (QF below), so a
// field costs a shift-and-xor, a subtract and a multiply-add; a scale
// index costs one division per 16 bytes when a group spans whole loads.

// Field E of word W for BITS-bit fields (qField with constant widths).
#define QF(W, E, BITS) (uintBitsToFloat((((W) >> ((E) * BITS)) & ((1u << BITS) - 1u)) ^ (0x4B000000u | (1u << (BITS - 1u)))) - uintBitsToFloat(0x4B000000u | (1u << (BITS - 1u))))
#define QV4(W, E, BITS) vec4(QF(W, E, BITS), QF(W, E + 1u, BITS), QF(W, E + 2u, BITS), QF(W, E + 3u, BITS))

// Σ x[k0 + e] W[e] over one word; i4 = the index of x[k0] / 4.
float dotF16(uint w, uint k0) { vec4 x = x4(k0 >> 2u); vec2 h = unpackHalf2x16(w); return (k0 & 2u) != 0u ? dot(h, x.zw) : dot(h, x.xy); }
float dotInt8(uint w, uint i4) { return dot(x4(i4), QV4(w, 0u, 8u)); }
float dotInt4(uint w, uint i4) { return dot(x4(i4), QV4(w, 0u, 4u)) + dot(x4(i4 + 1u), QV4(w, 4u, 4u)); }
float dotTernary(uint w, uint i4) {
  return dot(x4(i4), QV4(w, 0u, 2u)) + dot(x4(i4 + 1u), QV4(w, 4u, 2u)) + dot(x4(i4 + 2u), QV4(w, 8u, 2u)) +
         dot(x4(i4 + 3u), QV4(w, 12u, 2u));
}

// The scale of word j of row n: p[39] words per group, p[40] groups per row.
float wordScale(uint n, uint j) { return scales[n * p[40] + j / p[39]]; }

// 16 bytes (words 4 j4 .. 4 j4 + 3 of row n) times x, scaled.
float quadDot(uvec4 w, uint j4, uint n, uint format) {
  uint j = 4u * j4;
  if (format == QF16) return dotF16(w.x, 2u * j) + dotF16(w.y, 2u * j + 2u) + dotF16(w.z, 2u * j + 4u) + dotF16(w.w, 2u * j + 6u);
  bool shared4 = p[39] % 4u == 0u;  // one group spans the 4 words
  float s0 = wordScale(n, j), s1 = shared4 ? s0 : wordScale(n, j + 1u), s2 = shared4 ? s0 : wordScale(n, j + 2u),
        s3 = shared4 ? s0 : wordScale(n, j + 3u);
  if (format == QINT8) return s0 * dotInt8(w.x, j) + s1 * dotInt8(w.y, j + 1u) + s2 * dotInt8(w.z, j + 2u) + s3 * dotInt8(w.w, j + 3u);
  if (format == QINT4)
    return s0 * dotInt4(w.x, 2u * j) + s1 * dotInt4(w.y, 2u * j + 2u) + s2 * dotInt4(w.z, 2u * j + 4u) + s3 * dotInt4(w.w, 2u * j + 6u);
  return s0 * dotTernary(w.x, 4u * j) + s1 * dotTernary(w.y, 4u * j + 4u) + s2 * dotTernary(w.z, 4u * j + 8u) +
         s3 * dotTernary(w.w, 4u * j + 12u);
}

void main() {
  uint M = p[0], N = p[1], K = p[2], format = p[37];
  uint per = 32u / qBits(format), W = K / per;  // words per row
  bool one = M == 1u;  // uniform: the scalar path
  uint t = gl_LocalInvocationIndex, col = t / 32u, lane = t % 32u;
  uint groups = (N + 7u) / 8u;
  bool rms = (p[36] & 8u) != 0u;
  if (rms) takeRowNorms();
  if (one && hasPrologue()) {
    for (uint i = t; i < (K + 3u) / 4u; i += 256u) xs[i] = prologue(a4[i], u4[i]);
    barrier();
  }
  for (uint gx = gl_WorkGroupID.x; gx < groups; gx += gl_NumWorkGroups.x) {
    uint n = gx * 8u + col;
    vec4 acc = vec4(0.0);
    if (n < N && one && (W & 3u) == 0u) {
      uint W4 = W / 4u, row = n * W4, j = lane;
      float s0 = 0.0, s1 = 0.0;
      for (; j + 96u < W4; j += 128u) {
        uvec4 w0 = words4[row + j], w1 = words4[row + j + 32u], w2 = words4[row + j + 64u], w3 = words4[row + j + 96u];
        s0 += quadDot(w0, j, n, format) + quadDot(w1, j + 32u, n, format);
        s1 += quadDot(w2, j + 64u, n, format) + quadDot(w3, j + 96u, n, format);
      }
      for (; j < W4; j += 32u) s0 += quadDot(words4[row + j], j, n, format);
      acc.x = s0 + s1;
    } else if (n < N) {
      uint j = lane;
      vec4 acc1 = vec4(0.0), acc2 = vec4(0.0), acc3 = vec4(0.0);
      for (; j + 96u < W; j += 128u) {
        acc += scaledWordDot(n, j, format, one);
        acc1 += scaledWordDot(n, j + 32u, format, one);
        acc2 += scaledWordDot(n, j + 64u, format, one);
        acc3 += scaledWordDot(n, j + 96u, format, one);
      }
      for (; j < W; j += 32u) acc += scaledWordDot(n, j, format, one);
      acc += acc1 + acc2 + acc3;
    }
    vec4 s = columnSum(acc, t, lane);
    if (lane == 0u && n < N) {
      if (rms) s *= rowScale;
      for (uint m = 0u; m < min(M, 4u); ++m) {
        uint o = m * N + n;
        c[o] = epilogue(s[m], o, n);
      }
    }
  }
}
