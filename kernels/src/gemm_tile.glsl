// The 64x64 register-blocked core shared by conv2d.comp and matmul.comp:
// 256 threads, each owning a 4x4 block of the tile (rows 4*ty.., columns
// 4*tx..), K in steps of 16 through shared memory read as vec4s (2 vector
// loads per 16 FMAs). The includer stages the next K step's 4+4 elements
// in registers while the current one is multiplied (loads overlap math).
//
// Staging layout (one K step): element e = t + 256*l (l < 4) of each tile;
// A: row e / 16, k e % 16 (16 consecutive k per row: coalesced along K);
// B: k e / 64, column e % 64 (coalesced along columns).
shared vec4 tileA[16][17];  // [k][row / 4], padded: fewer bank conflicts on stores
shared vec4 tileB[16][16];  // [k][column / 4]

void stageTiles(uint t, float ra[4], float rb[4]) {
  for (uint l = 0; l < 4; ++l) {
    uint e = t + 256 * l;
    uint row = e / 16, ka = e % 16;
    tileA[ka][row / 4][row % 4] = ra[l];
    uint kb = e / 64, col = e % 64;
    tileB[kb][col / 4][col % 4] = rb[l];
  }
}

void multiplyTiles(uint tx, uint ty, inout vec4 acc[4]) {
  for (uint kk = 0; kk < 16; ++kk) {
    vec4 a = tileA[kk][ty], b = tileB[kk][tx];
    acc[0] += a.x * b;
    acc[1] += a.y * b;
    acc[2] += a.z * b;
    acc[3] += a.w * b;
  }
}
