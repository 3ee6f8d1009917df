// qmatvec's one-row path (M = 1, rows of W a multiple of 4 words; p[42] =
// S != 0), included by qmatvec.comp after its buffers and helpers.
//
// A warp owns 4 rows of W, and one of S slices of them: the S warps of a
// quad stride the rows together, 8 / S quads per workgroup (32 / S rows).
// Per step each lane loads 16 bytes (a column: 4 words) of each of its 4
// rows, coalesced (a warp reads 512 contiguous bytes per row). When x fits
// one staged chunk and a lane has few steps (f16: up to 4, the scaled
// formats 2), all of its loads and x's go out before the barrier that
// stages x: one wait on memory per row group. Otherwise the next step's
// loads (and scales) go out before this step's math, and f16 loads the
// next chunk's x as it stores this one's. x is read from shared memory,
// staged 4096 values at a time with the prologue applied and transposed,
// so that the lanes of a warp read consecutive vec4s (no bank conflicts)
// and each vec4 serves the 4 rows. Workgroups loop over row groups (the
// grid is capped); when x fits one chunk it is staged once per workgroup,
// by its first row group.
//
// Scaled formats decode a field as qTop's f = 1 + (q + 2^(b-1)) / 2^b
// (a shift and a logic op; ternary's even fields a field deeper, sharing
// their odd neighbour's shift, with x staged times 4 for them); a group's
// sum starts at -Y, Y = Σ (x' + x / 2) over its fields (staged per word:
// the same for every row), runs Σ x' f, and is multiplied by the group's
// scale once; 2^b is applied to the total.

// The rows' words and scales (the includer may pick among several
// matrices: qgated_mlp.comp's gate and up).
#ifndef ROW_WORDS4
#define ROW_WORDS4(i) words4[i]
#define ROW_SCALE(i) scales[i]
#endif

const uint kChunk4 = 1024u;  // x staged 4096 values (1024 vec4s) at a time
const uint kUpfrontSteps = 4u;  // the most steps a lane loads before its first product
shared vec4 xs[kChunk4 + 16u];  // column j's vec4 v at xs[v * (columns + 1) + j]
shared vec4 ys[256];            // column j: Y of each of its 4 words (below)
shared vec4 sliceSums[8];       // each warp's 4 row sums (S > 1)

// A chunk's x as invocation t stages it: at most 4 of its vec4s (kSlots),
// with the prologue operand's, loaded into registers by loadChunk (f16: a
// chunk ahead, their latency behind the previous chunk's products) and
// written to shared memory by storeChunk. Slot k * q + e holds vec4 e of
// the k-th word (or f16 vec4) the invocation takes, q = vec4s per word.
const uint kSlots = 4u;
struct ChunkX {
  vec4 x[kSlots], u[kSlots];
};

uint vec4sPerWord(uint per) { return max(per / 4u, 1u); }

// Vec4 slot `slot` of the chunk at columns first .. first + n - 1 (`per`
// vec4s each): its index g in x's row, the chunk's word wi it belongs to
// (f16: the chunk's vec4), and whether invocation t has it.
bool chunkSlot(uint first, uint n, uint per, uint t, uint slot, out uint g, out uint wi) {
  uint q4 = vec4sPerWord(per);
  wi = t + 256u * (slot / q4);
  g = per == 2u ? 2u * first + wi : (4u * first + wi) * q4 + slot % q4;
  return wi < (per == 2u ? 2u : 4u) * n;
}

void loadChunk(uint first, uint n, uint per, uint t, out ChunkX c) {
  streamWait();  // x may come from the dispatch before (stream_sync.glsl); uniform here
  [[unroll]] for (uint k = 0u; k < kSlots; ++k) {
    uint g, wi;
    c.x[k] = c.u[k] = vec4(0.0);
    if (chunkSlot(first, n, per, t, k, g, wi)) {
      c.x[k] = a4[g];
      if (hasPrologue()) c.u[k] = u4[g];
    }
  }
}

