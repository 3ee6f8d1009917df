// matmul_f16_large: matmul_f16.comp's product on 128x128 tiles, for
// products with many tiles (lower_matmul.cpp picks, as for matmul_large).
//
// Variants: `coopnv` on cooperative matrices (matmul_coop.glsl: 8 subgroups
// of 32 as 2 x 4, each 64x32 = 4 x 2 fragments of 16x16x16, K in 32-deep
// steps); the portable build is matmul_large.comp's SIMT core
// (matmul8.glsl, 256 threads) with fp16 rounding.
#version 450
// mgc-variant: coopnv features=CooperativeMatrixNV,Float16,Subgroup defines=MGC_COOP env=vulkan1.1 msl=none subgroup=32 coop=16x16x16
#define TM 128u
#define TN 128u
#ifdef MGC_COOP
#define WARPS_M 2u
#define WARPS_N 4u
#define BK 32u
#include "matmul_coop.glsl"
#else
layout(local_size_x = 16, local_size_y = 16) in;
// (math.glsl, which matmul8.glsl includes, defines the rounding)
#define ROUND_OPERAND(v) vec4(roundToHalf((v).x), roundToHalf((v).y), roundToHalf((v).z), roundToHalf((v).w))
#include "matmul8.glsl"
#endif
