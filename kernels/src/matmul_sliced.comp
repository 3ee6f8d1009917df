// matmul_sliced: matmul.comp with two K slices per workgroup (512
// threads; gemm_tile.glsl's GEMM_SLICES): two groups of 256 threads take
// alternate K steps of one 64x64 tile and add their blocks before the
// store. For grids of too few tiles to fill a big GPU over a K too short
// to split across workgroups (kernels/lower_matmul.cpp picks): twice the
// warps per multiprocessor, without split-K's extra passes and atomics.
// Grid, bindings and params: matmul.comp's.
// The portable build is the plain 256-thread core (devices that allow
// fewer than 512 invocations per workgroup run it).
// mgc-variant: x2 defines=GEMM_SLICES=2
#version 450
#include "matmul.glsl"
