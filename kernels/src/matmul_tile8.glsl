// The 8x8-per-thread GEMM core of matmul_large / matmul_medium (matmul8.glsl):
// a TM x TN output tile (the includer defines TM, TN in {64, 128} and
// local_size = (TN / 8, TM / 8)), each thread owning four 4x4 blocks TM / 2
// rows and TN / 2 columns apart (so the threads of a warp read distinct
// vec4s of a shared row: no bank conflicts): 64 FMAs per 4 shared vec4
// reads (gemm_tile.glsl's 4x4: 16 per 2). K in steps of 8 through two
// shared buffers: the next step is loaded into registers while this one
// multiplies, then stored into the other buffer: one barrier per step.
// The includer enables GL_EXT_control_flow_attributes and defines the
// operands: tileA / tileB return vec4 e of a K step (k0..k0+7) of the A
// tile (rows row0..) and the B tile (columns col0..), zero outside and
// from kEnd on, laid out as A_KMAJOR / B_KMAJOR say (below); tileOut takes
// four outputs of a row from column `col` on.
vec4 tileA(uint e, uint row0, uint k0, uint kEnd);
vec4 tileB(uint e, uint col0, uint k0, uint kEnd);
void tileOut(uint row, uint col, vec4 v);

#define THREADS (TM * TN / 64u)
#define A_VECS (128u / TN)  // vec4s of A's tile per thread and step
#define B_VECS (128u / TM)

// [buffer][k][row / 4] and [buffer][k][column / 4]; A's rows padded: its
// scalar stores (A stored [M, K]) hit distinct banks.
shared vec4 sA[2][8][TM / 4u + 1u];
shared vec4 sB[2][8][TN / 4u];

// How tileA / tileB's vec4s cover a K step. A row-major (A_KMAJOR false):
// vec4 e = row e / 2, k 4 (e % 2)..+3; k-major: k e / (TM / 4), rows
// 4 (e % (TM / 4))..+3. B k-major (B_KMAJOR true): k e / (TN / 4), columns
// 4 (e % (TN / 4))..+3; column-major: column e / 2, k 4 (e % 2)..+3.
void storeA(uint buf, uint e, vec4 v) {
  if (A_KMAJOR) {
    sA[buf][e / (TM / 4u)][e % (TM / 4u)] = v;
    return;
  }
  uint r = e / 2u, k = 4u * (e % 2u), r4 = r / 4u, ri = r % 4u;
  sA[buf][k][r4][ri] = v.x;
  sA[buf][k + 1u][r4][ri] = v.y;
  sA[buf][k + 2u][r4][ri] = v.z;
  sA[buf][k + 3u][r4][ri] = v.w;
}

void storeB(uint buf, uint e, vec4 v) {
  if (B_KMAJOR) {
    sB[buf][e / (TN / 4u)][e % (TN / 4u)] = v;
    return;
  }
  uint col = e / 2u, k = 4u * (e % 2u), c4 = col / 4u, ci = col % 4u;
  sB[buf][k][c4][ci] = v.x;
  sB[buf][k + 1u][c4][ci] = v.y;
  sB[buf][k + 2u][c4][ci] = v.z;
  sB[buf][k + 3u][c4][ci] = v.w;
}

// The tile at (row0, col0): its product over k in [kBegin, kEnd), handed
// to tileOut.
void tile8(uint row0, uint col0, uint kBegin, uint kEnd) {
  uint steps = (kEnd - kBegin + 7u) / 8u;
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, t = gl_LocalInvocationIndex;
  vec4 ra[A_VECS], rb[B_VECS];
  // acc[8 r + 4 q + i]: row i of block (r, q) = rows r TM / 2 + 4 ty + i,
  // columns q TN / 2 + 4 tx..+3 (constant indices: the array stays in registers).
  vec4 acc[16];
  [[unroll]] for (uint i = 0u; i < 16u; ++i) acc[i] = vec4(0.0);
  [[unroll]] for (uint l = 0u; l < A_VECS; ++l) storeA(0u, t + THREADS * l, tileA(t + THREADS * l, row0, kBegin, kEnd));
  [[unroll]] for (uint l = 0u; l < B_VECS; ++l) storeB(0u, t + THREADS * l, tileB(t + THREADS * l, col0, kBegin, kEnd));
  barrier();
  for (uint s = 0u; s < steps; ++s) {
    bool more = s + 1u < steps;
    if (more) {
      [[unroll]] for (uint l = 0u; l < A_VECS; ++l) ra[l] = tileA(t + THREADS * l, row0, kBegin + 8u * (s + 1u), kEnd);
      [[unroll]] for (uint l = 0u; l < B_VECS; ++l) rb[l] = tileB(t + THREADS * l, col0, kBegin + 8u * (s + 1u), kEnd);
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
      [[unroll]] for (uint l = 0u; l < A_VECS; ++l) storeA(buf ^ 1u, t + THREADS * l, ra[l]);
      [[unroll]] for (uint l = 0u; l < B_VECS; ++l) storeB(buf ^ 1u, t + THREADS * l, rb[l]);
    }
    barrier();
  }
  uint r0 = row0 + 4u * ty, c0 = col0 + 4u * tx, r1 = r0 + TM / 2u, c1 = c0 + TN / 2u;
  tileOut(r0, c0, acc[0]);
  tileOut(r0, c1, acc[4]);
  tileOut(r0 + 1u, c0, acc[1]);
  tileOut(r0 + 1u, c1, acc[5]);
  tileOut(r0 + 2u, c0, acc[2]);
  tileOut(r0 + 2u, c1, acc[6]);
  tileOut(r0 + 3u, c0, acc[3]);
  tileOut(r0 + 3u, c1, acc[7]);
  tileOut(r1, c0, acc[8]);
  tileOut(r1, c1, acc[12]);
  tileOut(r1 + 1u, c0, acc[9]);
  tileOut(r1 + 1u, c1, acc[13]);
  tileOut(r1 + 2u, c0, acc[10]);
  tileOut(r1 + 2u, c1, acc[14]);
  tileOut(r1 + 3u, c0, acc[11]);
  tileOut(r1 + 3u, c1, acc[15]);
}
