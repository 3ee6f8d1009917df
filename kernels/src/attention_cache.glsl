// The body of attention_cache.comp and attention_cache_proj.comp (their
// headers say what they compute): buffers 1-7, the caches at CACHE_BINDING
// and CACHE_BINDING + 1, RoPE, the cache writes and the row's attention.
// The includer declares where the row goes: `outv` and ATTN_STORE for
// attention.glsl, ATTN_OUT_BASE(row) the row's first element there, and
// ATTN_AFTER_ROW(row, part) what follows it (attention_cache_proj: the
// o_proj). ATTN_PARTS (default 1) workgroups take each query row, part
// `linearGroup() % ATTN_PARTS` of it: each computes the whole row, and
// only part 0 writes the cache; ATTN_BEFORE_ROW(row, part) runs before the
// row's attention (loads that do not depend on it).
#include "common.glsl"
#include "rows.glsl"
#include "specialize.glsl"
SPEC_PARAM(3)  // D
SPEC_PARAM(4)  // Dv
SPEC_PARAM(6)  // bits 0-1, the mask: 0 none, 1 a [T, S] mask, 2 the offset's causal one;
               // bit 2: the offset is a graph input or a constant (readable before the wait)

// ATTN_WAIT() comes after ATTN_BEFORE_ROW and prefetchKeys (which read
// only what no dispatch of the run writes), before the first read of
// anything an earlier dispatch wrote; ATTN_DONE() ends every workgroup
// (attention_cache_proj: in-stream waits, stream_sync.glsl, with the
// inputs read coherent: STREAM_IN).
#ifndef ATTN_WAIT
#define ATTN_WAIT()
#define ATTN_DONE()
#endif
#ifndef STREAM_IN
#define STREAM_IN
#endif
layout(std430, set = 0, binding = 1) STREAM_IN readonly buffer Q { float q[]; };
layout(std430, set = 0, binding = 2) STREAM_IN readonly buffer K { float kNew[]; };
layout(std430, set = 0, binding = 3) STREAM_IN readonly buffer V { vec4 vNew4[]; };  // (the binding covers whole vec4s)
layout(std430, set = 0, binding = 4) STREAM_IN readonly buffer Offset { int offsetv[]; };
layout(std430, set = 0, binding = 5) STREAM_IN readonly buffer Cos { float cosv[]; };
layout(std430, set = 0, binding = 6) STREAM_IN readonly buffer Sin { float sinv[]; };
layout(std430, set = 0, binding = 7) STREAM_IN readonly buffer Mask { float mask[]; };
layout(std430, set = 0, binding = CACHE_BINDING) buffer KCache { vec4 kc4[]; };  // (the binding covers whole vec4s)
layout(std430, set = 0, binding = CACHE_BINDING + 1) buffer VCache { vec4 vc4[]; };

// Key rows of the first chunk loaded before the in-stream wait (heads of
// 64, the offset readable then: p[6] bit 2): invocation j < preKeys holds
// cache row j, which keyDot(j) then reads from registers. Rows before the
// offset hold earlier runs' keys (no dispatch of this run writes them), so
// their memory latency overlaps the wait instead of following it
// (H100, SmolLM2 decode: f16 0.544 → 0.528 ms, int4 0.577 → 0.553; the
// value rows loaded so too gained nothing, docs/performance.md).
const uint kPreD4 = 16u;
vec4 kPre[kPreD4];
bool kPreValid = false;
uint preKeys = 0u;

#include "attention.glsl"

uint kvHead;        // this row's K/V head in [0, B * KV)
uint newFirst = 0;  // cache positions [newFirst, newEnd) come from k / v
uint newEnd = 0;
const uint kRotMax = 2048u;
shared float kRot[kRotMax];  // the chunk's keys [T, D], rotated (kRotStaged)
bool kRotStaged = false;

// Element d of a row of D: x[at + d] * cos[r, d] + x[at + partner] * signed_sin[r, d].
float rotated(float x, float partner, uint r, uint d) {
  return x * cosv[r * PARAM(3) + d] + partner * sinv[r * PARAM(3) + d];
}
uint partnerOf(uint d) { return d < PARAM(3) / 2u ? d + PARAM(3) / 2u : d - PARAM(3) / 2u; }
// Element d of the chunk's key row r, rotated.
float newKey(uint r, uint d) {
  uint at = (kvHead * p[1] + r) * PARAM(3);
  return rotated(kNew[at + d], kNew[at + partnerOf(d)], r, d);
}

