// conv2d_large_splitk: conv2d_large.comp with K split over workgroups
// (conv2d_large.glsl's SPLIT_K), whose slices add into `out` with float
// atomics (atomic_add.glsl: native in the `atomicf` variant). Grid:
// (pixel tiles, channel tiles, groups * slices). Bindings and params:
// conv2d_splitk.comp's (p[18] a multiple of 8).
// mgc-variant: atomicf features=AtomicFloat32Add defines=MGC_ATOMIC_FLOAT msl=none
#version 450
#define SPLIT_K
#include "conv2d_large.glsl"
