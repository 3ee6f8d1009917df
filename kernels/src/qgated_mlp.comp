// qgated_mlp: a decode step's SwiGLU MLP in one dispatch (QGatedMlp,
// ir/ops.def): out += down(silu(gate(x')) * up(x')) for one row x, x' its
// RMSNorm (optional), the three weights packed alike (qweights.glsl).
//
// Each workgroup takes a row group of 16 intermediates at a time: its
// warps 0-3 compute the 16 gate rows and warps 4-7 the 16 up rows with
// qmatvec's one-row path (qmatvec_rows.glsl, S = 1: x staged once per
// workgroup with its norm), the 16 values h = silu(gate) * up go to shared
// memory, and every invocation then adds its output rows' share,
// Σ_j down[n, i0 + j] h[j], into out with a float atomic add
// (atomic_add.glsl); the down weights of its first 3 rows are loaded before
// the gate / up products, so that their latency overlaps them. The lowering zeroes out in a pass before this one
// (conv2d_finish, mode 0: a level early, it reads nothing computed) and the
// first row group adds the residual, so the MLP costs one barrier level
// where gate / up and down took two.
//
// Bindings: 1 = x, 2 = gate words, 3 = gate scales (gate words for f16),
//   4 = residual (x when absent), 5 = the norm weight (x when absent), 6 =
//   up words, 7 = up scales, 8 = down words, 9 = down scales, 10 = out
//   (f32, added into).
// Params: qmatvec's (p[1] = I, the intermediates; p[2] = K; p[36] flags:
//   bit 3 norm, bit 5 residual; p[37] format .. p[41] norm epsilon; p[42]
//   S = 1), then p[43] N (out's length), p[44] down words per row, p[45]
//   down groups per row.
// Grid: (min(ceil(I / 16), 256), 1, 1); workgroups loop over row groups.
// In-stream waits (stream_sync.glsl): the down and gate / up weight loads
// of the first row group go out before the wait, as x is first loaded.
// mgc-variant: subgroup_atomicf features=Subgroup,AtomicFloat32Add defines=MGC_SUBGROUP,MGC_ATOMIC_FLOAT env=vulkan1.1 msl=none
// mgc-variant: subgroup features=Subgroup defines=MGC_SUBGROUP env=vulkan1.1 msl=20100
// mgc-variant: atomicf features=AtomicFloat32Add defines=MGC_ATOMIC_FLOAT msl=none
#version 450
#extension GL_EXT_control_flow_attributes : require
#ifdef MGC_SUBGROUP
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
layout(local_size_x = 256) in;
#include "common.glsl"
#include "stream_sync.glsl"

layout(std430, set = 0, binding = 1) coherent readonly buffer A { vec4 a4[]; };
layout(std430, set = 0, binding = 2) readonly buffer Words { uvec4 words4[]; };
layout(std430, set = 0, binding = 3) readonly buffer Scales { float scales[]; };
layout(std430, set = 0, binding = 4) coherent readonly buffer Residual { float residual[]; };
layout(std430, set = 0, binding = 5) coherent readonly buffer U { vec4 u4[]; };
layout(std430, set = 0, binding = 6) readonly buffer UpWords { uvec4 upWords4[]; };
layout(std430, set = 0, binding = 7) readonly buffer UpScales { float upScales[]; };
layout(std430, set = 0, binding = 8) readonly buffer DownWords { uint downWords[]; };
layout(std430, set = 0, binding = 9) readonly buffer DownScales { float downScales[]; };
#define ATOMIC_OUT_BINDING 10
#include "atomic_add.glsl"
#include "math.glsl"
#include "qweights.glsl"
#include "specialize.glsl"
#include "qmatvec_common.glsl"
SPEC_PARAM(43)  // N
SPEC_PARAM(44)  // down words per row
SPEC_PARAM(45)  // down groups per row

bool upRows = false;  // this warp's rows are up's (warps 4-7)
#define ROW_WORDS4(i) (upRows ? upWords4[i] : words4[i])
#define ROW_SCALE(i) (upRows ? upScales[i] : scales[i])
#define QMATVEC_ROWS_SUMS_ONLY
#include "qmatvec_rows.glsl"