// Stores a loaded chunk's x (the prologue applied) and, for scaled
// formats, each word's Y; ssq += the squares of x (the rms prologue's sum,
// only needed after the products). The caller has passed a barrier since
// the last reads of xs / ys.
void storeChunk(uint first, uint n, uint per, uint t, ChunkX c, inout float ssq) {
  uint stride = kChunk4 / per + 1u, q4 = vec4sPerWord(per);
  // Ternary's even fields one field deep (qTop): x' = 4 x, exact.
  vec4 deep = per == 16u ? vec4(4.0, 1.0, 4.0, 1.0) : vec4(1.0);
  float y = 0.0;
  [[unroll]] for (uint k = 0u; k < kSlots; ++k) {
    uint g, wi;
    if (!chunkSlot(first, n, per, t, k, g, wi)) continue;
    vec4 x = c.x[k];
    if (rmsOn()) ssq += dot(x, x);
    if (hasPrologue()) x = prologue(x, c.u[k]);
    if (per == 2u) {  // f16: a word covers half a vec4; no Y
      xs[(wi & 1u) * stride + (wi >> 1u)] = x;
      continue;
    }
    uint j = wi >> 2u, i = wi & 3u, e = k % q4;  // word i of column j, its vec4 e
    xs[(i * q4 + e) * stride + j] = x * deep;
    y = (e == 0u ? 0.0 : y) + dot(x, deep + 0.5);
    if (e == q4 - 1u) ys[j][i] = y;
  }
  barrier();
}

// Fields E .. E + 3 times x; ternary's even fields sit one field deep (D 1).
#define QTOP4(W, X, E, B, D, ACC)                  \
  ACC = fma(X.x, qTop(W, E, B, D), ACC);           \
  ACC = fma(X.y, qTop(W, E + 1u, B, 0u), ACC);     \
  ACC = fma(X.z, qTop(W, E + 2u, B, D), ACC);      \
  ACC = fma(X.w, qTop(W, E + 3u, B, 0u), ACC)

// acc + Σ x f over one word's fields (x0.. its vec4s of x).
float wordChain(uint format, uint w, vec4 x0, vec4 x1, vec4 x2, vec4 x3, float acc) {
  if (format == QINT8) {
    QTOP4(w, x0, 0u, 8u, 0u, acc);
  } else if (format == QINT4) {
    QTOP4(w, x0, 0u, 4u, 0u, acc);
    QTOP4(w, x1, 4u, 4u, 0u, acc);
  } else {
    QTOP4(w, x0, 0u, 2u, 1u, acc);
    QTOP4(w, x1, 4u, 2u, 1u, acc);
    QTOP4(w, x2, 8u, 2u, 1u, acc);
    QTOP4(w, x3, 12u, 2u, 1u, acc);
  }
  return acc;
}

// One step: column j (of the chunk) of the 4 rows, words w[r], into acc
// (one component per row). sw[i]: the 4 rows' scales of word i; L = words
// per scale within the column (1, 2 or 4).
void stepRows(uvec4 w[4], vec4 sw[4], uint j, uint format, uint per, uint L, inout vec4 acc) {
  uint stride = kChunk4 / per + 1u;
  if (format == QF16) {
    [[unroll]] for (uint h = 0u; h < 2u; ++h) {
      vec4 x = xs[h * stride + j];
      [[unroll]] for (uint r = 0u; r < 4u; ++r) {
        vec2 a = unpackHalf2x16(w[r][2u * h]), b = unpackHalf2x16(w[r][2u * h + 1u]);
        acc[r] = fma(x.w, b.y, fma(x.z, b.x, fma(x.y, a.y, fma(x.x, a.x, acc[r]))));
      }
    }
    return;
  }
  uint q4 = per / 4u;
  vec4 y = ys[j], sums = vec4(0.0);
  [[unroll]] for (uint i = 0u; i < 4u; ++i) {
    uint v = i * q4;
    vec4 x0 = xs[v * stride + j];
    vec4 x1 = q4 > 1u ? xs[(v + 1u) * stride + j] : x0;
    vec4 x2 = q4 > 2u ? xs[(v + 2u) * stride + j] : x0, x3 = q4 > 2u ? xs[(v + 3u) * stride + j] : x0;
    if ((i & (L - 1u)) == 0u) sums = -vec4(L == 4u ? (y.x + y.y) + (y.z + y.w) : L == 2u ? y[i] + y[i + 1u] : y[i]);
    [[unroll]] for (uint r = 0u; r < 4u; ++r) sums[r] = wordChain(format, w[r][i], x0, x1, x2, x3, sums[r]);
    if ((i & (L - 1u)) == L - 1u) acc = fma(sw[i], sums, acc);
  }
}

