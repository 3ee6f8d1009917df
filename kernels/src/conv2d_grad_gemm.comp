// conv2d_grad_gemm: the two gradients of Conv as implicit GEMMs on the
// 64x64 register-blocked core (gemm_tile.glsl), per group g:
//   mode 0 ConvGradInput (a = dy [N,M,OH,OW], b = w [M,Cg,KH,KW]):
//     dx[n, g*Cg + c, ih, iw] = sum_k A[c, k] B[k, (n, ih, iw)],
//     k = (m, kh, kw) over Mg*KH*KW, A[c, k] = w[g*Mg + m, c, kh, kw],
//     B[k, ..] = dy[n, g*Mg + m, oh, ow] where ih + padT - kh*dH = oh*sH
//     (and the same along W); 0 where no output pixel reads (ih, iw).
//   mode 1 ConvGradWeight (a = x [N,C,H,W], b = dy [N,M,OH,OW]):
//     dw[g*Mg + m, (c, kh, kw)] = sum_k A[m, k] B[k, (c, kh, kw)],
//     k = (n, oh, ow) over N*OH*OW, A[m, k] = dy[n, g*Mg + m, oh, ow],
//     B[k, (c, kh, kw)] = x[n, g*Cg + c, oh*sH + kh*dH - padT, ..] (0 in the
//     padding).
// ir/eval_grad.cpp is the reference. With p[17] slices > 1 the K range is
// split into slices of p[18] (a multiple of 16) that run as separate
// workgroups and add their tile into `out` with a float atomic add
// (atomic_add.glsl: native in the `atomicf` variant, compare-and-swap in
// the portable build); kernels/lower_grad.cpp zeroes `out` first. The sum
// order across slices is then not fixed (last-bit differences between runs); with
// one slice every element is written once, deterministically.
//
// Grid: (column tiles, row tiles, groups * slices), each clamped to 65535;
// workgroups loop over the rest.
// Bindings: 1 = a, 2 = b (f32), 3 = out (f32 bits).
// Params: conv_params.glsl's p[0..15] (N C H W M OH OW KH KW strides pads
// dilations groups), p[16] mode, p[17] slices, p[18] K per slice.
// mgc-variant: atomicf features=AtomicFloat32Add defines=MGC_ATOMIC_FLOAT msl=none
#version 450
layout(local_size_x = 16, local_size_y = 16) in;
#include "common.glsl"
#include "gemm_tile.glsl"
#include "conv_spec.glsl"

layout(std430, set = 0, binding = 1) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 2) readonly buffer B { float b[]; };
#include "atomic_add.glsl"  // binding 3: out

// Specialized copies (kernels/specialize.h): every param is a constant, so
// the driver folds the index arithmetic (divisions by the image and kernel
// sizes) and the mode.
SPEC_PARAM(17) SPEC_PARAM(18)  // and 0..16 (conv_spec.glsl)

void main() {
  uint N = PARAM(0), C = PARAM(1), H = PARAM(2), W = PARAM(3), M = PARAM(4), OH = PARAM(5), OW = PARAM(6),
       KH = PARAM(7), KW = PARAM(8);
  int sH = int(PARAM(9)), sW = int(PARAM(10)), padT = int(PARAM(11)), padL = int(PARAM(12)), dH = int(PARAM(13)),
      dW = int(PARAM(14));
  uint groups = PARAM(15), Cg = C / groups, Mg = M / groups, taps = KH * KW;
  bool gradInput = PARAM(16) == 0u;
  uint slices = PARAM(17), kLen = PARAM(18);
  uint HW = H * W, OHW = OH * OW;
  // GEMM sizes: rows x cols, depth K
  uint rows = gradInput ? Cg : Mg;
  uint cols = gradInput ? N * HW : Cg * taps;
  uint K = gradInput ? Mg * taps : N * OHW;
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, t = gl_LocalInvocationIndex;
  uint tilesC = (cols + 63) / 64, tilesR = (rows + 63) / 64;
  for (uint gz = gl_WorkGroupID.z; gz < groups * slices; gz += gl_NumWorkGroups.z) {
    uint g = gz / slices, kBegin = (gz % slices) * kLen, kEnd = min(K, kBegin + kLen);
    for (uint tr = gl_WorkGroupID.y; tr < tilesR; tr += gl_NumWorkGroups.y) {
      for (uint tc = gl_WorkGroupID.x; tc < tilesC; tc += gl_NumWorkGroups.x) {
        uint r0 = tr * 64, c0 = tc * 64;
        // The B column this thread stages is the same for every K step.
        uint col = c0 + t % 64, kx0 = t / 64;
        bool colOk = col < cols;
        // mode 0: (n, ih, iw) of dx; mode 1: (c, kh, kw) of dw
        uint u0 = 0, u1 = 0, u2 = 0;
        if (colOk) {
          if (gradInput) {
            u0 = col / HW;
            u1 = (col % HW) / W;
            u2 = col % W;
          } else {
            u0 = col / taps;
            u1 = (col % taps) / KW;
            u2 = col % KW;
          }
        }
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
              uint e = t + 256 * l, r = r0 + e / 16, k = k0 + e % 16;
              float va = 0.0;
              if (r < rows && k < kEnd) {
                if (gradInput) {  // w[g*Mg + m, r, tap]
                  uint m = k / taps, tap = k % taps;
                  va = b[((g * Mg + m) * Cg + r) * taps + tap];
                } else {  // dy[n, g*Mg + r, q]
                  uint n = k / OHW, q = k % OHW;
                  va = b[(n * M + g * Mg + r) * OHW + q];
                }
              }
              ra[l] = va;
              k = k0 + kx0 + 4 * l;
              float vb = 0.0;
              if (colOk && k < kEnd) {
                if (gradInput) {  // dy[n, g*Mg + m, oh, ow] for dx[n, ., u1, u2]
                  uint m = k / taps, tap = k % taps;
                  int th = int(u1) + padT - int(tap / KW) * dH, tw = int(u2) + padL - int(tap % KW) * dW;
                  if (th >= 0 && tw >= 0 && th % sH == 0 && tw % sW == 0) {
                    uint oh = uint(th / sH), ow = uint(tw / sW);
                    if (oh < OH && ow < OW) vb = a[((u0 * M + g * Mg + m) * OH + oh) * OW + ow];
                  }
                } else {  // x[n, g*Cg + u0, oh*sH + u1*dH - padT, ..]
                  uint n = k / OHW, q = k % OHW;
                  int ih = int(q / OW) * sH + int(u1) * dH - padT, iw = int(q % OW) * sW + int(u2) * dW - padL;
                  if (ih >= 0 && iw >= 0 && ih < int(H) && iw < int(W))
                    vb = a[((n * C + g * Cg + u0) * H + uint(ih)) * W + uint(iw)];
                }
              }
              rb[l] = vb;
            }
          }
          if (k0 > kBegin) multiplyTiles(tx, ty, acc);
        }
        for (uint i = 0; i < 4; ++i) {
          uint r = r0 + 4 * ty + i;
          if (r >= rows) continue;
          for (uint j = 0; j < 4; ++j) {
            uint c = c0 + 4 * tx + j;
            if (c >= cols) continue;
            uint o = gradInput ? ((c / HW) * C + g * Cg + r) * HW + c % HW : (g * Mg + r) * cols + c;
            if (slices > 1u) atomicAddFloat(o, acc[i][j]);
            else storeFloat(o, acc[i][j]);
          }
        }
      }
    }
  }
}
