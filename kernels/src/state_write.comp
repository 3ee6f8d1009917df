// state_write: value copied into the state tensor at a run-time offset
// along one axis (StateWrite, e.g. a decode step's row of a KV cache). The
// output binding IS the state's buffer (the memory planner places the
// result in place in the State arena), so only the written rows are
// touched, not the whole state.
//
// State viewed as [outer, D, inner] and value as [outer, J, inner]:
//   out[(o * D + offset + j) * inner + r] = value[(o * J + j) * inner + r]
// The guard: an offset outside [0, D - J] writes nothing at all, so a bad
// run-time offset can never write outside the state tensor (nor part of it).
//
// Rotary (p[4] = 1; f32, the axis second-to-last, so inner = the head
// dim): each element is written as rotary.comp computes it, x * cos[j] +
// x[partner] * signed_sin[j], partner the element half a row away.
//
// Bindings: 1 = value, 2 = offset (one i32 word), 3 = cos, 4 = signed_sin
// (both [J, inner]; value again without rotary), 5 = state / output (raw
// 32-bit words; any dtype).
// Params:
//   p[0] count   value elements (outer * J * inner)
//   p[1] J       value's size on the axis
//   p[2] inner   elements after the axis
//   p[3] D       state's size on the axis
//   p[4] rotary  0 / 1
#version 450
layout(local_size_x = 256) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer Value { uint value[]; };
layout(std430, set = 0, binding = 2) readonly buffer Offset { int offsetv[]; };
layout(std430, set = 0, binding = 3) readonly buffer Cos { float cosv[]; };
layout(std430, set = 0, binding = 4) readonly buffer Sin { float sinv[]; };
layout(std430, set = 0, binding = 5) writeonly buffer Out { uint outv[]; };

void main() {
  uint i = linearInvocation();
  if (i >= p[0]) return;
  int offset = offsetv[0];
  if (offset < 0 || offset > pint(3) - pint(1)) return;
  uint rowLen = p[1] * p[2];
  uint o = i / rowLen, rest = i % rowLen;
  uint word = value[i];
  if (p[4] != 0u) {
    uint inner = p[2], halfRow = inner / 2u, d = rest % inner, c = rest;  // c: [j, d] in cos / sin
    uint partner = d < halfRow ? i + halfRow : i - halfRow;
    word = floatBitsToUint(uintBitsToFloat(word) * cosv[c] + uintBitsToFloat(value[partner]) * sinv[c]);
  }
  outv[(o * p[3] + uint(offset)) * p[2] + rest] = word;
}