// The 4 rows' 16 bytes at column col and their scales (gq: the group of
// col when a group spans whole columns).
void loadStep(uint rows[4], uint col, uint U, uint gq, uint L, bool scaled, out uvec4 w[4], out vec4 sw[4]) {
  uint G = groupsPerRow();
  [[unroll]] for (uint r = 0u; r < 4u; ++r) w[r] = ROW_WORDS4(rows[r] * U + col);
  [[unroll]] for (uint i = 0u; i < 4u; ++i) sw[i] = vec4(1.0);
  if (!scaled) return;
  [[unroll]] for (uint i = 0u; i < 4u; ++i) {
    if (L == 4u && i > 0u) {
      sw[i] = sw[0];
      continue;
    }
    if (L == 2u && (i & 1u) != 0u) {
      sw[i] = sw[i - 1u];
      continue;
    }
    uint g = L == 4u ? gq : L == 2u ? 2u * col + i / 2u : 4u * col + i;
    sw[i] = vec4(ROW_SCALE(rows[0] * G + g), ROW_SCALE(rows[1] * G + g), ROW_SCALE(rows[2] * G + g), ROW_SCALE(rows[3] * G + g));
  }
}

// The row sums of acc (the lanes' parts), scaled: x's norm taken by the
// workgroup's first row group (all of them when x is staged in chunks).
vec4 finishSums(vec4 acc, float ssq, inout bool first, bool once, bool scaled, uint bits, uint t, uint lane) {
  if (rmsOn() && (first || !once)) takeRowNorms(vec4(ssq, 0.0, 0.0, 0.0));
  first = false;
  return columnSum(acc, t, lane) * ((scaled ? float(1u << bits) : 1.0) * (rmsOn() ? rowScale.x : 1.0));
}

