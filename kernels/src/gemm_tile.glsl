// The 64x64 register-blocked core shared by conv2d.comp and matmul.comp:
// 256 threads, each owning a 4x4 block of the tile (rows 4*ty.., columns
// 4*tx..), K in steps of 16 through shared memory read as vec4s (2 vector
// loads per 16 FMAs). The includer stages the next K step's 4+4 elements
// in registers while the current one is multiplied (loads overlap math).
//
// Sliced K (the includer defines GEMM_SLICES 2 and local_size_z =
// GEMM_SLICES): the workgroup is two groups of 256 threads, each with its own
// shared tiles, taking alternate K steps of the same output tile (twice
// the warps per tile, for grids too small to fill the GPU); sumSlices()
// then adds slice 1's blocks into slice 0's, which stores the tile. The K
// loop (gemmSteps / gemmStepK) gives every slice the same trip count, so
// barriers stay in uniform control flow.
//
// Staging layout (one K step): element e = t + 256*l (l < 4) of each tile;
// A: row e / 16, k e % 16 (16 consecutive k per row: coalesced along K);
// B: k e / 64, column e % 64 (coalesced along columns); see stageA/stageB
// for operands stored transposed.
#ifndef GEMM_SLICES
#define GEMM_SLICES 1
#endif
#if GEMM_SLICES > 2
#error "gemm_tile.glsl: at most 2 K slices (lavapipe's 32 KiB of shared memory)"
#endif
shared vec4 tileA[GEMM_SLICES][16][17];  // [slice][k][row / 4], padded: fewer bank conflicts on stores
shared vec4 tileB[GEMM_SLICES][16][16];  // [slice][k][column / 4]

// This invocation's K slice, and its index among the slice's 256 threads.
uint gemmSlice() {
#if GEMM_SLICES > 1
  return gl_LocalInvocationID.z;
#else
  return 0u;
#endif
}
uint gemmThread() { return gl_LocalInvocationID.x + 16u * gl_LocalInvocationID.y; }

// K steps of 16 per slice over [kBegin, kEnd), and the first k of the
// slice's step i (past kEnd on a slice's last step when the count is odd:
// its loads read zeros).
uint gemmSteps(uint kBegin, uint kEnd) { return ((kEnd - kBegin + 15u) / 16u + uint(GEMM_SLICES) - 1u) / uint(GEMM_SLICES); }
uint gemmStepK(uint kBegin, uint i) { return kBegin + 16u * (uint(GEMM_SLICES) * i + gemmSlice()); }

// Where element e of a K step sits: (row, k) of the A tile and (k, column)
// of the B tile. For operands stored transposed (matmul's trans_a /
// trans_b) the runs go the other way, so loads stay coalesced: A stored
// [K, M] is read 64 consecutive rows per k, B stored [N, K] 16 consecutive
// k per column.
uvec2 stageA(uint e, bool transA) { return transA ? uvec2(e % 64, e / 64) : uvec2(e / 16, e % 16); }
uvec2 stageB(uint e, bool transB) { return transB ? uvec2(e % 16, e / 16) : uvec2(e / 64, e % 64); }

void stageTilesT(uint t, float ra[4], float rb[4], bool transA, bool transB) {
  uint sl = gemmSlice();
  for (uint l = 0; l < 4; ++l) {
    uint e = t + 256 * l;
    uvec2 ca = stageA(e, transA), cb = stageB(e, transB);
    tileA[sl][ca.y][ca.x / 4][ca.x % 4] = ra[l];
    tileB[sl][cb.x][cb.y / 4][cb.y % 4] = rb[l];
  }
}

void stageTiles(uint t, float ra[4], float rb[4]) { stageTilesT(t, ra, rb, false, false); }

void multiplyTiles(uint tx, uint ty, inout vec4 acc[4]) {
  uint sl = gemmSlice();
  for (uint kk = 0; kk < 16; ++kk) {
    vec4 a = tileA[sl][kk][ty], b = tileB[sl][kk][tx];
    acc[0] += a.x * b;
    acc[1] += a.y * b;
    acc[2] += a.z * b;
    acc[3] += a.w * b;
  }
}

// Sliced K: slice 0's acc += slice 1's, through tileB (two vec4s of each
// thread at a time). Call in uniform control flow after the K loop; a no-op
// with one slice. Only slice 0's acc is the tile's afterwards.
void sumSlices(inout vec4 acc[4]) {
#if GEMM_SLICES > 1
  uint t = gemmThread(), sl = gemmSlice();
  for (uint h = 0u; h < 4u; h += 2u) {
    barrier();  // the last multiply (or the previous round) is done with tileB
    for (uint i = 0u; i < 2u; ++i) {
      uint j = 2u * t + i;
      if (sl == 1u) tileB[j / 256u][(j / 16u) % 16u][j % 16u] = acc[h + i];
    }
    barrier();
    for (uint i = 0u; i < 2u; ++i) {
      uint j = 2u * t + i;
      if (sl == 0u) acc[h + i] += tileB[j / 256u][(j / 16u) % 16u][j % 16u];
    }
  }
  barrier();  // tileB is free for the next tile's staging
#endif
}
