// conv2d_sliced: conv2d.comp with two K slices per workgroup (512
// threads; gemm_tile.glsl's GEMM_SLICES): two groups of 256 threads take
// alternate K steps of one 64x64 tile and add their blocks before the
// store. For convs whose tiles are too few to fill a big GPU
// (kernels/lower_conv.cpp picks): twice the warps per multiprocessor,
// without split-K's extra passes and atomics. Grid, bindings and params:
// conv2d.comp's.
// The portable build is the plain 256-thread core (devices that allow
// fewer than 512 invocations per workgroup run it).
// mgc-variant: x2 defines=GEMM_SLICES=2
#version 450
#include "conv2d.glsl"
