// The 64x64 register-blocked core shared by conv2d.comp and matmul.comp:
// 256 threads, each owning a 4x4 block of the tile (rows 4*ty.., columns
// 4*tx..), K in steps of 16 through shared memory read as vec4s (2 vector
// loads per 16 FMAs). The includer stages the next K step's 4+4 elements
// in registers while the current one is multiplied (loads overlap math).
//
// Staging layout (one K step): element e = t + 256*l (l < 4) of each tile;
// A: row e / 16, k e % 16 (16 consecutive k per row: coalesced along K);
// B: k e / 64, column e % 64 (coalesced along columns); see stageA/stageB
// for operands stored transposed.
shared vec4 tileA[16][17];  // [k][row / 4], padded: fewer bank conflicts on stores
shared vec4 tileB[16][16];  // [k][column / 4]

// Where element e of a K step sits: (row, k) of the A tile and (k, column)
// of the B tile. For operands stored transposed (matmul's trans_a /
// trans_b) the runs go the other way, so loads stay coalesced: A stored
// [K, M] is read 64 consecutive rows per k, B stored [N, K] 16 consecutive
// k per column.
uvec2 stageA(uint e, bool transA) { return transA ? uvec2(e % 64, e / 64) : uvec2(e / 16, e % 16); }
uvec2 stageB(uint e, bool transB) { return transB ? uvec2(e % 16, e / 16) : uvec2(e / 64, e % 64); }

void stageTilesT(uint t, float ra[4], float rb[4], bool transA, bool transB) {
  for (uint l = 0; l < 4; ++l) {
    uint e = t + 256 * l;
    uvec2 ca = stageA(e, transA), cb = stageB(e, transB);
    tileA[ca.y][ca.x / 4][ca.x % 4] = ra[l];
    tileB[cb.x][cb.y / 4][cb.y % 4] = rb[l];
  }
}

void stageTiles(uint t, float ra[4], float rb[4]) { stageTilesT(t, ra, rb, false, false); }

void multiplyTiles(uint tx, uint ty, inout vec4 acc[4]) {
  for (uint kk = 0; kk < 16; ++kk) {
    vec4 a = tileA[kk][ty], b = tileB[kk][tx];
    acc[0] += a.x * b;
    acc[1] += a.y * b;
    acc[2] += a.z * b;
    acc[3] += a.w * b;
  }
}
