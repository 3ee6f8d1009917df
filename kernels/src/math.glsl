// Float helpers with the accuracy and edge-case behaviour of the CPU
// reference (ir/eval*.cpp), which computes in double. GLSL's own
// versions are left undefined at the edges (pow of a negative base, tanh of
// large |x|) or missing (erf).

// erf: Taylor series near 0 (relative accuracy), Numerical Recipes' erfc
// approximation (fractional error < 1.2e-7) elsewhere.
float erfApprox(float x) {
  float z = abs(x);
  if (z < 0.5) {
    float x2 = x * x;
    return 1.1283791671 * x *
           (1.0 + x2 * (-1.0 / 3.0 + x2 * (0.1 + x2 * (-1.0 / 42.0 + x2 * (1.0 / 216.0 - x2 / 1320.0)))));
  }
  float t = 1.0 / (1.0 + 0.5 * z);
  float r = t * exp(-z * z - 1.26551223 +
                    t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 +
                    t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return x >= 0.0 ? 1.0 - r : r - 1.0;
}

float tanhSafe(float x) {
  float z = min(abs(x), 15.0);  // tanh(15) rounds to 1 in f32; avoids inf/inf
  float e = exp(-2.0 * z);
  float t = z < 0.01 ? z * (1.0 - z * z / 3.0) : (1.0 - e) / (1.0 + e);
  return x < 0.0 ? -t : t;
}

float sigmoid(float x) {
  float e = exp(-abs(x));  // never overflows
  return x >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}

float log1pSmall(float t) { return t < 1e-4 ? t * (1.0 - 0.5 * t) : log(1.0 + t); }

float softplus(float x) { return max(x, 0.0) + log1pSmall(exp(-abs(x))); }

float expm1Small(float x) { return abs(x) < 1e-4 ? x * (1.0 + 0.5 * x) : exp(x) - 1.0; }

// pow with C semantics for negative bases and integral exponents.
float powC(float x, float y) {
  if (y == 0.0) return 1.0;
  if (isnan(x) || isnan(y)) return x + y;
  if (x == 0.0) return y > 0.0 ? 0.0 : uintBitsToFloat(0x7f800000u);
  if (floor(y) == y && abs(y) <= 64.0) {  // exact for integer results
    float r = 1.0, b = x;
    for (uint e = uint(abs(y)); e != 0u; e >>= 1) {
      if ((e & 1u) != 0u) r *= b;
      b *= b;
    }
    return y < 0.0 ? 1.0 / r : r;
  }
  float r = exp2(y * log2(abs(x)));
  if (x > 0.0) return r;
  if (floor(y) != y) return uintBitsToFloat(0x7fc00000u);  // NaN
  return mod(y, 2.0) == 1.0 ? -r : r;
}

int powI(int base, int e) {
  if (e < 0) return base == 1 ? 1 : (base == -1 ? ((e & 1) != 0 ? -1 : 1) : 0);
  int r = 1;
  for (int k = 0; k < 32 && e != 0; ++k) {
    if ((e & 1) != 0) r *= base;
    base *= base;
    e >>= 1;
  }
  return r;
}

int f2iSat(float x) {
  if (isnan(x)) return 0;
  if (x >= 2147483520.0) return 2147483647;
  if (x <= -2147483648.0) return -2147483647 - 1;
  return int(x);  // toward zero
}

// x rounded to IEEE binary16, to nearest, ties to even, in software (what
// packHalf2x16 does is implementation-defined, e.g. for subnormals): the
// same bits as formats/dtype.h floatToHalf on every device. Beyond the
// largest half (65504) by half an ulp or more: ±inf; a NaN stays a NaN.
float roundToHalf(float x) {
  if (isnan(x)) return x;
  float a = abs(x);
  if (a >= 65520.0) return x > 0.0 ? uintBitsToFloat(0x7f800000u) : uintBitsToFloat(0xff800000u);
  if (a < 6.103515625e-05) return roundEven(x * 16777216.0) * 5.9604644775390625e-08;  // subnormal: 2^-24 steps
  uint b = floatBitsToUint(x);
  b += 0xfffu + ((b >> 13) & 1u);
  return uintBitsToFloat(b & 0xffffe000u);
}

// x rounded to bfloat16 (the top 16 bits of an f32), to nearest, ties to
// even; overflow becomes inf, a NaN stays a NaN.
float roundToBf16(float x) {
  if (isnan(x)) return x;
  uint b = floatBitsToUint(x);
  b += 0x7fffu + ((b >> 16) & 1u);
  return uintBitsToFloat(b & 0xffff0000u);
}
