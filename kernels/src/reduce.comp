// reduce: sum / mean / max / min / prod over any set of axes, and argmax
// over one axis (i32 result). The host splits the input's dims into kept
// dims (walking outputs) and reduced dims (walking one output's inputs),
// each with their input strides, so reduced axes need not be innermost.
// Mode 0: one invocation per output (small reduced extent).
// Mode 1: one workgroup per output; 128 invocations stride over the
//         reduced extent, then a shared-memory tree.
// Values travel as raw bits; isInt selects i32 or f32 arithmetic.
//
// Bindings: 1 = x, 2 = out.
// Params:
//   p[0] outCount  p[1] R (reduced extent)  p[2] op (0 sum, 1 mean, 2 max,
//   3 min, 4 prod, 5 argmax)  p[3] isInt  p[4] mode
//   p[5..10] kept dims (6, leading 1s)     p[11..16] kept input strides
//   p[17..22] reduced dims (6, leading 1s) p[23..28] reduced input strides
#version 450
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 128) in;
#include "common.glsl"
#include "specialize.glsl"
#include "reduce_ops.glsl"

layout(std430, set = 0, binding = 1) readonly buffer X { uint x[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { uint outv[]; };

// Specialized copies (kernels/specialize.h): every param is a constant, so
// the driver folds the op, the mode and the divisions of the index walks.
SPEC_PARAM(0) SPEC_PARAM(1) SPEC_PARAM(2) SPEC_PARAM(3) SPEC_PARAM(4) SPEC_PARAM(5) SPEC_PARAM(6) SPEC_PARAM(7) SPEC_PARAM(8) SPEC_PARAM(9) SPEC_PARAM(10) SPEC_PARAM(11) SPEC_PARAM(12) SPEC_PARAM(13) SPEC_PARAM(14)
SPEC_PARAM(15) SPEC_PARAM(16) SPEC_PARAM(17) SPEC_PARAM(18) SPEC_PARAM(19) SPEC_PARAM(20) SPEC_PARAM(21) SPEC_PARAM(22) SPEC_PARAM(23) SPEC_PARAM(24) SPEC_PARAM(25) SPEC_PARAM(26) SPEC_PARAM(27) SPEC_PARAM(28)
uint param(uint k) {
  if (kSpecialized) switch (k) {
      SPEC_CASE(0) SPEC_CASE(1) SPEC_CASE(2) SPEC_CASE(3) SPEC_CASE(4) SPEC_CASE(5) SPEC_CASE(6) SPEC_CASE(7) SPEC_CASE(8) SPEC_CASE(9)
      SPEC_CASE(10) SPEC_CASE(11) SPEC_CASE(12) SPEC_CASE(13) SPEC_CASE(14) SPEC_CASE(15) SPEC_CASE(16) SPEC_CASE(17) SPEC_CASE(18) SPEC_CASE(19)
      SPEC_CASE(20) SPEC_CASE(21) SPEC_CASE(22) SPEC_CASE(23) SPEC_CASE(24) SPEC_CASE(25) SPEC_CASE(26) SPEC_CASE(27) SPEC_CASE(28)
    }
  return p[k];
}

// One division per axis, and none once the outer axes are all 0.
uint walk(uint index, uint dims, uint strides) {
  uint off = 0;
  [[unroll]] for (int d = 5; d >= 0 && (kSpecialized || index != 0u); --d) {
    uint q = index / param(dims + d);
    off += (index - q * param(dims + d)) * param(strides + d);
    index = q;
  }
  return off;
}

// Partial result over r = first, first + step, ...: value in val, argmax
// index in idx. When the innermost reduced dim is at least `step` long,
// the reduced extent is walked as rows of it: one index decomposition per
// row instead of per element, and neighbouring invocations read
// neighbouring elements (r = row * inner + i keeps the order of r).
void partial(uint base, uint first, uint step, uint op, bool isInt, out uint val, out uint idx) {
  val = identity(op, isInt);
  idx = 0xffffffffu;
  uint inner = param(22), innerStride = param(28);
  if (inner >= step) {
    uint rows = param(1) / inner;
    for (uint row = 0; row < rows; ++row) {
      uint rowBase = base + walk(row * inner, 17, 23);
      for (uint i = first; i < inner; i += step)
        accumulate(op, isInt, x[rowBase + i * innerStride], row * inner + i, val, idx);
    }
    return;
  }
  for (uint r = first; r < param(1); r += step) accumulate(op, isInt, x[base + walk(r, 17, 23)], r, val, idx);
}

void main() {
  uint op = param(2);
  bool isInt = param(3) != 0;
  uint val, idx;
  if (param(4) == 0) {
    uint o = linearInvocation();
    if (o >= param(0)) return;
    partial(walk(o, 5, 11), 0, 1, op, isInt, val, idx);
    outv[o] = op == 5 ? min(idx, param(1) - 1) : finish(op, isInt, val, param(1));
    return;
  }
  uint o = linearGroup();  // uniform: the whole workgroup returns together
  if (o >= param(0)) return;
  uint t = gl_LocalInvocationIndex;
  partial(walk(o, 5, 11), t, 128, op, isInt, val, idx);
  reduceGroup(t, op, isInt, val, idx);
  if (t == 0) outv[o] = op == 5 ? min(idx, param(1) - 1) : finish(op, isInt, val, param(1));
}
