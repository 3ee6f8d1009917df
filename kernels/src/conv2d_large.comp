// conv2d_large: conv2d.comp on 128x128 tiles of the 8x8-per-thread core
// (conv2d_large.glsl). Grid: (pixel tiles, channel tiles, groups).
// Params and bindings: conv_params.glsl.
#version 450
#include "conv2d_large.glsl"
