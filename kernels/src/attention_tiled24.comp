// attention_tiled24: attention_tiled.comp with 24 query rows per
// workgroup (96 invocations) and 64-key blocks (32 KiB of shared memory),
// for grids of few 64-row blocks: more, smaller workgroups, so that a big
// GPU's multiprocessors share them evenly. Whisper's 6 heads x 1500 rows:
// 282 workgroups of 32 rows left 18 of the H100's 132 multiprocessors with
// 3 while the rest had 2; 378 of 24 rows give most 3 (its forward 2.734 →
// 2.653 ms; 20 rows: 3.025, 28 rows: 2.703; bench/ab.py, H100).
// kernels/lower_attention.cpp picks it.
// Variant `subgroup`: attention_tiled_sg.glsl's body (attention_tiled.comp).
// Bindings, params and grid: attention_tiled.comp's.
// mgc-variant: subgroup features=Subgroup defines=MGC_SUBGROUP env=vulkan1.1 msl=20100 subgroup=32
#version 450
#define BR 24
#define BC 64
#ifdef MGC_SUBGROUP
#include "attention_tiled_sg.glsl"
#else
#include "attention_tiled.glsl"
#endif
