// attention_tiled32: attention_tiled.comp with 32 query rows per
// workgroup, for grids of few 64-row blocks: twice the workgroups, so that
// a GPU's multiprocessors share them evenly (Whisper's 6 heads x 24 blocks
// of 64 rows left 12 of 132 with two). Its keys are split between two
// slices of 128 invocations (KV_SLICES): each walks every other 32-key
// block with its own K / V and p buffers, and the slices' maxima, sums and
// outputs meet once at the end (split-KV inside the workgroup: 8 warps per
// 32 rows instead of 4, for GPUs these grids leave latency-bound). 32 KiB
// of shared memory, 256 invocations. kernels/lower_attention.cpp picks it.
// Bindings, params and grid: attention_tiled.comp's.
#version 450
#define BR 32
#define BC 32
#define KV_SLICES 2
#include "attention_tiled.glsl"
