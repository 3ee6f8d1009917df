// Shared by every kernel: the params block (binding 0) and the 2-D grid
// helpers. Included after `#version 450` and the layout(local_size...) line.
//
// Grid convention: a kernel that covers `count` items with one invocation
// each is dispatched with groups = (gx, gy, 1), gx <= 65535, and computes
// its linear item index as (wg.y * gx + wg.x) * localSize + local; items
// past `count` do nothing. The host side is kernels/lower_common.cpp:grid().
#extension GL_GOOGLE_include_directive : require

layout(std430, set = 0, binding = 0) readonly buffer Params { uint p[]; };

uint linearGroup() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

uint linearInvocation() {
  uint groupSize = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
  return linearGroup() * groupSize + gl_LocalInvocationIndex;
}

int pint(uint k) { return int(p[k]); }
float pfloat(uint k) { return uintBitsToFloat(p[k]); }

// n / d for a divisor given as its multiply-and-shift form
// (kernels/lower_common.h: fastDivisor; exact for n < 2^31), or a plain
// division where the host left mul = 0.
uint fastDiv(uint n, uint d, uint mul, uint shift) {
  if (mul == 0u) return n / d;
  uint hi, lo;
  umulExtended(n, mul, hi, lo);
  return hi >> shift;
}
