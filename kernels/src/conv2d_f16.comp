// conv2d_f16: conv2d.comp in the accelerated mode (`mgc compile --precision
// fp16`, Conv{precision="fp16"}): each element of x and w is rounded to
// fp16 as it is read, the products are summed in f32, the bias and the
// fused epilogue run in f32. Tensors stay f32 in memory.
//
// Variants: `coopnv` multiplies on the GPU's cooperative matrix units
// (conv2d_coop.glsl: 64x64 tiles of 4 subgroups of 32, 16x16x16 fp16
// fragments, K in 64-deep steps); the portable build is conv2d.comp's SIMT
// core with the same rounding, so both compute the same products up to f32
// summation order.
//
// Grid, bindings and params: conv2d.comp's; Kg = C/groups*KH*KW is a
// multiple of 4 (ir/conv.h: convLowPrecisionRefusal).
#version 450
// mgc-variant: coopnv features=CooperativeMatrixNV,Float16,Subgroup defines=MGC_COOP env=vulkan1.1 msl=none subgroup=32 coop=16x16x16
#ifdef MGC_COOP
#define TM 64u
#define TN 64u
#define WARPS_M 2u
#define WARPS_N 4u
#define BK 64u
#include "conv2d_coop.glsl"
#else
#define ROUND_SCALAR(x) roundToHalf(x)
#include "conv2d.glsl"
#endif
