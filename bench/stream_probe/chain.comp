// stream_probe's kernel: level L of a chain of dependent matrix-vector
// products, y_L = W_L · y_(L-1) / 64 (f16 weights K x K, f32 activations).
// A subgroup takes one row of W, its lanes striding over the row's 16-byte
// words; a workgroup takes one row per subgroup. With pc.waitCount > 0 a
// workgroup first issues its row's first weight loads, then waits until
// counters[L - 1] >= waitCount (every workgroup of level L - 1 has
// signalled), then reads y_(L-1); every workgroup ends by adding 1 to
// counters[L]. A wait that spins past a bound records its level in
// counters[pc.flagSlot] and goes on (the host reports it).
#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 256) in;
layout(std430, binding = 0) coherent buffer Counters { uint counters[]; };
layout(std430, binding = 1) coherent buffer Acts { float act[]; };    // [levels + 1][K]
layout(std430, binding = 2) readonly buffer Weights { uvec4 w4[]; };  // [slabs][K][K / 8]
layout(push_constant) uniform PC { uint level, waitCount, K, slab, flagSlot; } pc;

const uint kAhead = 16u;  // 16-byte words per lane loaded before the wait
shared float xs[4096];

float wordDot(uvec4 w, uint j) {
  float s = 0.0;
  [[unroll]] for (uint c = 0u; c < 4u; ++c) {
    vec2 h = unpackHalf2x16(w[c]);
    uint k = 8u * j + 2u * c;
    s = fma(h.x, xs[k], fma(h.y, xs[k + 1u], s));
  }
  return s;
}

void main() {
  uint t = gl_LocalInvocationIndex, lane = gl_SubgroupInvocationID, lanes = gl_SubgroupSize;
  uint K = pc.K, words4 = K / 8u;
  uint row = gl_WorkGroupID.x * gl_NumSubgroups + gl_SubgroupID;
  uint base = (pc.slab * K + row) * words4;
  uvec4 ws[kAhead];
  [[unroll]] for (uint i = 0u; i < kAhead; ++i) {
    uint j = lane + lanes * i;
    ws[i] = row < K && j < words4 ? w4[base + j] : uvec4(0u);
  }
  if (pc.waitCount != 0u) {
    if (t == 0u) {
      uint spins = 0u;
      while (atomicAdd(counters[pc.level - 1u], 0u) < pc.waitCount) {
        if (++spins > (1u << 24)) {
          atomicMax(counters[pc.flagSlot], pc.level);
          break;
        }
      }
    }
    barrier();
    memoryBarrierBuffer();
  }
  uint from = (pc.level - 1u) * K;
  for (uint k = t; k < K; k += 256u) xs[k] = act[from + k];
  barrier();
  float s = 0.0;
  [[unroll]] for (uint i = 0u; i < kAhead; ++i) {
    uint j = lane + lanes * i;
    if (j < words4) s += wordDot(ws[i], j);
  }
  for (uint j = lane + lanes * kAhead; j < words4; j += lanes) s += wordDot(w4[base + j], j);
  s = subgroupAdd(s);
  if (lane == 0u && row < K) act[pc.level * K + row] = s * (1.0 / 64.0);
  memoryBarrierBuffer();
  barrier();
  if (t == 0u) atomicAdd(counters[pc.level], 1u);
}
