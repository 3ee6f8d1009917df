// matmul_splitk: matmul.comp with K split into slices that run as separate
// workgroups, for products with too few 64x64 output tiles to fill a big
// GPU but a long K (a language model's logits gradient: [128 tokens, 576]
// = 18 tiles over K = 49152). Each workgroup computes one tile over one K
// slice and adds it into `out` with a float atomic add (atomic_add.glsl:
// native in the `atomicf` variant, compare-and-swap in the portable build).
// kernels/lower_matmul.cpp brackets it with conv2d_finish: mode 0 starts
// `out` at the epilogue's leading adds (0 without) before, mode 1 (only
// when the epilogue goes on past them) applies the rest after. The sum
// order across slices is not fixed: results may differ in the last bits
// from run to run.
//
// Grid: (tilesN, tilesM, batch * slices), each clamped to 65535;
// workgroups loop over the rest.
// Bindings: 1 = A, 2 = B, 3 = out (f32 bits, read-modify-write).
// Params: p[0..15] and p[36] as matmul.comp (p[16..35], the epilogue, is
// conv2d_finish's business), p[37] slices, p[38] K per slice (a multiple
// of 16).
// mgc-variant: atomicf features=AtomicFloat32Add defines=MGC_ATOMIC_FLOAT msl=none
#version 450
#include "matmul_splitk.glsl"
