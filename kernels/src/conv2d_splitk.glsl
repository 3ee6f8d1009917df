// conv2d_splitk.comp's body (see there), shared with the portable builds
// of conv2d_f16_splitk.comp, which define ROUND_SCALAR(x) to round each
// operand element as it is read.
#ifndef ROUND_SCALAR
#define ROUND_SCALAR(x) (x)
#endif
layout(local_size_x = 16, local_size_y = 16) in;
#include "common.glsl"
#include "gemm_tile.glsl"
#include "conv_spec.glsl"

layout(std430, set = 0, binding = 1) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Wt { float w[]; };
#include "atomic_add.glsl"  // binding 3: out

// conv_params.glsl's inputTap (that header also declares the epilogue
// bindings this kernel has no use for).
float inputTap(uint n, uint ch, uint oh, uint ow, uint kh, uint kw) {
  int ih = int(oh * convParam(9) + kh * convParam(13)) - int(convParam(11));
  int iw = int(ow * convParam(10) + kw * convParam(14)) - int(convParam(12));
  if (ih < 0 || iw < 0 || ih >= int(convParam(2)) || iw >= int(convParam(3))) return 0.0;
  return convInput(x[((n * convParam(1) + ch) * convParam(2) + uint(ih)) * convParam(3) + uint(iw)]);
}

void main() {
  uint groups = convParam(15), Cg = convParam(1) / groups, Mg = convParam(4) / groups;
  uint KH = convParam(7), KW = convParam(8), taps = KH * KW, Kg = Cg * taps;
  uint OW = convParam(6), P = convParam(5) * OW, cols = convParam(0) * P, HW = convParam(2) * convParam(3);
  uint slices = convParam(17), kLen = convParam(18);
  bool plain = taps == 1 && convParam(9) == 1 && convParam(10) == 1 && convParam(11) == 0 && convParam(12) == 0 && HW == P;
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, t = gl_LocalInvocationIndex;
  uint tilesP = (cols + 63) / 64, tilesM = (Mg + 63) / 64;
  for (uint gz = gl_WorkGroupID.z; gz < groups * slices; gz += gl_NumWorkGroups.z) {
    uint g = gz / slices, kBegin = (gz % slices) * kLen, kEnd = min(Kg, kBegin + kLen);
    for (uint tm = gl_WorkGroupID.y; tm < tilesM; tm += gl_NumWorkGroups.y) {
      for (uint tp = gl_WorkGroupID.x; tp < tilesP; tp += gl_NumWorkGroups.x) {
        uint m0 = tm * 64, p0 = tp * 64;
        uint pix = p0 + t % 64, kx0 = t / 64;
        bool pixOk = pix < cols;
        uint n = pixOk ? pix / P : 0, q = pix % P, oh = q / OW, ow = q % OW;
        uint xImage = (n * convParam(1) + g * Cg) * HW;
        float ra[4], rb[4];
        vec4 acc[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
        for (uint k0 = kBegin; k0 < kEnd + 16; k0 += 16) {
          if (k0 > kBegin) {
            barrier();  // previous multiply done with the tiles
            stageTiles(t, ra, rb);
            barrier();
          }
          if (k0 < kEnd) {  // fetch step k0 into registers while step k0-16 multiplies
            for (uint l = 0; l < 4; ++l) {
              uint e = t + 256 * l, m = e / 16, k = k0 + e % 16, oc = m0 + m;
              ra[l] = ROUND_SCALAR(oc < Mg && k < kEnd ? w[(g * Mg + oc) * Kg + k] : 0.0);
              k = k0 + kx0 + 4 * l;
              float v = 0.0;
              if (pixOk && k < kEnd) {
                if (plain) {
                  v = convInput(x[xImage + k * HW + q]);
                } else {
                  uint c = k / taps, tap = k % taps;
                  v = inputTap(n, g * Cg + c, oh, ow, tap / KW, tap % KW);
                }
              }
              rb[l] = ROUND_SCALAR(v);
            }
          }
          if (k0 > kBegin) multiplyTiles(tx, ty, acc);
        }
        for (uint i = 0; i < 4; ++i) {
          uint oc = m0 + 4 * ty + i;
          if (oc >= Mg) continue;
          uint ch = g * Mg + oc;
          for (uint j = 0; j < 4; ++j) {
            uint c = p0 + 4 * tx + j;
            if (c < cols) atomicAddFloat(((c / P) * convParam(4) + ch) * P + c % P, acc[i][j]);
          }
        }
      }
    }
  }
}
