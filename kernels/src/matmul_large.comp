// matmul_large: matmul8.glsl on 128x128 tiles (256 threads), for products with many tiles: a
// small grid of large tiles leaves SMs idle (lower_matmul.cpp picks).
#version 450
layout(local_size_x = 16, local_size_y = 16) in;
#define TM 128u
#define TN 128u
#include "matmul8.glsl"
