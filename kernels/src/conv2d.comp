// conv2d: implicit GEMM. For group g, out[n, g*Mg + m, q] =
// sum_k w[g*Mg + m, k] * col[k, (n, q)], where k = (c*KH + kh)*KW + kw runs
// over Kg = Cg*KH*KW, q over the OH*OW output pixels, and col[] is the
// im2col view of x gathered on the fly. The images are folded into the
// pixel axis (N*OH*OW columns), so small late layers still fill tiles.
// Tiles: 64 channels x 64 pixels per workgroup (gemm_tile.glsl); 1x1
// unstrided unpadded convs read x directly (plain GEMM). Epilogue (bias,
// fused ops) before the store. Suits Mg >= 16; conv2d_direct.comp handles
// depthwise and thin groups.
//
// conv2d_sliced.comp is this kernel with two K slices per workgroup
// (gemm_tile.glsl's GEMM_SLICES; 512 threads).
//
// Grid: (pixel tiles, channel tiles, groups), each clamped to 65535;
// workgroups loop over the rest. Params and bindings: conv_params.glsl.
#version 450
#include "conv2d.glsl"
