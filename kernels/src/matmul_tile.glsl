// One 64x64 tile of a batched matmul over a range of K, shared by
// matmul.comp and matmul_splitk.comp. The includer declares the operand
// buffers `a` and `b` (f32; or defines B_ELEMENT(n, k) for op(B)[k, n]
// instead of `b`) and the params block with matmul.comp's layout:
// p[0] M, p[1] N, p[2] K, p[4..7] output batch dims, p[8..11] / p[12..15]
// A / B batch strides, p[36] layout bits (trans_a, trans_b). An includer
// may define ROUND_SCALAR(x) to round each operand element as it is read
// (matmul_f16_splitk.comp's portable build).
#ifndef ROUND_SCALAR
#define ROUND_SCALAR(x) (x)
#endif
#include "gemm_tile.glsl"
#include "matmul_batch.glsl"

// acc = op(A)[row0.., kBegin..kEnd) @ op(B)[kBegin..kEnd), col0..] for this
// thread's 4x4 block (with GEMM_SLICES 2: its slice's steps, summed into
// slice 0's by sumSlices); the next K step is fetched into registers while
// the current one multiplies.
void tileProduct(uint row0, uint col0, uint kBegin, uint kEnd, uint offA, uint offB, out vec4 acc[4]) {
  uint M = p[0], N = p[1], K = p[2];
  bool ta = transA(), tb = transB();
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, t = gemmThread();
  float ra[4], rb[4];
  acc = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
  uint steps = gemmSteps(kBegin, kEnd);
  for (uint i = 0; i <= steps; ++i) {
    if (i > 0) {
      barrier();  // previous multiply done with the tiles
      stageTilesT(t, ra, rb, ta, tb);
      barrier();
    }
    if (i < steps) {  // fetch step i into registers while step i-1 multiplies
      uint k0 = gemmStepK(kBegin, i);
      for (uint l = 0; l < 4; ++l) {
        uint e = t + 256 * l;
        uvec2 ca = stageA(e, ta), cb = stageB(e, tb);
        uint row = row0 + ca.x, ka = k0 + ca.y;
        ra[l] = row < M && ka < kEnd ? ROUND_SCALAR(a[offA + (ta ? ka * M + row : row * K + ka)]) : 0.0;
        uint kb = k0 + cb.x, col = col0 + cb.y;
#ifdef B_ELEMENT
        rb[l] = col < N && kb < kEnd ? B_ELEMENT(col, kb) : 0.0;  // the includer's B (qmatmul.comp: decoded)
#else
        rb[l] = col < N && kb < kEnd ? ROUND_SCALAR(b[offB + (tb ? col * K + kb : kb * N + col)]) : 0.0;
#endif
      }
    }
    if (i > 0) multiplyTiles(tx, ty, acc);
  }
  sumSlices(acc);
}