const uint kInter = 16u;        // intermediates per row group
shared float gateUp[2u * kInter];  // the row group's gate, then up sums
shared float hs[kInter];           // silu(gate) * up (0 past I)

// The down weights of a row group, row n: 16 / per words from word `at`,
// loaded (with the row's scale) before the gate / up products, for the
// first kPrefetch rows of each invocation; their latency hides behind them.
const uint kPrefetch = 3u, kSliceWords = kInter / 2u;  // f16's 8 words: the most
uint sliceAt(uint n, uint i0, uint per) { return n * PARAM(44) + i0 / per; }
float sliceScale(uint n, uint i0, uint format) {
  return format == QF16 ? 1.0 : downScales[n * PARAM(45) + i0 / p[38]];  // 16 share one: group % 16 == 0
}

// Σ_j down[n, i0 + j] h[j] over the row group's 16 intermediates, from the
// slice's words w and scale.
float downDot(uint w[kSliceWords], float scale, uint format) {
  uint bits = qBits(format), per = 32u / bits;
  float s = 0.0;
  if (format == QF16) {
    [[unroll]] for (uint k = 0u; k < kSliceWords; ++k) {
      vec2 h = unpackHalf2x16(w[k]);
      s = fma(h.x, hs[2u * k], fma(h.y, hs[2u * k + 1u], s));
    }
    return s;
  }
  [[unroll]] for (uint k = 0u; k < kInter / per; ++k)
    [[unroll]] for (uint e = 0u; e < per; ++e) s = fma(qField(w[k], e, bits), hs[k * per + e], s);
  return s * scale;
}

void loadSlice(uint n, uint i0, uint format, out uint w[kSliceWords], out float scale) {
  uint per = 32u / qBits(format), at = sliceAt(n, i0, per);
  [[unroll]] for (uint k = 0u; k < kSliceWords; ++k) w[k] = k < kInter / per ? downWords[at + k] : 0u;
  scale = sliceScale(n, i0, format);
}

void main() {
  uint t = gl_LocalInvocationIndex, warp = t >> 5u, lane = t & 31u, I = p[1], N = PARAM(43), format = qFormat();
  bool hasResidual = (flags() & 32u) != 0u;
  upRows = warp >= 4u;
  uint groups = (I + kInter - 1u) / kInter;
  bool first = true;
  for (uint gx = gl_WorkGroupID.x; gx < groups; gx += gl_NumWorkGroups.x) {
    uint i0 = gx * kInter, n0 = i0 + 4u * (warp & 3u);
    uint pre[kPrefetch][kSliceWords];
    float preScale[kPrefetch];
    [[unroll]] for (uint r = 0u; r < kPrefetch; ++r)
      if (t + 256u * r < N) loadSlice(t + 256u * r, i0, format, pre[r], preScale[r]);
    vec4 sum = rowGroupSums(n0, n0 < I, t, first, 0u, rowColumns());
    if (lane == 0u) [[unroll]] for (uint r = 0u; r < 4u; ++r) gateUp[4u * warp + r] = sum[r];
    barrier();
    if (t < kInter) {
      float g = gateUp[t];
      hs[t] = i0 + t < I ? g * sigmoid(g) * gateUp[kInter + t] : 0.0;
    }
    barrier();
    for (uint r = 0u, n = t; n < N; ++r, n += 256u) {
      float v;
      if (r < kPrefetch) {
        v = downDot(pre[min(r, kPrefetch - 1u)], preScale[min(r, kPrefetch - 1u)], format);
      } else {
        uint w[kSliceWords];
        float scale;
        loadSlice(n, i0, format, w, scale);
        v = downDot(w, scale, format);
      }
      if (hasResidual && gx == 0u) v += residual[n];
      atomicAddFloat(n, v);
    }
    barrier();  // the next row group's sums overwrite gateUp / hs
  }
  streamWait();
  streamSignal();
}
