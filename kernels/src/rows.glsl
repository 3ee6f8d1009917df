// Row kernels (softmax, layernorm): mode 0 gives each invocation a whole
// row; mode 1 gives each 128-invocation workgroup one row and combines the
// invocations' partial results here. Only mode 1 may call the workgroup
// helpers (they contain barriers; the mode is uniform).
shared float rowScratch[128];

float workgroupSum(float v) {
  uint t = gl_LocalInvocationIndex;
  barrier();  // earlier readers of rowScratch are done
  rowScratch[t] = v;
  barrier();
  for (uint h = 64; h > 0; h >>= 1) {
    if (t < h) rowScratch[t] += rowScratch[t + h];
    barrier();
  }
  return rowScratch[0];
}

float maxNan(float a, float b) { return isnan(a) || isnan(b) ? a + b : max(a, b); }

#ifdef MGC_SUBGROUP
// The includer's `subgroup` variant (GL_KHR_shader_subgroup_arithmetic and
// _vote enabled): each subgroup's max (NaN if any lane's is, as maxNan),
// then the subgroups' through rowScratch: 2 barriers instead of 9. Assumes
// subgroups are consecutive runs of gl_LocalInvocationIndex (qmatvec.comp).
float workgroupMax(float v) {
  bool nan = subgroupAny(isnan(v));
  float m = subgroupMax(isnan(v) ? uintBitsToFloat(0xff800000u) : v);
  barrier();  // earlier readers of rowScratch are done
  if (subgroupElect()) rowScratch[gl_SubgroupID] = nan ? uintBitsToFloat(0x7fc00000u) : m;
  barrier();
  float r = rowScratch[0];
  for (uint i = 1u; i < gl_NumSubgroups; ++i) r = maxNan(r, rowScratch[i]);
  return r;
}
#else
float workgroupMax(float v) {
  uint t = gl_LocalInvocationIndex;
  barrier();
  rowScratch[t] = v;
  barrier();
  for (uint h = 64; h > 0; h >>= 1) {
    if (t < h) rowScratch[t] = maxNan(rowScratch[t], rowScratch[t + h]);
    barrier();
  }
  return rowScratch[0];
}
#endif

// This invocation's row and its first element / step within the row.
// Returns false if the row is past `rows` (uniform per workgroup in mode 1).
bool rowSetup(uint rows, out uint row, out uint first, out uint step) {
  if (p[4] == 0) {
    row = linearInvocation();
    first = 0;
    step = 1;
  } else {
    row = linearGroup();
    first = gl_LocalInvocationIndex;
    step = 128;
  }
  return row < rows;
}
