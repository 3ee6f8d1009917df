// Float adds into `outBits` (a uint buffer the includer declares) by
// compare-and-swap: core GLSL 450, no atomic-float extension. Used by the
// split-K GEMM kernels (matmul_splitk.glsl, conv2d_splitk.comp,
// conv2d_grad_gemm.comp, matmul_coop.glsl).
#extension GL_EXT_control_flow_attributes : enable

// One add: a read, then swaps until no other workgroup got in between.
void atomicAddFloat(uint o, float v) {
  uint seen = outBits[o];
  for (;;) {
    uint prev = atomicCompSwap(outBits[o], seen, floatBitsToUint(uintBitsToFloat(seen) + v));
    if (prev == seen) break;
    seen = prev;
  }
}

// A thread's 4x4 block of adds, v[k] into outBits[o[k]] for each bit k of
// `live`, in rounds: each round issues the swaps of every pending element
// back to back (16 atomics in flight, not one read-then-swap round trip
// after another), guessing 0 — the zeroed output — for the first, so the
// first slice to arrive at a zeroed element needs one round trip. A swap
// that meets another value retries with it next round.
void atomicAddFloat16(uint o[16], float v[16], uint live) {
  uint seen[16];
  [[unroll]] for (uint k = 0u; k < 16u; ++k) seen[k] = 0u;
  while (live != 0u) {
    uint retry = 0u;
    [[unroll]] for (uint k = 0u; k < 16u; ++k) {
      if ((live & (1u << k)) != 0u) {
        uint prev = atomicCompSwap(outBits[o[k]], seen[k], floatBitsToUint(uintBitsToFloat(seen[k]) + v[k]));
        if (prev != seen[k]) {
          seen[k] = prev;
          retry |= 1u << k;
        }
      }
    }
    live = retry;
  }
}
