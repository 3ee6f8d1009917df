// conv2d_large.comp / conv2d_large_splitk.comp: conv2d.comp's implicit GEMM
// on 128x128 tiles (128 output channels x 128 pixels, images folded into
// the pixel axis) of matmul_tile8.glsl's 8x8-per-thread core: 64 FMAs per
// 4 shared vec4 reads and one barrier per K step of 8, against the 64x64
// core's 16 per 2 and two per 16. Each thread stages the same 4 pixels at
// every K step, so their image, row and column are worked out once per
// tile. For convs with >= 128 output channels per group (lower_conv.cpp
// picks).
//
// SPLIT_K (conv2d_large_splitk.comp): grid z walks groups * slices (p[17]
// slices of p[18] k values, a multiple of 8), each slice adding its sums
// into `out` with a float atomic add, between conv2d_finish's passes as
// conv2d_splitk.comp. Bindings and params then conv2d_splitk.comp's; else
// conv2d.comp's (conv_params.glsl; bias and fused epilogue before the
// store).
//
// Grid: (pixel tiles, channel tiles, groups [* slices]), each clamped to
// 65535; workgroups loop over the rest.
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 16, local_size_y = 16) in;
#include "common.glsl"
#ifdef SPLIT_K
#include "conv_spec.glsl"
layout(std430, set = 0, binding = 1) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Wt { float w[]; };
#include "atomic_add.glsl"  // binding 3: out
#else
#include "conv_params.glsl"
#endif

#define TM 128u
#define TN 128u
#define A_KMAJOR false
#define B_KMAJOR true
#include "matmul_tile8.glsl"

uint groupNow, kBase, kLimit;  // the tile's group and K range [kBase, kLimit)
// The 4 pixels this thread stages (columns 4 (t % 32).. of the tile): the
// offset of their image's first channel of the group in x, their top-left
// input row and column (padding subtracted), and whether they exist.
uint pixImage[4];
int pixRow[4], pixCol[4];
bool pixOk[4];

void preparePixels(uint col0) {
  uint OW = convParam(6), P = convParam(5) * OW, cols = convParam(0) * P, HW = convParam(2) * convParam(3);
  uint Cg = convParam(1) / convParam(15);
  [[unroll]] for (uint i = 0u; i < 4u; ++i) {
    uint c = col0 + 4u * (gl_LocalInvocationIndex % 32u) + i;
    pixOk[i] = c < cols;
    uint n = pixOk[i] ? c / P : 0u, q = c % P;
    pixImage[i] = (n * convParam(1) + groupNow * Cg) * HW;
    pixRow[i] = int((q / OW) * convParam(9)) - int(convParam(11));
    pixCol[i] = int((q % OW) * convParam(10)) - int(convParam(12));
  }
}

// Weights, row-major [M, Kg] per group: vec4 e of a K step is row e / 2,
// k 4 (e % 2)..+3.
vec4 tileA(uint e, uint row0, uint k0) {
  uint Mg = convParam(4) / convParam(15), Kg = (convParam(1) / convParam(15)) * convParam(7) * convParam(8);
  uint row = row0 + e / 2u, k = kBase + k0 + 4u * (e % 2u);
  vec4 v = vec4(0.0);
  if (row >= Mg) return v;
  uint at = (groupNow * Mg + row) * Kg + k;
  [[unroll]] for (uint i = 0u; i < 4u; ++i)
    if (k + i < kLimit) v[i] = w[at + i];
  return v;
}

// The im2col view, k-major: vec4 e (= this thread's index) of a K step is
// k e / 32, the thread's 4 pixels.
vec4 tileB(uint e, uint col0, uint k0) {
  uint k = kBase + k0 + e / 32u;
  vec4 v = vec4(0.0);
  if (k >= kLimit) return v;
  uint KW = convParam(8), taps = convParam(7) * KW, c = k / taps, tap = k % taps;
  int dh = int((tap / KW) * convParam(13)), dw = int((tap % KW) * convParam(14));
  uint H = convParam(2), W = convParam(3), at = c * H * W;
  [[unroll]] for (uint i = 0u; i < 4u; ++i) {
    int ih = pixRow[i] + dh, iw = pixCol[i] + dw;
    if (pixOk[i] && ih >= 0 && iw >= 0 && ih < int(H) && iw < int(W))
      v[i] = x[pixImage[i] + at + uint(ih) * W + uint(iw)];
  }
  return v;
}

// Four outputs: channel `row` of the group, pixels col..col+3.
void tileOut(uint row, uint col, vec4 v) {
  uint Mg = convParam(4) / convParam(15), P = convParam(5) * convParam(6), cols = convParam(0) * P;
  if (row >= Mg) return;
  uint ch = groupNow * Mg + row;
#ifndef SPLIT_K
  float b = convParam(16) != 0u ? bias[ch] : 0.0;
#endif
  [[unroll]] for (uint i = 0u; i < 4u; ++i) {
    uint c = col + i;
    if (c >= cols) continue;
    uint o = ((c / P) * convParam(4) + ch) * P + c % P;
#ifdef SPLIT_K
    atomicAddFloat(o, v[i]);
#else
    outv[o] = epilogue(v[i] + b, o, ch);
#endif
  }
}

void main() {
  uint groups = convParam(15), Mg = convParam(4) / groups;
  uint Kg = (convParam(1) / groups) * convParam(7) * convParam(8);
  uint cols = convParam(0) * convParam(5) * convParam(6);
  uint tilesP = (cols + TN - 1u) / TN, tilesM = (Mg + TM - 1u) / TM;
#ifdef SPLIT_K
  uint slices = convParam(17), kLen = convParam(18);
#else
  uint slices = 1u, kLen = Kg;
#endif
  for (uint gz = gl_WorkGroupID.z; gz < groups * slices; gz += gl_NumWorkGroups.z) {
    groupNow = gz / slices;
    kBase = (gz % slices) * kLen;
    kLimit = min(Kg, kBase + kLen);
    for (uint tm = gl_WorkGroupID.y; tm < tilesM; tm += gl_NumWorkGroups.y)
      for (uint tp = gl_WorkGroupID.x; tp < tilesP; tp += gl_NumWorkGroups.x) {
        preparePixels(tp * TN);
        tile8(tm * TM, tp * TN, kLimit - kBase);
      }
  }
}
