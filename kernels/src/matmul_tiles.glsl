// The tile walk of the tiled matmul kernels (matmul8.glsl, matmul_coop.glsl,
// matmul_splitk.glsl): grid (tilesN, tilesM, batch) of TM x TN tiles, each
// clamped to 65535; workgroups loop over the remaining tiles / batches. The
// includer defines TM, TN, the globals offA, offB (set here per batch,
// matmul_batch.glsl) and offC, and `void tile(uint row0, uint col0, uint
// K)` before including; with SPLIT_K, grid z walks batch * slices (p[37]
// slices of p[38] k values, a multiple of the core's k step) and the includer defines
// `void tileRange(uint row0, uint col0, uint kBegin, uint kEnd)` instead.
void main() {
  uint M = p[0], N = p[1], K = p[2], batches = p[3];
#ifdef SPLIT_K
  uint slices = p[37], kLen = p[38];
#else
  uint slices = 1u, kLen = K;
#endif
  uint tilesN = (N + TN - 1u) / TN, tilesM = (M + TM - 1u) / TM;
  for (uint gz = gl_WorkGroupID.z; gz < batches * slices; gz += gl_NumWorkGroups.z) {
    uint bz = gz / slices, kBegin = (gz % slices) * kLen, kEnd = min(K, kBegin + kLen);
    batchOffsets(bz, offA, offB);
    offC = bz * M * N;
    for (uint tm = gl_WorkGroupID.y; tm < tilesM; tm += gl_NumWorkGroups.y)
      for (uint tn = gl_WorkGroupID.x; tn < tilesN; tn += gl_NumWorkGroups.x) {
#ifdef SPLIT_K
        tileRange(tm * TM, tn * TN, kBegin, kEnd);
#else
        tile(tm * TM, tn * TN, K);
#endif
      }
  }
}
