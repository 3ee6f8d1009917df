// The eltwise program's instructions (opcodes: eltwise_ops.def): execute()
// runs one on raw 32-bit words. Included by eltwise.comp and
// reduce_fused.comp after common.glsl and math.glsl.
#ifndef MGC_ELTWISE_EXEC_GLSL_
#define MGC_ELTWISE_EXEC_GLSL_

#define EW_OP(name, code) const uint OP_##name = code;
#include "eltwise_ops.def"

// Toward zero on magnitudes: GLSL leaves signed division of negative
// operands to the implementation.
uint divTrunc(int x, int y) {
  if (y == 0) return 0u;
  uint q = uint(abs(x)) / uint(abs(y));
  return (x < 0) != (y < 0) ? uint(-int(q)) : q;
}

float F(uint x) { return uintBitsToFloat(x); }
int I(uint x) { return int(x); }
uint U(float x) { return floatBitsToUint(x); }
uint U(int x) { return uint(x); }
uint B(bool x) { return x ? 1u : 0u; }

uint execute(uint op, uint a, uint b, uint c, uint imm0, uint imm1) {
  float x = F(a), y = F(b);
  switch (op) {
    case OP_MOV: return a;
    case OP_CONST: return imm0;
    case OP_NEG_F: return U(-x);
    case OP_NEG_I: return U(-I(a));
    case OP_ABS_F: return U(abs(x));
    case OP_ABS_I: return U(abs(I(a)));
    case OP_EXP: return U(exp(x));
    case OP_LOG: return U(log(x));
    case OP_SQRT: return U(sqrt(x));
    case OP_RECIP: return U(1.0 / x);
    case OP_RELU_F: return U(max(x, 0.0));
    case OP_RELU_I: return U(max(I(a), 0));
    case OP_SIGMOID: return U(sigmoid(x));
    case OP_TANH: return U(tanhSafe(x));
    case OP_ERF: return U(erfApprox(x));
    case OP_FLOOR: return U(floor(x));
    case OP_CEIL: return U(ceil(x));
    case OP_ROUND: return U(roundEven(x));
    case OP_SIN: return U(sin(x));
    case OP_COS: return U(cos(x));
    case OP_ATAN: return U(atan(x));
    case OP_SIGN_F: return U(sign(x));
    case OP_SIGN_I: return U(sign(I(a)));
    case OP_NOT: return B(a == 0);
    case OP_SOFTPLUS: return U(softplus(x));
    case OP_HARD_SWISH: return U(x * clamp(x / 6.0 + 0.5, 0.0, 1.0));
    case OP_LEAKY_RELU: return U(x >= 0.0 ? x : x * F(imm0));
    case OP_ELU: return U(x >= 0.0 ? x : F(imm0) * expm1Small(x));
    case OP_HARD_SIGMOID: return U(clamp(F(imm0) * x + F(imm1), 0.0, 1.0));
    case OP_CLIP_F: return U(min(max(x, F(imm0)), F(imm1)));
    case OP_CLIP_I: return U(min(max(I(a), I(imm0)), I(imm1)));
    case OP_GELU_ERF: return U(0.5 * x * (1.0 + erfApprox(x * 0.70710678118654752)));
    case OP_GELU_TANH: return U(0.5 * x * (1.0 + tanhSafe(0.79788456080286536 * (x + 0.044715 * x * x * x))));
    case OP_F2I: return U(f2iSat(x));
    case OP_I2F: return U(float(I(a)));
    case OP_F2B: return B(x != 0.0);
    case OP_I2B: return B(a != 0);
    case OP_F2H: return U(roundToHalf(x));
    case OP_I2I8: return U(bitfieldExtract(I(a), 0, 8));
    case OP_I2U8: return a & 255u;
    case OP_I2I16: return U(bitfieldExtract(I(a), 0, 16));
    case OP_I2U16: return a & 65535u;
    case OP_F2BF: return U(roundToBf16(x));
    case OP_ADD_F: return U(x + y);
    case OP_ADD_I: return U(I(a) + I(b));
    case OP_SUB_F: return U(x - y);
    case OP_SUB_I: return U(I(a) - I(b));
    case OP_MUL_F: return U(x * y);
    case OP_MUL_I: return U(I(a) * I(b));
    case OP_DIV_F: return U(x / y);
    case OP_DIV_I: return divTrunc(I(a), I(b));
    case OP_POW_F: return U(powC(x, y));
    case OP_POW_I: return U(powI(I(a), I(b)));
    case OP_MAX_F: return isnan(x) || isnan(y) ? U(x + y) : U(max(x, y));
    case OP_MAX_I: return U(max(I(a), I(b)));
    case OP_MIN_F: return isnan(x) || isnan(y) ? U(x + y) : U(min(x, y));
    case OP_MIN_I: return U(min(I(a), I(b)));
    case OP_EQ_F: return B(x == y);
    case OP_EQ_I: return B(a == b);
    case OP_LT_F: return B(x < y);
    case OP_LT_I: return B(I(a) < I(b));
    case OP_LE_F: return B(x <= y);
    case OP_LE_I: return B(I(a) <= I(b));
    case OP_GT_F: return B(x > y);
    case OP_GT_I: return B(I(a) > I(b));
    case OP_GE_F: return B(x >= y);
    case OP_GE_I: return B(I(a) >= I(b));
    case OP_AND: return B(a != 0 && b != 0);
    case OP_OR: return B(a != 0 || b != 0);
    case OP_XOR: return B((a != 0) != (b != 0));
    case OP_WHERE: return a != 0 ? b : c;
  }
  return 0u;
}

#endif
