// The reduce kernels' arithmetic (reduce.comp, reduce_fused.comp): op
// codes 0 sum, 1 mean, 2 max, 3 min, 4 prod, 5 argmax on raw 32-bit words,
// isInt selecting i32 or f32, and the workgroup's shared-memory tree.
#ifndef MGC_REDUCE_OPS_GLSL_
#define MGC_REDUCE_OPS_GLSL_

uint identity(uint op, bool isInt) {
  if (op == 0 || op == 1) return 0u;  // 0 and 0.0 share their bits
  if (op == 4) return isInt ? 1u : floatBitsToUint(1.0);
  if (op == 3) return isInt ? 0x7fffffffu : 0x7f800000u;
  return isInt ? 0x80000000u : 0xff800000u;  // max, argmax
}

// True if (v, i) beats (best, bestIdx) for argmax: greater, NaN, or equal
// with a lower index (the first maximum wins).
bool argBetter(uint v, uint i, uint best, uint bestIdx, bool isInt) {
  if (isInt) return int(v) > int(best) || (v == best && i < bestIdx);
  float a = uintBitsToFloat(v), b = uintBitsToFloat(best);
  if (isnan(b)) return isnan(a) && i < bestIdx;
  return isnan(a) || a > b || (a == b && i < bestIdx);
}

uint combine(uint op, bool isInt, uint a, uint b) {
  if (isInt) {
    int x = int(a), y = int(b);
    if (op <= 1) return uint(x + y);
    if (op == 2) return uint(max(x, y));
    if (op == 3) return uint(min(x, y));
    return uint(x * y);
  }
  float x = uintBitsToFloat(a), y = uintBitsToFloat(b);
  if ((op == 2 || op == 3) && (isnan(x) || isnan(y))) return floatBitsToUint(x + y);
  if (op <= 1) return floatBitsToUint(x + y);
  if (op == 2) return floatBitsToUint(max(x, y));
  if (op == 3) return floatBitsToUint(min(x, y));
  return floatBitsToUint(x * y);
}

uint finish(uint op, bool isInt, uint acc, uint R) {
  if (op != 1) return acc;
  return isInt ? uint(int(acc) / int(max(R, 1u))) : floatBitsToUint(uintBitsToFloat(acc) / float(R));
}

void accumulate(uint op, bool isInt, uint v, uint r, inout uint val, inout uint idx) {
  if (op == 5) {
    if (argBetter(v, r, val, idx, isInt)) { val = v; idx = r; }
  } else {
    val = combine(op, isInt, val, v);
  }
}

shared uint sharedVal[128];
shared uint sharedIdx[128];

// Combines the 128 invocations' partials (val, idx) into invocation 0's;
// the whole workgroup calls it.
void reduceGroup(uint t, uint op, bool isInt, inout uint val, inout uint idx) {
  sharedVal[t] = val;
  sharedIdx[t] = idx;
  barrier();
  for (uint half_ = 64; half_ > 0; half_ >>= 1) {
    if (t < half_) {
      uint v = sharedVal[t + half_], i = sharedIdx[t + half_];
      if (op == 5) {
        if (i != 0xffffffffu && argBetter(v, i, sharedVal[t], sharedIdx[t], isInt)) {
          sharedVal[t] = v;
          sharedIdx[t] = i;
        }
      } else {
        sharedVal[t] = combine(op, isInt, sharedVal[t], v);
      }
    }
    barrier();
  }
  val = sharedVal[0];
  idx = sharedIdx[0];
}

#endif