// The sums of the 4 rows n0 .. n0 + 3 of W (clamped to N: the caller
// ignores those past it) with x, over the Us columns from column c0 (a
// split-K part of the row, c0 a multiple of a group's columns; all of it:
// 0, U), scaled (2^b, 1 / rms), valid in lane 0 of each warp of the rows'
// slices (S > 1: each slice's part). live: n0 < N, uniform per warp; the
// warp still joins the barriers. first: no earlier row group of this
// workgroup staged x (set false on return).
vec4 rowGroupSums(uint n0, bool live, uint t, inout bool first, uint c0, uint Us) {
  uint N = p[1], format = qFormat(), bits = qBits(format), per = 32u / bits, U = rowColumns();
  uint S = slices(), warp = t >> 5u, lane = t & 31u, span = 32u * S;  // columns per step
  uint stepsPerChunk = kChunk4 / per / span, steps = (Us + span - 1u) / span;
  bool scaled = format != QF16;
  uint gw = wordsPerGroup(), L = gw % 4u == 0u ? 4u : gw, G4 = max(gw / 4u, 1u);
  uint dq = span / G4, dr = span % G4;  // a step moves the group by dq, dr / G4
  // x in one chunk (K <= 4096): staged, and its norm taken, by the first
  // row group only; the workgroup's later row groups read it as it is.
  bool once = Us <= kChunk4 / per;
  uint col = 32u * (warp % S) + lane;
  uint rows[4] = uint[4](n0, min(n0 + 1u, N - 1u), min(n0 + 2u, N - 1u), min(n0 + 3u, N - 1u));
  uint gq = (c0 + col) / G4, gr = col % G4;  // (c0 + col) / G4, carried
  vec4 acc = vec4(0.0);
  float ssq = 0.0;
  // x in one chunk and few steps: every step's loads (and x's) go out
  // before the barrier that stages x, so the row group waits on memory
  // once. f16
  // takes up to 4 steps so; the scaled formats, whose scales and decode
  // hold more registers, at most 2 (4 cost 7B-width int4 19%: fewer
  // workgroups fit a multiprocessor).
  if (once && steps <= (scaled ? 2u : kUpfrontSteps)) {
    uvec4 wa[kUpfrontSteps][4];
    vec4 swa[kUpfrontSteps][4];
    [[unroll]] for (uint s = 0u; s < kUpfrontSteps; ++s) {
      uint c = col + s * span;
      if (s < steps && live && c < Us) loadStep(rows, c0 + c, U, (c0 + c) / G4, L, scaled, wa[s], swa[s]);
    }
    if (first) {  // uniform
      ChunkX cx;
      loadChunk(c0, Us, per, t, cx);
      barrier();
      storeChunk(c0, Us, per, t, cx, ssq);
    }
    [[unroll]] for (uint s = 0u; s < kUpfrontSteps; ++s) {
      uint c = col + s * span;
      if (s < steps && live && c < Us) stepRows(wa[s], swa[s], c, format, per, L, acc);
    }
    return finishSums(acc, ssq, first, once, scaled, bits, t, lane);
  }
  // Otherwise one step's loads ahead of the products, x staged a chunk at
  // a time after a barrier; f16 loads the next chunk's x as it stores this
  // one's (held in registers through the chunk's products). The scaled
  // formats load x only after the barrier: x held in registers through
  // their products, or loaded before the first barrier, cost 7B-width int4
  // 5-10% (H100).
  uvec4 w[4] = uvec4[4](uvec4(0u), uvec4(0u), uvec4(0u), uvec4(0u));
  vec4 sw[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
  if (live && col < Us) loadStep(rows, c0 + col, U, gq, L, scaled, w, sw);
  uint C = kChunk4 / per;  // columns per chunk
  bool staging = first || !once, xAhead = !scaled;
  ChunkX cx;  // f16: the chunk's x, loaded a chunk ahead
  if (staging && xAhead) loadChunk(c0, min(Us, C), per, t, cx);
  for (uint s = 0u, chunk = 0u, inChunk = 0u; s < steps; ++s) {
    uint next = col + span;  // its loads go out before x is staged
    gr += dr;
    gq += dq + (gr >= G4 ? 1u : 0u);
    gr -= gr >= G4 ? G4 : 0u;
    uvec4 wn[4] = w;
    vec4 swn[4] = sw;
    if (live && next < Us) loadStep(rows, c0 + next, U, gq, L, scaled, wn, swn);
    if (inChunk == 0u && staging) {  // uniform
      barrier();
      uint at = chunk * C, after = at + C;
      if (xAhead) {
        storeChunk(c0 + at, min(Us - at, C), per, t, cx, ssq);
        if (after < Us) loadChunk(c0 + after, min(Us - after, C), per, t, cx);
      } else {  // loaded here: no registers held through the products
        ChunkX now;
        loadChunk(c0 + at, min(Us - at, C), per, t, now);
        storeChunk(c0 + at, min(Us - at, C), per, t, now, ssq);
      }
    }
    if (live && col < Us) stepRows(w, sw, col - chunk * C, format, per, L, acc);
    w = wn;
    sw = swn;
    col = next;
    if (++inChunk == stepsPerChunk) {
      inChunk = 0u;
      ++chunk;
    }
  }
  return finishSums(acc, ssq, first, once, scaled, bits, t, lane);
}

#ifndef QMATVEC_ROWS_SUMS_ONLY
// Output row n's sum v: stored through the epilogue, or (split-K, P > 1
// parts) added into c, which a pass a level earlier zeroed; part 0 adds
// the epilogue's operands (the lowering splits only epilogues of adds).
void putRow(uint n, float v, uint P, uint part) {
  if (part == 0u) v = epilogue(v, n, n);
  if (P == 1u) storeFloat(n, v);
  else atomicAddFloat(n, v);
}

// Split-K (P = p[43] > 1 parts of p[44] columns, lower_qmatmul.cpp):
// workgroup w takes part w % P of each of its row groups' rows, so that it
// stages its part of x once; the grid is a multiple of P.
void rowsPath(uint t) {
  uint N = p[1], S = slices(), warp = t >> 5u, lane = t & 31u, quad = warp / S, rowsPerGroup = 32u / S;
  uint groups = (N + rowsPerGroup - 1u) / rowsPerGroup, U = rowColumns();
  uint P = max(parts(), 1u), part = gl_WorkGroupID.x % P, c0 = part * partColumns();
  uint Us = P > 1u ? min(partColumns(), U - c0) : U;
  bool first = true;
  for (uint gx = gl_WorkGroupID.x / P; gx < groups; gx += gl_NumWorkGroups.x / P) {
    uint n0 = gx * rowsPerGroup + 4u * quad;
    bool live = n0 < N;  // uniform per warp
    vec4 sum = rowGroupSums(n0, live, t, first, c0, Us);
    if (S == 1u) {
      if (lane == 0u && live)
        for (uint r = 0u; r < 4u && n0 + r < N; ++r) putRow(n0 + r, sum[r], P, part);
      continue;
    }
    if (lane == 0u) sliceSums[warp] = sum;
    barrier();
    uint n = gx * rowsPerGroup + t;
    if (t < rowsPerGroup && n < N) {
      float v = 0.0;
      for (uint i = 0u; i < S; ++i) v += sliceSums[(t >> 2u) * S + i][t & 3u];
      putRow(n, v, P, part);
    }
    barrier();  // the next row group's slice sums overwrite these
  }
}
#endif
