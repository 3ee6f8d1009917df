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
// Bindings: 1 = value, 2 = offset (one i32 word), 3 = state / output (raw
// 32-bit words; any dtype).
// Params:
//   p[0] count   value elements (outer * J * inner)
//   p[1] J       value's size on the axis
//   p[2] inner   elements after the axis
//   p[3] D       state's size on the axis
#version 450
layout(local_size_x = 256) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer Value { uint value[]; };
layout(std430, set = 0, binding = 2) readonly buffer Offset { int offsetv[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Out { uint outv[]; };

void main() {
  uint i = linearInvocation();
  if (i >= p[0]) return;
  int offset = offsetv[0];
  if (offset < 0 || offset > pint(3) - pint(1)) return;
  uint rowLen = p[1] * p[2];
  uint o = i / rowLen, rest = i % rowLen;
  outv[(o * p[3] + uint(offset)) * p[2] + rest] = value[i];
}
