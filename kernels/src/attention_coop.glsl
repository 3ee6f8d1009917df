// attention_f16.comp's `coopnv` body: a workgroup of 4 subgroups owns 64
// query rows of one batch, each subgroup 16 of them, and walks the keys
// in blocks of 64 twice. Per block the workgroup stages K (and, in the
// second walk, V) rounded to fp16 into shared memory; each subgroup
// multiplies its q fragments (16 x 64, loaded once) by the block's kᵀ on
// the cooperative matrix units (16 products of 16x16x16) and stores its
// 16 x 64 scores in f32 to its own part of shared memory, where its lanes
// (2 per row, 32 keys each) scale and mask them: the first walk keeps each
// row's max, the second turns them into weights exp(s - max), adds them
// up in f32 and stores them rounded to fp16, the A operand of o += p v
// (16 more products into 4 f32 accumulators that stay in registers for
// the whole walk). At the end each subgroup stores its accumulators to
// shared memory and its lanes divide them by the row sums into `out`.
// The next block's K and V are loaded into registers while this block
// multiplies. Heads narrower than 64 are zero-padded in shared memory.
//
// Shared memory: K and V blocks (64 x 72 halves each; q's 64 rows pass
// through K's), per subgroup 16 x 72 f32 scores and 16 x 72 fp16 weights:
// 45 KiB. Rows are padded so that the cooperative loads' rows stay 16-byte
// aligned and the lanes' vec4 reads of the scores hit distinct banks.
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require

#define BC 64u                            // keys per block
#define PH 18u                            // row pitch of a fp16 tile in uvec2s (64 + 8 halves)
#define PS 18u                            // row pitch of a subgroup's scores in vec4s (64 + 8 floats)
#define PER (BC * 16u / THREADS)          // vec4s of a block each invocation stages
shared uvec2 sK[BC * PH];                 // K's block [key][d]; q's rows [row][d] first
shared uvec2 sV[BC * PH];                 // V's block [key][dv]
shared uvec4 sS[THREADS / 32u * 16u * PS];  // (f32 bits) per subgroup: its rows' scores, at the end its output
shared uvec2 sP[THREADS / 32u * 16u * PH];  // per subgroup: its rows' weights, fp16
shared float sX[THREADS];                 // the two lanes of a row exchange their max / sum

#define ACC fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define OPERAND fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>

uvec2 half4(vec4 v) { return uvec2(packFloat2x16(f16vec2(v.xy)), packFloat2x16(f16vec2(v.zw))); }

// Rows first.. of a [rows, W] operand (W = 4 w4 floats, rows `stride`
// vec4s apart, zero past `count` and past w4) as vec4 i of each
// invocation's share of a 64 x 64 tile: row task / 16, vec4 task % 16.
#define LOAD_TILE(R, SRC, BASE, STRIDE, W4, FIRST, COUNT)                                   \
  [[unroll]] for (uint i = 0u; i < PER; ++i) {                                              \
    uint task = t + i * THREADS, r = (FIRST) + task / 16u, c4 = task % 16u;                 \
    R[i] = r < (COUNT) && c4 < (W4) ? SRC[(BASE) + r * (STRIDE) + c4] : vec4(0.0);          \
  }
#define STORE_TILE(DST, R)                                                                  \
  [[unroll]] for (uint i = 0u; i < PER; ++i) {                                              \
    uint task = t + i * THREADS;                                                            \
    DST[(task / 16u) * PH + task % 16u] = half4(R[i]);                                      \
  }

// The other lane's x of this row (lanes 2 r and 2 r + 1 of a subgroup).
float partner(float x) {
  uint t = gl_LocalInvocationIndex;
  sX[t] = x;
  subgroupMemoryBarrierShared();
  subgroupBarrier();
  float y = sX[t ^ 1u];
  subgroupBarrier();
  return y;
}

// The subgroup's 16 x 64 products q kᵀ of the block in sK, into its rows
// of sS (visible to its lanes after).
#define SCORES()                                                                            \
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {                                               \
    ACC acc = ACC(0.0);                                                                     \
    [[unroll]] for (uint i = 0u; i < 4u; ++i) {                                             \
      if (16u * i < D) {                                                                    \
        OPERAND fk;                                                                         \
        coopMatLoadNV(fk, sK, 16u * j * PH + 4u * i, PH, true);                             \
        acc = coopMatMulAddNV(fq[i], fk, acc);                                              \
      }                                                                                     \
    }                                                                                       \
    coopMatStoreNV(acc, sS, 16u * sg * PS + 4u * j, PS, false);                             \
  }                                                                                         \
  subgroupMemoryBarrierShared();                                                            \
  subgroupBarrier();

