// The `coopnv` variants of conv2d_f16_splitk.comp: coop_gemm.glsl's core
// on conv2d.comp's implicit GEMM over one K slice. For group g the product
// is A = w[g*Mg .. g*Mg+Mg-1] (output channels x Kg, stored [M, K]:
// vec4 loads, so Kg = Cg*KH*KW is a multiple of 4) times B = the im2col
// view of x ([Kg, N*OH*OW], gathered on the fly, 4 pixels per vec4);
// output rows are channels, columns pixels (images folded into the pixel
// axis). An invocation's B vec4s cover the same 4 pixels at every K step
// (THREADS is a multiple of TN / 4), so it decodes them once per tile.
// Each K slice's partial sums are added atomically into `out`
// (conv2d_splitk.comp's bindings; conv2d_finish before and after).
//
// Grid: (pixel tiles, channel tiles, groups * slices), each clamped to
// 65535; workgroups loop over the rest. Params: conv_params.glsl's p[0..16],
// p[17] slices and p[18] K per slice (a multiple of 16).
#include "coop_gemm.glsl"
#include "conv_spec.glsl"
layout(std430, set = 0, binding = 1) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Wt { vec4 w4[]; };
#include "atomic_add.glsl"  // binding 3: out

uint gConv;  // the group of the tile being computed
// This invocation's 4 pixels of the tile: the offset of their image's
// first channel of the group in x (-1: past the last pixel) and the input
// row and column of tap (0, 0), which may lie in the padding.
int pixBase[4], pixH[4], pixW[4];

bool transA() { return false; }
bool transB() { return false; }
uint gemmRows() { return convParam(4) / convParam(15); }
uint gemmCols() { return convParam(0) * convParam(5) * convParam(6); }
uint kernelK() { return convParam(1) / convParam(15) * convParam(7) * convParam(8); }

vec4 loadA(uint e, uint row0, uint k0, uint kEnd) {
  uint Mg = gemmRows(), row = row0 + e / KV, k = k0 + 4u * (e % KV);
  return row < Mg && k < kEnd ? w4[((gConv * Mg + row) * kernelK() + k) / 4u] : vec4(0.0);
}

vec4 loadB(uint e, uint col0, uint k0, uint kEnd) {
  uint k = k0 + e / (TN / 4u);  // columns: this invocation's 4 pixels
  vec4 v = vec4(0.0);
  if (k >= kEnd) return v;
  uint KW = convParam(8), taps = convParam(7) * KW, tap = k % taps, H = convParam(2), W = convParam(3);
  uint chan = (k / taps) * H * W;
  int dh = int((tap / KW) * convParam(13)), dw = int((tap % KW) * convParam(14));
  [[unroll]] for (uint i = 0u; i < 4u; ++i) {
    int ih = pixH[i] + dh, iw = pixW[i] + dw;
    if (pixBase[i] >= 0 && ih >= 0 && iw >= 0 && ih < int(H) && iw < int(W))
      v[i] = convInput(x[uint(pixBase[i]) + chan + uint(ih) * W + uint(iw)]);
  }
  return v;
}

void store(uint row, uint col, float v) {
  uint P = convParam(5) * convParam(6), ch = gConv * gemmRows() + row;
  atomicAddFloat(((col / P) * convParam(4) + ch) * P + col % P, v);
}

void main() {
  uint groups = convParam(15), Mg = gemmRows(), cols = gemmCols(), Kg = kernelK();
  uint OW = convParam(6), P = convParam(5) * OW, Cg = convParam(1) / groups, HW = convParam(2) * convParam(3);
  uint slices = convParam(17), kLen = convParam(18);
  uint tilesP = (cols + TN - 1u) / TN, tilesM = (Mg + TM - 1u) / TM;
  for (uint gz = gl_WorkGroupID.z; gz < groups * slices; gz += gl_NumWorkGroups.z) {
    gConv = gz / slices;
    uint kBegin = (gz % slices) * kLen, kEnd = min(Kg, kBegin + kLen);
    for (uint tm = gl_WorkGroupID.y; tm < tilesM; tm += gl_NumWorkGroups.y) {
      for (uint tp = gl_WorkGroupID.x; tp < tilesP; tp += gl_NumWorkGroups.x) {
        uint pix0 = tp * TN + 4u * (gl_LocalInvocationIndex % (TN / 4u));
        [[unroll]] for (uint i = 0u; i < 4u; ++i) {
          uint pix = pix0 + i, n = pix / P, q = pix % P;
          pixBase[i] = pix < cols ? int((n * convParam(1) + gConv * Cg) * HW) : -1;
          pixH[i] = int((q / OW) * convParam(9)) - int(convParam(11));
          pixW[i] = int((q % OW) * convParam(10)) - int(convParam(12));
        }
        tileRange(tm * TM, tp * TN, kBegin, kEnd);
      }
    }
  }
}
