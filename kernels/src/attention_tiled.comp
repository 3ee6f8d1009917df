// attention_tiled: attention.comp's op (out = softmax(q kᵀ * scale + mask)
// v over the keys) for long query sequences, flash-attention style: a
// workgroup owns 64 query rows of one batch, walks the keys in blocks of
// BC, and keeps a running max and sum per row, so the scores never reach
// memory and K and V are read once per 64 queries (attention.comp reads
// them once per query row). kernels/lower_attention.cpp picks it for heads
// D, Dv <= 64, multiples of 4, and at least kTiledFromRows query rows.
//
// Per block: K's block staged into shared memory transposed ([d][key]), S =
// q kᵀ as 4x4 register blocks (invocation (tx, ty): rows 4 ty.., keys
// CPT tx..), scale and mask, the rows' new max from the 16 invocations
// that share a row (through shared memory: no subgroup operations), the
// weights p = exp(s - max) into shared memory as [key][row], the sums and
// the output rescaled by exp(old max - new max), V's block staged, and o
// += p v as 4x4 blocks (rows 4 ty.., columns 4 tx..). The row sums stay
// per invocation (its own keys) and meet once at the end. K's and V's
// blocks pass through registers, loaded a phase ahead (the next K block
// during o += p v, V during the scores).
//
// Shared memory: q's 64 rows (16 KiB), a K / V block of 64 x BC floats,
// p of BC x 64: 32 KiB for the portable BC = 32 (lavapipe's limit), 48
// KiB for variant `wide` (BC = 64; devices with that much per workgroup).
// Variant `subgroup` (attention_tiled_sg.glsl; subgroups of 32): 32 rows
// per workgroup (a grid of 64-row blocks loops over them), the row quads'
// max and sums by shuffles, two barriers per key block instead of five.
//
// Masks as attention.glsl: a key whose mask is <= -1e30 scores exactly its
// mask. A row whose scores are all -inf gets 0 / 0 (NaN), as softmax.
//
// Bindings and params: attention.comp's (q [B, T, D], k [Bk, S, D], v [Bk,
// S, Dv], mask [T, S], out [B, T, Dv]; p[0] rows, p[1] T, p[2] S, p[3] D,
// p[4] Dv, p[5] scale, p[6] has mask, p[7..12] q's leading dims, p[13..18]
// k's batch strides, p[19..22] the heads between q's, k's, v's, out's rows:
// tokens-major operands). Grid: (query blocks, batches), clamped; workgroups
// loop over the rest. Specialized copies: D, Dv and has-mask constant.
// mgc-variant: subgroup features=Subgroup defines=MGC_SUBGROUP,BR=32 env=vulkan1.1 msl=20100 subgroup=32
// mgc-variant: wide defines=BC=64
#version 450
#ifdef MGC_SUBGROUP
#include "attention_tiled_sg.glsl"
#else
#include "attention_tiled.glsl"
#endif
