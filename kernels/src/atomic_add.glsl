// A float add into `outBits` (a uint buffer the includer declares) by
// compare-and-swap: core GLSL 450, no atomic-float extension. Used by the
// split-K GEMM kernels (conv2d_splitk.comp, conv2d_grad_gemm.comp).
void atomicAddFloat(uint o, float v) {
  uint seen = outBits[o];
  for (;;) {
    uint prev = atomicCompSwap(outBits[o], seen, floatBitsToUint(uintBitsToFloat(seen) + v));
    if (prev == seen) break;
    seen = prev;
  }
}
