// conv2d: implicit GEMM. For image n and group g, the output block
// out[n, g*Mg + m, pixel] = sum_k w[g*Mg + m, k] * col[k, pixel], where
// k = (c*KH + kh)*KW + kw runs over Kg = Cg*KH*KW and col[] is the im2col
// view of x, gathered on the fly into shared memory. Tiles: 64 output
// channels x 64 pixels per workgroup, 4x4 per thread, K steps of 16.
// Suits Mg >= 16; conv2d_direct.comp handles depthwise and thin groups.
//
// Grid: (pixel tiles, channel tiles, N*groups), each clamped to 65535;
// workgroups loop over the rest. Params and bindings: conv_params.glsl.
#version 450
layout(local_size_x = 16, local_size_y = 16) in;
#include "common.glsl"
#include "conv_params.glsl"

shared float tileW[16][64];
shared float tileX[16][64];

void main() {
  uint groups = p[15], Cg = p[1] / groups, Mg = p[4] / groups;
  uint KH = p[7], KW = p[8], taps = KH * KW, Kg = Cg * taps;
  uint OW = p[6], P = p[5] * OW;
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, t = gl_LocalInvocationIndex;
  uint tilesP = (P + 63) / 64, tilesM = (Mg + 63) / 64, blocks = p[0] * groups;
  for (uint nb = gl_WorkGroupID.z; nb < blocks; nb += gl_NumWorkGroups.z) {
    uint n = nb / groups, g = nb % groups;
    for (uint tm = gl_WorkGroupID.y; tm < tilesM; tm += gl_NumWorkGroups.y) {
      for (uint tp = gl_WorkGroupID.x; tp < tilesP; tp += gl_NumWorkGroups.x) {
        uint m0 = tm * 64, p0 = tp * 64;
        float acc[4][4];
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j) acc[i][j] = 0.0;
        for (uint k0 = 0; k0 < Kg; k0 += 16) {
          for (uint l = 0; l < 4; ++l) {
            uint e = t + 256 * l;
            uint m = e / 16, kw_ = e % 16, k = k0 + kw_;
            uint oc = m0 + m;
            tileW[kw_][m] = oc < Mg && k < Kg ? w[(g * Mg + oc) * Kg + k] : 0.0;
            uint kx = e / 64, px = e % 64;
            uint pix = p0 + px;
            k = k0 + kx;
            float v = 0.0;
            if (pix < P && k < Kg) {
              uint c = k / taps, tap = k % taps;
              v = inputTap(n, g * Cg + c, pix / OW, pix % OW, tap / KW, tap % KW);
            }
            tileX[kx][px] = v;
          }
          barrier();
          for (uint kk = 0; kk < 16; ++kk) {
            float wv[4], xv[4];
            for (int i = 0; i < 4; ++i) wv[i] = tileW[kk][ty + 16 * i];
            for (int j = 0; j < 4; ++j) xv[j] = tileX[kk][tx + 16 * j];
            for (int i = 0; i < 4; ++i)
              for (int j = 0; j < 4; ++j) acc[i][j] += wv[i] * xv[j];
          }
          barrier();
        }
        for (int i = 0; i < 4; ++i) {
          uint oc = m0 + ty + 16 * i;
          if (oc >= Mg) continue;
          uint ch = g * Mg + oc;
          float b = p[16] != 0 ? bias[ch] : 0.0;
          for (int j = 0; j < 4; ++j) {
            uint pix = p0 + tx + 16 * j;
            if (pix < P) outv[(n * p[4] + ch) * P + pix] = acc[i][j] + b;
          }
        }
      }
    }
  }
}
