// attention_cache: a decoder layer's attention over its KV cache in one
// dispatch (AttentionCache, ir/ops.def): RoPE on the query row as it loads,
// the chunk's keys (rotated) and values taken at cache positions
// [offset, offset + T) from k / v, the cache for the other positions, and
// the chunk's rows written into the cache in place. The online softmax is
// attention.glsl's.
//
// No race: no workgroup reads the cache at [offset, offset + T) (it uses
// k / v there), and each of those rows is written once, by the workgroup of
// the first query head of its K/V head (query row t writes cache row
// offset + t). An offset outside [0, S - T] writes nothing and every key
// comes from the cache (StateWrite's guard).
//
// The chunk's keys are rotated once, into shared memory (when T * D <=
// 2048: a decode step's one row, a prefill chunk of up to 32 rows of 64),
// for the products and the cache write alike; larger chunks rotate them as
// they are read. Specialized copies: D, Dv and has-mask are constants.
//
// Bindings: 1 = q [B, H, T, D], 2 = k [B, KV, T, D], 3 = v [B, KV, T, Dv],
//   4 = offset (one i32 word), 5 = cos [T, D], 6 = signed_sin [T, D],
//   7 = mask [T, S] (q when there is none), 8 = out [B, H, T, Dv],
//   9 = k cache [B, KV, S, D], 10 = v cache [B, KV, S, Dv] (read and
//   written: the memory plan gives the results their states' bytes); f32.
// Params:
//   p[0] rows (B * H * T)  p[1] T  p[2] S  p[3] D (even, <= 512)
//   p[4] Dv (<= 512)  p[5] scale (f32 bits)  p[6] has mask (0/1)  p[7] H
//   p[8] G = H / KV
// Variant `subgroup` (devices with subgroup arithmetic): the workgroup's
// max and sums by subgroup operations, 2 barriers each instead of 9
// (rows.glsl, attention.glsl).
// mgc-variant: subgroup features=Subgroup defines=MGC_SUBGROUP env=vulkan1.1 msl=20100
#version 450
#extension GL_EXT_control_flow_attributes : require
#ifdef MGC_SUBGROUP
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
#endif
layout(local_size_x = 128) in;
layout(std430, set = 0, binding = 8) writeonly buffer Out { float outv[]; };
#define CACHE_BINDING 9
#define ATTN_OUT_BASE(row) ((row) * PARAM(4))
#define ATTN_AFTER_ROW(row, part)
#include "attention_cache.glsl"
