// The split-K kernels' output (binding 3, f32; ATOMIC_OUT_BINDING) and a float add into it:
// `atomicAddFloat(o, v)` adds v to element o, `storeFloat(o, v)` writes it.
// Included by matmul_splitk.glsl, conv2d_splitk.comp, conv2d_grad_gemm.comp
// and matmul_coop.glsl (split-K).
//
// MGC_ATOMIC_FLOAT (the `atomicf` variants, feature AtomicFloat32Add:
// VK_EXT_shader_atomic_float): one native atomicAdd, which the GPU performs
// at the L2 without returning the old value. Portable builds: core GLSL 450,
// a compare-and-swap loop on the float's bits.
#ifndef ATOMIC_OUT_BINDING
#define ATOMIC_OUT_BINDING 3  // the includer may place it elsewhere
#endif
#ifdef MGC_ATOMIC_FLOAT
#extension GL_EXT_shader_atomic_float : require
layout(std430, set = 0, binding = ATOMIC_OUT_BINDING) buffer Out { float outSum[]; };
void atomicAddFloat(uint o, float v) { atomicAdd(outSum[o], v); }
void storeFloat(uint o, float v) { outSum[o] = v; }
#else
layout(std430, set = 0, binding = ATOMIC_OUT_BINDING) buffer Out { uint outBits[]; };
void atomicAddFloat(uint o, float v) {
  uint seen = outBits[o];
  for (;;) {
    uint prev = atomicCompSwap(outBits[o], seen, floatBitsToUint(uintBitsToFloat(seen) + v));
    if (prev == seen) break;
    seen = prev;
  }
}
void storeFloat(uint o, float v) { outBits[o] = floatBitsToUint(v); }
#endif
