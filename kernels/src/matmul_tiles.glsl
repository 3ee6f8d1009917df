// The tile walk of the tiled matmul kernels (matmul8.glsl, matmul_coop.glsl):
// grid (tilesN, tilesM, batch) of TM x TN tiles, each clamped to 65535;
// workgroups loop over the remaining tiles / batches. The includer defines
// TM, TN, the globals offA, offB (set here per batch, matmul_batch.glsl)
// and offC, and `void tile(uint row0, uint col0, uint K)` before including.
void main() {
  uint M = p[0], N = p[1], K = p[2], batches = p[3];
  uint tilesN = (N + TN - 1u) / TN, tilesM = (M + TM - 1u) / TM;
  for (uint bz = gl_WorkGroupID.z; bz < batches; bz += gl_NumWorkGroups.z) {
    batchOffsets(bz, offA, offB);
    offC = bz * M * N;
    for (uint tm = gl_WorkGroupID.y; tm < tilesM; tm += gl_NumWorkGroups.y)
      for (uint tn = gl_WorkGroupID.x; tn < tilesN; tn += gl_NumWorkGroups.x) tile(tm * TM, tn * TN, K);
  }
}
