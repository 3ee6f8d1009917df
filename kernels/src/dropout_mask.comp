// dropout_mask: out[i] = 0 with probability ratio, else 1 / (1 - ratio),
// from a counter-based hash of (seed, step, i). Word for word the
// arithmetic of ir/dropout.h (uint only), so the mask equals the
// CPU reference bit for bit.
//
// Bindings: 1 = step (the f32 step counter, read as its bits), 2 = output (f32).
// Params:
//   p[0] count      output elements
//   p[1] seedHash   pcg(seed), computed on the host
//   p[2] threshold  ceil(ratio * 2^24): 24-bit draws below it are dropped
//   p[3] scale      f32 bits of 1 / (1 - ratio)
#version 450
layout(local_size_x = 256) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer Step { uint stepBits[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { float outv[]; };

uint pcg(uint v) {
  uint state = v * 747796405u + 2891336453u;
  uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
  return (word >> 22u) ^ word;
}

void main() {
  uint i = linearInvocation();
  if (i >= p[0]) return;
  uint key = pcg(stepBits[0] ^ p[1]);
  bool dropped = (pcg(i ^ key) >> 8u) < p[2];
  outv[i] = dropped ? 0.0 : pfloat(3u);
}
