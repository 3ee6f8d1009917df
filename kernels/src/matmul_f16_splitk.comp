// matmul_f16_splitk: matmul_splitk.comp in the accelerated mode, for fp16
// products with too few 64x64 tiles to fill the GPU (a language model's
// projections over 128 tokens: 18 tiles, K = 576): K is cut into slices
// that run as separate workgroups and add their partial tiles into `out`;
// lower_matmul.cpp brackets it with conv2d_finish (zero before, the fused
// epilogue after). Operands rounded to fp16 as read, f32 sums. The sum
// order across slices is not fixed: results may differ in the last bits
// from run to run.
//
// Variants: `coopnv` on cooperative matrices (matmul_coop.glsl with
// SPLIT_K, matmul_f16.comp's 64x64 tiles of 4 subgroups), `coopnv_atomicf`
// the same with native float atomic adds (atomic_add.glsl), `atomicf` the
// portable core with them; the portable build is matmul_splitk.comp's
// core with fp16 rounding.
// Grid, bindings and params: matmul_splitk.comp's.
#version 450
// mgc-variant: coopnv_atomicf features=CooperativeMatrixNV,Float16,Subgroup,AtomicFloat32Add defines=MGC_COOP,MGC_ATOMIC_FLOAT env=vulkan1.1 msl=none subgroup=32 coop=16x16x16
// mgc-variant: coopnv features=CooperativeMatrixNV,Float16,Subgroup defines=MGC_COOP env=vulkan1.1 msl=none subgroup=32 coop=16x16x16
// mgc-variant: atomicf features=AtomicFloat32Add defines=MGC_ATOMIC_FLOAT msl=none
#define TM 64u
#define TN 64u
#ifdef MGC_COOP
#define WARPS_M 2u
#define WARPS_N 2u
#define BK 64u
#define SPLIT_K
#include "matmul_coop.glsl"
#else
#include "math.glsl"
#define ROUND_SCALAR(x) roundToHalf(x)
#include "matmul_splitk.glsl"
#endif
