// The 8x8-per-thread GEMM core of matmul_large.comp and matmul_medium.comp:
// a TM x TN output tile (the includer defines TM, TN in {64, 128} and
// local_size = (TN / 8, TM / 8)), each thread owning four 4x4 blocks TM / 2
// rows and TN / 2 columns apart (so the threads of a warp read distinct
// vec4s of a shared row: no bank conflicts): 64 FMAs per 4 shared vec4
// reads (gemm_tile.glsl's 4x4: 16 per 2). K in steps of 8 through two
// shared buffers: the next step is loaded into registers while this one
// multiplies, then stored into the other buffer: one barrier per step.
// Operands are read as vec4s: op(A)'s and op(B)'s stored rows must be
// whole vec4s (lower_matmul.cpp checks). The includer enables
// GL_EXT_control_flow_attributes and declares a4, b4, c, the epilogue and the
// params block with matmul.comp's layout.
#include "matmul_batch.glsl"

#define THREADS (TM * TN / 64u)
#define A_VECS (128u / TN)  // vec4s of A's tile per thread and step
#define B_VECS (128u / TM)

// [buffer][k][row / 4] and [buffer][k][column / 4]; A's rows padded: its
// scalar stores (A stored [M, K]) hit distinct banks.
shared vec4 sA[2][8][TM / 4u + 1u];
shared vec4 sB[2][8][TN / 4u];

// Vec4 e of one K step (k0..k0+7) of each tile, zero outside. A stored
// [M, K]: row e / 2, k 4 (e % 2)..+3; stored [K, M]: k e / (TM / 4), rows
// 4 (e % (TM / 4))..+3. B stored [K, N]: k e / (TN / 4), columns
// 4 (e % (TN / 4))..+3; stored [N, K]: column e / 2, k 4 (e % 2)..+3.
// Offsets in floats.
vec4 loadA(uint e, uint row0, uint k0, uint offA, bool ta) {
  uint M = p[0], K = p[2];
  if (!ta) {
    uint row = row0 + e / 2u, k = k0 + 4u * (e % 2u);
    return row < M && k < K ? a4[(offA + row * K + k) / 4u] : vec4(0.0);
  }
  uint k = k0 + e / (TM / 4u), row = row0 + 4u * (e % (TM / 4u));
  return k < K && row < M ? a4[(offA + k * M + row) / 4u] : vec4(0.0);
}

vec4 loadB(uint e, uint col0, uint k0, uint offB, bool tb) {
  uint N = p[1], K = p[2];
  if (tb) {
    uint col = col0 + e / 2u, k = k0 + 4u * (e % 2u);
    return col < N && k < K ? b4[(offB + col * K + k) / 4u] : vec4(0.0);
  }
  uint k = k0 + e / (TN / 4u), col = col0 + 4u * (e % (TN / 4u));
  return k < K && col < N ? b4[(offB + k * N + col) / 4u] : vec4(0.0);
}

void storeA(uint buf, uint e, vec4 v, bool ta) {
  if (ta) {
    sA[buf][e / (TM / 4u)][e % (TM / 4u)] = v;
    return;
  }
  uint r = e / 2u, k = 4u * (e % 2u), r4 = r / 4u, ri = r % 4u;
  sA[buf][k][r4][ri] = v.x;
  sA[buf][k + 1u][r4][ri] = v.y;
  sA[buf][k + 2u][r4][ri] = v.z;
  sA[buf][k + 3u][r4][ri] = v.w;
}

void storeB(uint buf, uint e, vec4 v, bool tb) {
  if (!tb) {
    sB[buf][e / (TN / 4u)][e % (TN / 4u)] = v;
    return;
  }
  uint col = e / 2u, k = 4u * (e % 2u), c4 = col / 4u, ci = col % 4u;
  sB[buf][k][c4][ci] = v.x;
  sB[buf][k + 1u][c4][ci] = v.y;
  sB[buf][k + 2u][c4][ci] = v.z;
  sB[buf][k + 3u][c4][ci] = v.w;
}

// Four outputs of a row from column `col` on, each through the epilogue.
void storeQuad(uint offC, uint row, uint col, vec4 v) {
  uint M = p[0], N = p[1], o = offC + row * N + col;
  if (row >= M) return;
  if (col < N) c[o] = epilogue(v.x, o, col);
  if (col + 1u < N) c[o + 1u] = epilogue(v.y, o + 1u, col + 1u);
  if (col + 2u < N) c[o + 2u] = epilogue(v.z, o + 2u, col + 2u);
  if (col + 3u < N) c[o + 3u] = epilogue(v.w, o + 3u, col + 3u);
}

