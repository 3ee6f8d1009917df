// matmul_f16: matmul.comp's product in the accelerated mode (`mgc compile
// --precision fp16`, MatMul{precision="fp16"}): each operand element is
// rounded to fp16 as it is read, the products are accumulated in f32, the
// fused epilogue runs in f32. Tensors stay f32 in memory.
//
// Variants: `coopnv` multiplies on the GPU's cooperative matrix units
// (matmul_coop.glsl: 16x16x16 fp16 fragments, 4 subgroups of 32 with 32x32
// each, K in 64-deep steps); the portable build is matmul8.glsl's SIMT
// core on 64x64 tiles with the same rounding, so both compute the same
// products up to f32 summation order. matmul_f16_large.comp: the same on
// 128x128 tiles.
//
// Grid: (tilesN, tilesM, batch) of 64x64 tiles, each clamped to 65535;
// workgroups loop over the remaining tiles / batches.
// Bindings and params: matmul.comp's; op(A)'s and op(B)'s stored rows are
// whole vec4s (lower_matmul.cpp checks, as for matmul_large).
#version 450
// mgc-variant: coopnv features=CooperativeMatrixNV,Float16,Subgroup defines=MGC_COOP env=vulkan1.1 msl=none subgroup=32 coop=16x16x16
#define TM 64u
#define TN 64u
#ifdef MGC_COOP
#define WARPS_M 2u
#define WARPS_N 2u
#define BK 64u
#include "matmul_coop.glsl"
#else
layout(local_size_x = 8, local_size_y = 8) in;
// (math.glsl, which matmul8.glsl includes, defines the rounding)
#define ROUND_OPERAND(v) vec4(roundToHalf((v).x), roundToHalf((v).y), roundToHalf((v).z), roundToHalf((v).w))
#include "matmul8.glsl"
#endif
