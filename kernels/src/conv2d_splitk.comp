// conv2d_splitk: conv2d.comp's implicit GEMM with K (= Cg*KH*KW) split into
// slices that run as separate workgroups, for convs with too few output
// tiles to fill a big GPU (late layers: 7x7 or 14x14 pixels, many input
// channels). Each workgroup computes one 64x64 tile over one K slice and
// adds it into `out` with a float atomic add (atomic_add.glsl: native in
// the `atomicf` variant, compare-and-swap in the portable build).
// kernels/lower_conv.cpp brackets it with conv2d_finish: mode 0 starts
// `out` at the bias plus the epilogue's leading adds before, mode 1 (only
// when the epilogue goes on past them) applies the rest after. The sum
// order across slices is not fixed: results may differ in the last bits
// from run to run.
//
// Grid: (pixel tiles, channel tiles, groups * slices), each clamped to
// 65535; workgroups loop over the rest.
// Bindings: 1 = x, 2 = w, 3 = out (f32 bits, read-modify-write).
// Params: p[0..16] as conv_params.glsl (p[16]'s bias bit is conv2d_finish's
// business, its relu_input bit this kernel's), p[17] slices, p[18] K per
// slice (a multiple of 16).
// mgc-variant: atomicf features=AtomicFloat32Add defines=MGC_ATOMIC_FLOAT msl=none
#version 450
#include "conv2d_splitk.glsl"