// C[bz][row0.., col0..] = the tile's product + epilogue.
void tile8(uint bz, uint row0, uint col0, uint offA, uint offB) {
  uint M = p[0], N = p[1], K = p[2], steps = (K + 7u) / 8u;
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, t = gl_LocalInvocationIndex;
  bool ta = transA(), tb = transB();
  vec4 ra[A_VECS], rb[B_VECS];
  // acc[8 r + 4 q + i]: row i of block (r, q) = rows r TM / 2 + 4 ty + i,
  // columns q TN / 2 + 4 tx..+3 (constant indices: the array stays in registers).
  vec4 acc[16];
  [[unroll]] for (uint i = 0u; i < 16u; ++i) acc[i] = vec4(0.0);
  [[unroll]] for (uint l = 0u; l < A_VECS; ++l) storeA(0u, t + THREADS * l, loadA(t + THREADS * l, row0, 0u, offA, ta), ta);
  [[unroll]] for (uint l = 0u; l < B_VECS; ++l) storeB(0u, t + THREADS * l, loadB(t + THREADS * l, col0, 0u, offB, tb), tb);
  barrier();
  for (uint s = 0u; s < steps; ++s) {
    bool more = s + 1u < steps;
    if (more) {
      [[unroll]] for (uint l = 0u; l < A_VECS; ++l) ra[l] = loadA(t + THREADS * l, row0, 8u * (s + 1u), offA, ta);
      [[unroll]] for (uint l = 0u; l < B_VECS; ++l) rb[l] = loadB(t + THREADS * l, col0, 8u * (s + 1u), offB, tb);
    }
    uint buf = s & 1u;
    [[unroll]] for (uint kk = 0u; kk < 8u; ++kk) {
      vec4 a0 = sA[buf][kk][ty], a1 = sA[buf][kk][ty + TM / 8u];
      vec4 b0 = sB[buf][kk][tx], b1 = sB[buf][kk][tx + TN / 8u];
      acc[0] += a0.x * b0; acc[1] += a0.y * b0; acc[2] += a0.z * b0; acc[3] += a0.w * b0;
      acc[4] += a0.x * b1; acc[5] += a0.y * b1; acc[6] += a0.z * b1; acc[7] += a0.w * b1;
      acc[8] += a1.x * b0; acc[9] += a1.y * b0; acc[10] += a1.z * b0; acc[11] += a1.w * b0;
      acc[12] += a1.x * b1; acc[13] += a1.y * b1; acc[14] += a1.z * b1; acc[15] += a1.w * b1;
    }
    if (more) {
      [[unroll]] for (uint l = 0u; l < A_VECS; ++l) storeA(buf ^ 1u, t + THREADS * l, ra[l], ta);
      [[unroll]] for (uint l = 0u; l < B_VECS; ++l) storeB(buf ^ 1u, t + THREADS * l, rb[l], tb);
    }
    barrier();
  }
  uint offC = bz * M * N, r0 = row0 + 4u * ty, c0 = col0 + 4u * tx, r1 = r0 + TM / 2u, c1 = c0 + TN / 2u;
  storeQuad(offC, r0, c0, acc[0]);
  storeQuad(offC, r0, c1, acc[4]);
  storeQuad(offC, r0 + 1u, c0, acc[1]);
  storeQuad(offC, r0 + 1u, c1, acc[5]);
  storeQuad(offC, r0 + 2u, c0, acc[2]);
  storeQuad(offC, r0 + 2u, c1, acc[6]);
  storeQuad(offC, r0 + 3u, c0, acc[3]);
  storeQuad(offC, r0 + 3u, c1, acc[7]);
  storeQuad(offC, r1, c0, acc[8]);
  storeQuad(offC, r1, c1, acc[12]);
  storeQuad(offC, r1 + 1u, c0, acc[9]);
  storeQuad(offC, r1 + 1u, c1, acc[13]);
  storeQuad(offC, r1 + 2u, c0, acc[10]);
  storeQuad(offC, r1 + 2u, c1, acc[14]);
  storeQuad(offC, r1 + 3u, c0, acc[11]);
  storeQuad(offC, r1 + 3u, c1, acc[15]);
}
