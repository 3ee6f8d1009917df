// matmul_bf16: matmul.comp's product in the accelerated mode's bf16 form
// (`mgc compile --precision bf16`, MatMul{precision="bf16"}): each operand
// element is rounded to bfloat16 (to nearest, ties to even) as it is read,
// the products are accumulated in f32, the fused epilogue runs in f32.
// Tensors stay f32 in memory.
//
// Only the portable SIMT build exists (matmul8.glsl on 64x64 tiles): a
// bfloat16 cooperative matrix needs GL_EXT_bfloat16 / VK_KHR_shader_bfloat16,
// which Debian 12's glslang and Vulkan headers predate.
//
// Grid, bindings and params: matmul_f16.comp's.
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
#define TM 64u
#define TN 64u
// (math.glsl, which matmul8.glsl includes, defines the rounding)
#define ROUND_OPERAND(v) vec4(roundToBf16((v).x), roundToBf16((v).y), roundToBf16((v).z), roundToBf16((v).w))
#include "matmul8.glsl"
