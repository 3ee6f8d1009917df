// attention_tiled32: attention_tiled.comp with 32 query rows per
// workgroup (128 invocations) and 64-key blocks (32 KiB of shared memory),
// for grids of few 64-row blocks: twice the workgroups, so that a GPU's
// multiprocessors share them evenly (Whisper's 6 heads x 24 blocks of 64
// rows left 12 of 132 with two). kernels/lower_attention.cpp picks it.
// Bindings, params and grid: attention_tiled.comp's.
#version 450
#define BR 32
#define BC 64
#include "attention_tiled.glsl"
