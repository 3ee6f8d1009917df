// attention_tiled.comp's operands and their loads, shared by its two
// bodies (attention_tiled.glsl: barriers only; attention_tiled_sg.glsl:
// subgroup shuffles). The includer defines BR (query rows per workgroup),
// BC (keys per block, 32 or 64), THREADS (16 BR / 4) and RQ (BR / 4).

layout(std430, set = 0, binding = 1) readonly buffer Q { vec4 q4[]; };
layout(std430, set = 0, binding = 2) readonly buffer K { vec4 k4[]; };
layout(std430, set = 0, binding = 3) readonly buffer V { vec4 v4[]; };
layout(std430, set = 0, binding = 4) readonly buffer Mask { float mask[]; };
layout(std430, set = 0, binding = 5) writeonly buffer Out { vec4 out4[]; };

const float kHidden = -1e30;
#define kNegInf uintBitsToFloat(0xff800000u)

// Stages R rows of a [rows, W] tensor (W = 4 w4 floats, rows from
// `first` STRIDE vec4s apart, zeros past `count`) transposed into `dst`
// rows of d (q's block):
// invocation task (r4, d4) loads 4 rows' vec4s at d4 and stores 4 vec4s of
// 4 rows each (r4 fastest: consecutive vec4s in shared memory).
#define STAGE_TRANSPOSED(DST, SRC, BASE, STRIDE, R, W4, FIRST, COUNT)                           \
  for (uint task = t; task < (R / 4u) * (W4); task += THREADS) {                                  \
    uint r4 = task % (R / 4u), d4 = task / (R / 4u);                                              \
    vec4 x[4];                                                                                    \
    [[unroll]] for (uint c = 0u; c < 4u; ++c) {                                                   \
      uint r = FIRST + 4u * r4 + c;                                                               \
      x[c] = r < COUNT ? SRC[BASE + r * (STRIDE) + d4] : vec4(0.0);                               \
    }                                                                                             \
    [[unroll]] for (uint c = 0u; c < 4u; ++c)                                                     \
      DST[(4u * d4 + c) * (R / 4u) + r4] = vec4(x[0][c], x[1][c], x[2][c], x[3][c]);              \
  }

// K's and V's blocks go through registers: the next block's loads are in
// flight while this block's products run. At most KTASKS staging tasks of
// K (4 rows' vec4s each) and VLOADS vec4s of V per invocation (heads <= 64).
#define KTASKS ((BC / 4 * 16 + THREADS - 1) / THREADS)
#define VLOADS ((BC * 16 + THREADS - 1) / THREADS)

void loadK(uint k0, uint S, uint D4, uint kBase4, uint kStride4, uint t, out vec4 kr[KTASKS][4]) {
  [[unroll]] for (uint i = 0u; i < KTASKS; ++i) {
    uint task = t + i * THREADS, r4 = task % (BC / 4u), d4 = task / (BC / 4u);
    [[unroll]] for (uint c = 0u; c < 4u; ++c) {
      uint r = k0 + 4u * r4 + c;
      kr[i][c] = task < (BC / 4u) * D4 && r < S ? k4[kBase4 + r * kStride4 + d4] : vec4(0.0);
    }
  }
}

// K's block into DST as [d][key / 4] (transposed: 4 vec4s of 4 keys each).
#define STORE_K(DST, D4, t, kr)                                                                         \
  [[unroll]] for (uint i = 0u; i < KTASKS; ++i) {                                                       \
    uint task = t + i * THREADS, r4 = task % (BC / 4u), d4 = task / (BC / 4u);                          \
    if (task < (BC / 4u) * D4)                                                                          \
      [[unroll]] for (uint c = 0u; c < 4u; ++c)                                                         \
        DST[(4u * d4 + c) * (BC / 4u) + r4] = vec4(kr[i][0][c], kr[i][1][c], kr[i][2][c], kr[i][3][c]); \
  }

void loadV(uint k0, uint S, uint Dv4, uint vBase4, uint vStride4, uint t, out vec4 vr[VLOADS]) {
  [[unroll]] for (uint i = 0u; i < VLOADS; ++i) {
    uint task = t + i * THREADS, key = task / Dv4, c4 = task % Dv4;
    vr[i] = task < BC * Dv4 && k0 + key < S ? v4[vBase4 + (k0 + key) * vStride4 + c4] : vec4(0.0);
  }
}

// V's block into DST as [key][column / 4].
#define STORE_V(DST, Dv4, t, vr)                                    \
  [[unroll]] for (uint i = 0u; i < VLOADS; ++i) {                   \
    uint task = t + i * THREADS;                                    \
    if (task < BC * Dv4) DST[(task / Dv4) * 16u + task % Dv4] = vr[i]; \
  }

// Query row block b's operands: each one's first row and row-to-row stride
// in vec4s (p[19..22]: heads between the rows of q, k, v, out; 1 unless
// tokens-major), k's batch from q's leading dims (p[7..12]) and k's strides
// along them (p[13..18]).
struct Operands {
  uint q, k, v, o, qStride, kStride, vStride, oStride;
};

Operands operands(uint b, uint T, uint S, uint D4, uint Dv4) {
  uint rest = b, kb = 0u;
  for (int a = 5; a >= 0; --a) {
    kb += (rest % p[7 + a]) * p[13 + a];
    rest /= p[7 + a];
  }
  uint Hq = p[19], Hk = p[20], Hv = p[21], Ho = p[22];
  Operands r;
  r.q = ((b / Hq) * T * Hq + b % Hq) * D4;
  r.k = ((kb / Hk) * S * Hk + kb % Hk) * D4;
  r.v = ((kb / Hv) * S * Hv + kb % Hv) * Dv4;
  r.o = ((b / Ho) * T * Ho + b % Ho) * Dv4;
  r.qStride = Hq * D4;
  r.kStride = Hk * D4;
  r.vStride = Hv * Dv4;
  r.oStride = Ho * Dv4;
  return r;
}

// A block's score of row `row` at key `key` (x = q·k), scaled and masked:
// a key whose mask is <= -1e30 scores exactly its mask; keys past S -inf.
float maskedScore(float x, uint row, uint key, uint T, uint S, float scale, bool hasMask) {
  x *= scale;
  if (hasMask) {
    float mk = row < T && key < S ? mask[row * S + key] : 0.0;
    x = mk <= kHidden ? mk : x + mk;
  }
  return key < S ? x : kNegInf;
}

void attendBlock(uint b, uint row0, uint t);

void main() {
  uint T = p[1], blocks = (T + BR - 1u) / BR, batches = p[0] / T;
  for (uint b = gl_WorkGroupID.y; b < batches; b += gl_NumWorkGroups.y)
    for (uint qb = gl_WorkGroupID.x; qb < blocks; qb += gl_NumWorkGroups.x) attendBlock(b, BR * qb, gl_LocalInvocationIndex);
}