void attendBlock(uint b, uint row0) {
  uint T = p[1], S = p[2], D = PARAM(3), Dv = PARAM(4);
  bool hasMask = PARAM(6) != 0u;
  float scale = pfloat(5);
  Bases at = bases(b);
  uint t = gl_LocalInvocationIndex, sg = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  // Lane (r, h): row r of the subgroup's 16, keys 8 m + 4 h .. + 3 of a block for m < 8 (vec4 2 m + h).
  uint r = lane >> 1u, h = lane & 1u, row = row0 + 16u * sg + r;
  uint sRow = (16u * sg + r) * PS, pRow = (16u * sg + r) * PH;
  vec4 kr[PER], vr[PER];

  barrier();  // the previous block's readers are done with sK
  LOAD_TILE(kr, q4, at.q, at.qStride, D / 4u, row0, T)
  STORE_TILE(sK, kr)
  LOAD_TILE(kr, k4, at.k, at.kStride, D / 4u, 0u, S)  // the first K block, in flight
  barrier();
  OPERAND fq[4];
  [[unroll]] for (uint i = 0u; i < 4u; ++i) coopMatLoadNV(fq[i], sK, 16u * sg * PH + 4u * i, PH, false);
  uint blocks = (S + BC - 1u) / BC;

  // Walk 1: each row's max over all its keys.
  float mx = kNegInf;
  for (uint kb = 0u; kb < blocks; ++kb) {
    barrier();  // q's fragments / the last block's kᵀ are read
    STORE_TILE(sK, kr)
    barrier();
    if (kb + 1u < blocks) {
      LOAD_TILE(kr, k4, at.k, at.kStride, D / 4u, BC * (kb + 1u), S)
    } else {
      LOAD_TILE(kr, k4, at.k, at.kStride, D / 4u, 0u, S)  // walk 2's first block
      LOAD_TILE(vr, v4, at.v, at.vStride, Dv / 4u, 0u, S)
    }
    SCORES()
    [[unroll]] for (uint m = 0u; m < 8u; ++m) {
      vec4 dots = uintBitsToFloat(sS[sRow + 2u * m + h]);
      [[unroll]] for (uint c = 0u; c < 4u; ++c) {
        float s = score(dots[c], row, BC * kb + 8u * m + 4u * h + c, T, S, scale, hasMask);
        mx = isnan(s) || isnan(mx) ? s + mx : max(mx, s);
      }
    }
    subgroupBarrier();  // the scores are read before the next block's overwrite them
  }
  float other = partner(mx);
  mx = isnan(mx) || isnan(other) ? mx + other : max(mx, other);

  // Walk 2: the weights, their sums, o += p v.
  float l = 0.0;
  ACC o[4];
  [[unroll]] for (uint j = 0u; j < 4u; ++j) o[j] = ACC(0.0);
  for (uint kb = 0u; kb < blocks; ++kb) {
    barrier();  // the last block's kᵀ and v are read
    STORE_TILE(sK, kr)
    STORE_TILE(sV, vr)
    barrier();
    if (kb + 1u < blocks) {
      LOAD_TILE(kr, k4, at.k, at.kStride, D / 4u, BC * (kb + 1u), S)
      LOAD_TILE(vr, v4, at.v, at.vStride, Dv / 4u, BC * (kb + 1u), S)
    }
    SCORES()
    [[unroll]] for (uint m = 0u; m < 8u; ++m) {
      vec4 dots = uintBitsToFloat(sS[sRow + 2u * m + h]), w;
      [[unroll]] for (uint c = 0u; c < 4u; ++c) {
        w[c] = exp(score(dots[c], row, BC * kb + 8u * m + 4u * h + c, T, S, scale, hasMask) - mx);
        l += w[c];
      }
      sP[pRow + 2u * m + h] = half4(w);
    }
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    [[unroll]] for (uint kk = 0u; kk < 4u; ++kk) {
      OPERAND fp;
      coopMatLoadNV(fp, sP, 16u * sg * PH + 4u * kk, PH, false);
      [[unroll]] for (uint j = 0u; j < 4u; ++j) {
        if (16u * j < Dv) {
          OPERAND fv;
          coopMatLoadNV(fv, sV, 16u * kk * PH + 4u * j, PH, false);
          o[j] = coopMatMulAddNV(fp, fv, o[j]);
        }
      }
    }
  }
  l += partner(l);

  // The output: each subgroup's accumulators through its score rows.
  [[unroll]] for (uint j = 0u; j < 4u; ++j) coopMatStoreNV(o[j], sS, 16u * sg * PS + 4u * j, PS, false);
  subgroupMemoryBarrierShared();
  subgroupBarrier();
  uint Dv4 = Dv / 4u;
  if (row < T)
    [[unroll]] for (uint m = 0u; m < 8u; ++m) {
      uint c4 = 2u * m + h;
      if (c4 < Dv4) out4[at.o + row * at.oStride + c4] = uintBitsToFloat(sS[sRow + c4]) / l;
    }
}

void main() {
  uint T = p[1], blocks = (T + 63u) / 64u, batches = p[0] / T;
  for (uint b = gl_WorkGroupID.y; b < batches; b += gl_NumWorkGroups.y)
    for (uint qb = gl_WorkGroupID.x; qb < blocks; qb += gl_NumWorkGroups.x) attendBlock(b, 64u * qb);
}
