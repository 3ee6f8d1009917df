// Shared by qmatvec.comp and qgated_mlp.comp: the params they read as
// specialization constants, x's prologue (RMSNorm / SwiGLU, ir/epilogue.h)
// and the workgroup sums. The includer declares the buffers a4 (x), u4 (the
// prologue's operand) and includes common.glsl, math.glsl and
// specialize.glsl first.
SPEC_PARAM(0)   // M
SPEC_PARAM(2)   // K
SPEC_PARAM(36)  // flags
SPEC_PARAM(37)  // format
SPEC_PARAM(39)  // words per group
SPEC_PARAM(40)  // groups per row
SPEC_PARAM(42)  // S
uint rowsOfX() { return PARAM(0); }
uint dimK() { return PARAM(2); }
uint flags() { return PARAM(36); }
uint qFormat() { return PARAM(37); }
uint wordsPerGroup() { return PARAM(39); }
uint groupsPerRow() { return PARAM(40); }
uint slices() { return PARAM(42); }
// 16-byte columns (4 words) in a row of W.
uint rowColumns() { return dimK() * qBits(qFormat()) / 128u; }

shared vec4 partial[256];
shared vec4 rowScale;  // 1 / rms of x's rows (the prologue)

bool rmsOn() { return (flags() & 8u) != 0u; }
bool hasPrologue() { return (flags() & 24u) != 0u; }
// x's elements as the product sees them: times u (rms prologue), or
// silu(x) * u (swiglu prologue).
vec4 prologue(vec4 x, vec4 u) {
  if (rmsOn()) return x * u;
  if ((flags() & 16u) != 0u) return x * vec4(sigmoid(x.x), sigmoid(x.y), sigmoid(x.z), sigmoid(x.w)) * u;
  return x;
}

// The prologue: 1 / sqrt(mean(x[m, :]²) + eps) for x's rows, into rowScale,
// from each invocation's part of the sums of squares (ss[m], row m).
void takeRowNorms(vec4 ss) {
  uint t = gl_LocalInvocationIndex, K = dimK();
#ifdef MGC_SUBGROUP
  vec4 s = subgroupAdd(ss);
  if (subgroupElect()) partial[gl_SubgroupID] = s;
  barrier();
  if (gl_SubgroupID == 0u) {
    vec4 r = vec4(0.0);
    for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) r += partial[i];
    r = subgroupAdd(r);
    if (subgroupElect()) rowScale = inversesqrt(r / float(K) + uintBitsToFloat(p[41]));
  }
#else
  partial[t] = ss;
  barrier();
  for (uint h = 128u; h > 0u; h >>= 1u) {
    if (t < h) partial[t] += partial[t + h];
    barrier();
  }
  if (t == 0u) rowScale = inversesqrt(partial[0] / float(K) + uintBitsToFloat(p[41]));
#endif
  barrier();
}

// The sum of v over the 32 lanes of invocation t's column (t / 32), valid
// in the column's lane 0. Called in uniform control flow; `partial` may be
// in use by the previous column group on entry.
vec4 columnSum(vec4 v, uint t, uint lane) {
#ifdef MGC_SUBGROUP
  if (gl_SubgroupSize == 32u) return subgroupAdd(v);
  if (gl_SubgroupSize < 32u) {
    vec4 s = subgroupAdd(v);
    barrier();
    if (subgroupElect()) partial[gl_SubgroupID] = s;
    barrier();
    vec4 r = vec4(0.0);
    if (lane == 0u)
      for (uint i = t / gl_SubgroupSize, e = i + 32u / gl_SubgroupSize; i < e; ++i) r += partial[i];
    return r;
  }
#endif
  barrier();
  partial[t] = v;
  barrier();
  for (uint h = 16u; h > 0u; h >>= 1u) {
    if (lane < h) partial[t] += partial[t + h];
    barrier();
  }
  return partial[t];
}

