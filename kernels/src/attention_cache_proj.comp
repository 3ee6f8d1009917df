// attention_cache_proj: attention_cache.comp with the output projection
// after it (AttentionCache with o_proj weights, ir/ops.def; built by
// passes/graph/fuse_attention_proj.cpp for a decode step): each workgroup's
// query row (b, h, t) of Dv values stays in shared memory, and the
// workgroup adds its share of the product, Σ_e o[n, h Dv + e] row[e] for
// every output n, into out[b, t, n] with float atomic adds (atomic_add.glsl);
// head 0 adds the residual. The lowering zeroes out in a pass before this
// one (conv2d_finish mode 0, a level early), so the attention and o_proj
// share one barrier level. The weights are packed as QMatMul's
// (qweights.glsl), one row of the head's slice per invocation at a time.
// P = p[15] workgroups take each query row (attention_cache.glsl's parts):
// each computes the row's attention (K and V are read P times, from the
// L2) and adds the product for its ceil(N / P) outputs, so that an
// invocation has one or two rows of o to stream, the first loaded before
// the attention.
//
// Bindings: 1-7 as attention_cache.comp's, 8 = o words [N, H Dv / per],
//   9 = o scales (o words for f16), 10 = residual (q when absent), 11 = out
//   [B, T, N] (added into), 12 = k cache, 13 = v cache.
// In-stream waits (stream_sync.glsl): the first rows of o are loaded
// before the wait.
// Params: attention_cache.comp's p[0..8], then p[9] N, p[10] format, p[11]
//   group, p[12] o words per row, p[13] o groups per row, p[14] has residual,
//   p[15] P. Grid: query rows × P workgroups.
// mgc-variant: subgroup_atomicf features=Subgroup,AtomicFloat32Add defines=MGC_SUBGROUP,MGC_ATOMIC_FLOAT env=vulkan1.1 msl=none
// mgc-variant: subgroup features=Subgroup defines=MGC_SUBGROUP env=vulkan1.1 msl=20100
// mgc-variant: atomicf features=AtomicFloat32Add defines=MGC_ATOMIC_FLOAT msl=none
#version 450
#extension GL_EXT_control_flow_attributes : require
#ifdef MGC_SUBGROUP
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
#endif
layout(local_size_x = 128) in;
#include "stream_sync.glsl"
#define STREAM_IN coherent
#define ATTN_WAIT() streamWait()
#define ATTN_DONE() \
  streamWait();     \
  streamSignal()
layout(std430, set = 0, binding = 8) readonly buffer OWords { uvec4 oWords4[]; };
layout(std430, set = 0, binding = 9) readonly buffer OScales { float oScales[]; };
layout(std430, set = 0, binding = 10) coherent readonly buffer Residual { float residual[]; };
#define ATOMIC_OUT_BINDING 11
#include "atomic_add.glsl"
#define CACHE_BINDING 12
shared float oRow[512];  // the row's attention output
#define ATTN_STORE(i, v) oRow[i] = (v)
#define ATTN_OUT_BASE(row) 0u
#define ATTN_PARTS p[15]
#define ATTN_BEFORE_ROW(row, part) prefetch(row, part)
#define ATTN_AFTER_ROW(row, part) project(row, part)
void prefetch(uint row, uint part);
void project(uint row, uint part);
#include "attention_cache.glsl"
#include "qweights.glsl"
SPEC_PARAM(9)   // N
SPEC_PARAM(10)  // format
SPEC_PARAM(12)  // o words per row
SPEC_PARAM(13)  // o groups per row

// out[b, t, n] += o[n, h Dv .. h Dv + Dv) · oRow for the part's rows n (+
// residual from head 0). An invocation takes one row n at a time, the
// head's slice in 16-byte loads (the lowering asks whole ones: 4 | words
// per row, 4 | Dv / per, Dv / per / 4 <= kSlice4) and its scales (up to
// kScales groups; more are read as they are used); its first row's loads
// go out before the attention (prefetch), the later rows' before their
// math.
const uint kSlice4 = 16u, kScales = 4u;
uvec4 firstWords[kSlice4];
float firstScales[kScales];

uint partRows() { return (PARAM(9) + ATTN_PARTS - 1u) / ATTN_PARTS; }
uint headOf(uint row) { return (row / p[1]) % p[7]; }
// The scale groups head h's slice of a row of o spans: g0 .. g0 + count - 1.
uvec2 sliceGroups(uint h) {
  uint first = h * PARAM(4), g0 = first / p[11];
  return uvec2(g0, (first + PARAM(4) - 1u) / p[11] - g0 + 1u);
}

void loadRow(uint n, uint h, out uvec4 ws[kSlice4], out float sc[kScales]) {
  uint Dv = PARAM(4), format = PARAM(10), per = 32u / qBits(format), first = h * Dv;
  uint at4 = (n * PARAM(12) + first / per) >> 2u, slice4 = Dv / per / 4u;
  [[unroll]] for (uint k4 = 0u; k4 < kSlice4; ++k4)
    if (k4 < slice4) ws[k4] = oWords4[at4 + k4];
  if (format == QF16) return;
  uvec2 gs = sliceGroups(h);
  [[unroll]] for (uint i = 0u; i < kScales; ++i)
    if (i < gs.y) sc[i] = oScales[n * PARAM(13) + gs.x + i];
}

void prefetch(uint row, uint part) {
  uint n = part * partRows() + gl_LocalInvocationIndex;
  if (n < min(PARAM(9), (part + 1u) * partRows())) loadRow(n, headOf(row), firstWords, firstScales);
}

void project(uint row, uint part) {
  barrier();  // oRow is whole
  uint T = p[1], Dv = PARAM(4), N = PARAM(9), format = PARAM(10), bits = qBits(format);
  uint per = 32u / bits, t = row % T, h = headOf(row), b = row / T / p[7];
  uint first = h * Dv, slice4 = Dv / per / 4u;
  uvec2 gs = sliceGroups(h);
  uint end = min(N, (part + 1u) * partRows());
  bool addResidual = p[14] != 0u && h == 0u;
  for (uint n = part * partRows() + gl_LocalInvocationIndex, i = 0u; n < end; n += 128u, ++i) {
    uvec4 ws[kSlice4];
    float sc[kScales];
    if (i == 0u) {
      ws = firstWords;
      sc = firstScales;
    } else {
      loadRow(n, h, ws, sc);
    }
    float s = 0.0;
    [[unroll]] for (uint k4 = 0u; k4 < kSlice4; ++k4) {
      if (k4 >= slice4) break;
      [[unroll]] for (uint c = 0u; c < 4u; ++c) {
        uint k = 4u * k4 + c, word = ws[k4][c];
        if (format == QF16) {
          vec2 w = unpackHalf2x16(word);
          s = fma(w.x, oRow[2u * k], fma(w.y, oRow[2u * k + 1u], s));
        } else {  // a scale per group of p[11] weights; a word never straddles two
          float w = 0.0;
          for (uint e = 0u; e < per; ++e) w = fma(qField(word, e, bits), oRow[k * per + e], w);
          uint g = (first + k * per) / p[11] - gs.x;
          s = fma(w, gs.y <= kScales ? sc[g] : oScales[n * PARAM(13) + gs.x + g], s);
        }
      }
    }
    uint o = (b * T + t) * N + n;
    if (addResidual) s += residual[o];
    atomicAddFloat(o, s);
  }
}
