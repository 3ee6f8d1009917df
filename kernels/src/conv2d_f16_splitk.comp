// conv2d_f16_splitk: conv2d_splitk.comp in the accelerated mode (`mgc
// compile --precision fp16`, Conv{precision="fp16"}): each element of x and
// w is rounded to fp16 as it is read, the products are summed in f32.
// Every fp16 conv runs it: K cut into slices (lower_conv.cpp's split-K
// policy, as for conv2d_splitk) or, where conv2d would not split, one
// slice of all of K; the slices add their partial tiles into `out`, and
// lower_conv.cpp brackets it with conv2d_finish (the bias before, the rest
// of the epilogue after: faster than the cooperative tile applying it).
// The sum order across slices is not fixed.
//
// Variants: `coopnv_atomicf` on cooperative matrices (conv2d_coop.glsl)
// with native float atomic adds, `coopnv` the same with the
// compare-and-swap loop (atomic_add.glsl), `atomicf` conv2d_splitk.comp's
// SIMT core with native atomics; the portable build is that core with the
// compare-and-swap loop. All round the same way.
// Grid, bindings and params: conv2d_splitk.comp's.
#version 450
// mgc-variant: coopnv_atomicf features=CooperativeMatrixNV,Float16,Subgroup,AtomicFloat32Add defines=MGC_COOP,MGC_ATOMIC_FLOAT env=vulkan1.1 msl=none subgroup=32 coop=16x16x16
// mgc-variant: coopnv features=CooperativeMatrixNV,Float16,Subgroup defines=MGC_COOP env=vulkan1.1 msl=none subgroup=32 coop=16x16x16
// mgc-variant: atomicf features=AtomicFloat32Add defines=MGC_ATOMIC_FLOAT msl=none
#ifdef MGC_COOP
#define TM 64u
#define TN 64u
#define WARPS_M 2u
#define WARPS_N 4u
#define BK 64u
#include "conv2d_coop.glsl"
#else
#include "math.glsl"
#define ROUND_SCALAR(x) roundToHalf(x)
#include "conv2d_splitk.glsl"
#endif
