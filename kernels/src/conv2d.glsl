// conv2d.comp's body (see there), shared with conv2d_sliced.comp.
#ifndef GEMM_SLICES
#define GEMM_SLICES 1
#endif
layout(local_size_x = 16, local_size_y = 16, local_size_z = GEMM_SLICES) in;
#include "common.glsl"
#include "conv_params.glsl"
#include "gemm_tile.glsl"

void main() {
  uint groups = convParam(15), Cg = convParam(1) / groups, Mg = convParam(4) / groups;
  uint KH = convParam(7), KW = convParam(8), taps = KH * KW, Kg = Cg * taps;
  uint OW = convParam(6), P = convParam(5) * OW, cols = convParam(0) * P, HW = convParam(2) * convParam(3);
  bool plain = taps == 1 && convParam(9) == 1 && convParam(10) == 1 && convParam(11) == 0 && convParam(12) == 0 && HW == P;
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, t = gemmThread();
  uint tilesP = (cols + 63) / 64, tilesM = (Mg + 63) / 64;
  for (uint g = gl_WorkGroupID.z; g < groups; g += gl_NumWorkGroups.z) {
    for (uint tm = gl_WorkGroupID.y; tm < tilesM; tm += gl_NumWorkGroups.y) {
      for (uint tp = gl_WorkGroupID.x; tp < tilesP; tp += gl_NumWorkGroups.x) {
        uint m0 = tm * 64, p0 = tp * 64;
        // The pixel this thread stages is the same for every K step.
        uint pix = p0 + t % 64, kx0 = t / 64;
        bool pixOk = pix < cols;
        uint n = pixOk ? pix / P : 0, q = pix % P, oh = q / OW, ow = q % OW;
        uint xImage = (n * convParam(1) + g * Cg) * HW;
        float ra[4], rb[4];
        vec4 acc[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
        uint steps = gemmSteps(0u, Kg);
        for (uint i = 0; i <= steps; ++i) {
          if (i > 0) {
            barrier();  // previous multiply done with the tiles
            stageTiles(t, ra, rb);
            barrier();
          }
          if (i < steps) {  // fetch step i into registers while step i-1 multiplies
            uint k0 = gemmStepK(0u, i);
            for (uint l = 0; l < 4; ++l) {
              uint e = t + 256 * l, m = e / 16, k = k0 + e % 16, oc = m0 + m;
              ra[l] = oc < Mg && k < Kg ? w[(g * Mg + oc) * Kg + k] : 0.0;
              k = k0 + kx0 + 4 * l;
              float v = 0.0;
              if (pixOk && k < Kg) {
                if (plain) {
                  v = convInput(x[xImage + k * HW + q]);
                } else {
                  uint c = k / taps, tap = k % taps;
                  v = inputTap(n, g * Cg + c, oh, ow, tap / KW, tap % KW);
                }
              }
              rb[l] = v;
            }
          }
          if (i > 0) multiplyTiles(tx, ty, acc);
        }
        sumSlices(acc);
        if (gemmSlice() != 0u) continue;  // slice 0 holds the sums
        for (uint i = 0; i < 4; ++i) {
          uint oc = m0 + 4 * ty + i;
          if (oc >= Mg) continue;
          uint ch = g * Mg + oc;
          float b = convHasBias() ? bias[ch] : 0.0;
          for (uint j = 0; j < 4; ++j) {
            uint c = p0 + 4 * tx + j;
            if (c >= cols) continue;
            uint o = ((c / P) * convParam(4) + ch) * P + c % P;
            outv[o] = epilogue(acc[i][j] + b, o, 0u);
          }
        }
      }
    }
  }
}