float keyDot(uint j) {
  uint D = PARAM(3);
  float qk = 0.0;
  if (kPreValid && j == gl_LocalInvocationIndex && j < preKeys) {  // (D = 64: prefetchKeys)
    [[unroll]] for (uint d4 = 0u; d4 < kPreD4; ++d4)
      qk += dot(vec4(qRow[4u * d4], qRow[4u * d4 + 1u], qRow[4u * d4 + 2u], qRow[4u * d4 + 3u]), kPre[d4]);
    return qk;
  }
  if (j >= newFirst && j < newEnd) {
    uint r = j - newFirst;
    if (kRotStaged) {
      [[unroll]] for (uint d = 0; d < D; ++d) qk += qRow[d] * kRot[r * D + d];
    } else {
      for (uint d = 0; d < D; ++d) qk += qRow[d] * newKey(r, d);
    }
    return qk;
  }
  uint at = (kvHead * p[2] + j) * D;
  if ((D & 3u) == 0u) {  // whole vec4s
    [[unroll]] for (uint d = 0; d < D; d += 4u)
      qk += dot(vec4(qRow[d], qRow[d + 1u], qRow[d + 2u], qRow[d + 3u]), kc4[(at + d) >> 2u]);
  } else {
    for (uint d = 0; d < D; ++d) qk += qRow[d] * kc4[(at + d) >> 2u][(at + d) & 3u];
  }
  return qk;
}

float vNewAt(uint i) { return vNew4[i >> 2u][i & 3u]; }

float valueAt(uint j, uint e) {
  uint Dv = PARAM(4);
  if (j >= newFirst && j < newEnd) return vNewAt((kvHead * p[1] + j - newFirst) * Dv + e);
  uint i = (kvHead * p[2] + j) * Dv + e;
  return vc4[i >> 2u][i & 3u];
}
vec4 valueAt4(uint j, uint e4) {
  uint Dv = PARAM(4);
  if (j >= newFirst && j < newEnd) return vNew4[(kvHead * p[1] + j - newFirst) * Dv / 4u + e4];
  return vc4[(kvHead * p[2] + j) * Dv / 4u + e4];
}

#ifndef ATTN_PARTS
#define ATTN_PARTS 1u
#define ATTN_BEFORE_ROW(row, part)
#endif

void prefetchKeys(uint S, uint T, uint D) {
  if ((PARAM(6) & 4u) == 0u || D != 64u) return;
  int offset = offsetv[0];
  if (offset <= 0 || offset > int(S) - int(T)) return;  // no cached key, or no fresh chunk
  preKeys = min(uint(offset), 128u);
  kPreValid = true;
  uint tid = gl_LocalInvocationIndex;
  if (tid < preKeys)
    [[unroll]] for (uint d4 = 0u; d4 < kPreD4; ++d4) kPre[d4] = kc4[(kvHead * S + tid) * kPreD4 + d4];
}

void attendCacheRow(uint row, uint part) {
  uint T = p[1], S = p[2], D = PARAM(3), Dv = PARAM(4), H = p[7];
  uint t = row % T, h = (row / T) % H, b = row / T / H;
  kvHead = b * (H / p[8]) + h / p[8];
  ATTN_BEFORE_ROW(row, part);
  prefetchKeys(S, T, D);
  ATTN_WAIT();
  int offset = offsetv[0];
  bool fresh = offset >= 0 && offset <= int(S) - int(T);
  if (fresh) {
    newFirst = uint(offset);
    newEnd = newFirst + T;
  }
  uint tid = gl_LocalInvocationIndex;
  for (uint d = tid; d < D; d += 128) qRow[d] = rotated(q[row * D + d], q[row * D + partnerOf(d)], t, d);
  kRotStaged = fresh && T * D <= kRotMax;  // uniform
  if (kRotStaged)
    for (uint i = tid; i < T * D; i += 128) kRot[i] = newKey(i / D, i % D);
  barrier();
  if (fresh && h % p[8] == 0u && part == 0u) {  // the one writer of cache row offset + t of this K/V head
    uint to = (kvHead * S + newFirst + t) * D;
    for (uint d = tid; d < D; d += 128) {
      float x = kRotStaged ? kRot[t * D + d] : newKey(t, d);
      kc4[(to + d) >> 2u][(to + d) & 3u] = x;
    }
    for (uint e = tid; e < Dv; e += 128) {
      uint i = (kvHead * S + newFirst + t) * Dv + e;
      vc4[i >> 2u][i & 3u] = vNewAt((kvHead * T + t) * Dv + e);
    }
  }
  // Causal: keys 0 .. offset + t only, the loop stopping there (a row
  // that sees none scores every key -FLT_MAX, as the mask would).
  uint keys = S;
  if ((PARAM(6) & 3u) == 2u) {
    attnLastKey = offset + int(t);
    if (attnLastKey >= 0) keys = min(S, uint(attnLastKey) + 1u);
  }
  attendRow(ATTN_OUT_BASE(row), t, keys, Dv, pfloat(5), (PARAM(6) & 3u) == 1u);
  ATTN_AFTER_ROW(row, part);
}

void main() {
  uint row = linearGroup() / ATTN_PARTS, part = linearGroup() % ATTN_PARTS;
  if (row < p[0]) attendCacheRow(row, part);  // uniform per workgroup
  ATTN_DONE();
}
