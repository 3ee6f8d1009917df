// matmul_medium: matmul8.glsl on 64x64 tiles (64 threads), for
// products with fewer tiles but long K (lower_matmul.cpp picks).
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
#define TM 64u
#define TN 64u
#include "matmul8.glsl"
