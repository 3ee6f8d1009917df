// eltwise: out = program(in0..in3) elementwise, numpy broadcasting, rank <= 6.
//
// The program is a straight line of up to 16 instructions over 8 registers
// of raw 32-bit words; inputs are preloaded into r0..r(numInputs-1). One
// node lowers to a short program; a fusion pass can chain several ops into
// one dispatch. Opcodes: eltwise_ops.def. Host side: kernels/eltwise_program.h.
//
// Bindings: 1..4 = inputs (unused slots repeat input 0), 5 = output.
// Params:
//   p[0] count        output elements
//   p[1] numInputs    1..4
//   p[2] numInstrs    1..16
//   p[3] outReg       register written to the output
//   p[4] linearMask   bit k: input k is laid out like the output (index = i)
//   p[5..10]          output dims, 6 entries, leading 1s
//   p[11 + 6k + d]    element stride of input k along output dim d (0 = broadcast)
//   p[35 + 2d ..]     output dim d as a fast divisor: mul, shift (0, 0: divide)
//   p[47 + 3j ..]     instruction j: op | dst<<8 | a<<12 | b<<16 | c<<20, imm0, imm1
// Specialized copies (kernels/specialize.h, specialize.glsl): words 1..4
// and the program are also specialization constants; in a copy the compiler
// wrote for one dispatch they are constants, the driver unrolls the
// program, folds the op switch and the register indices, and loads only the
// live inputs.
#version 450
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 256) in;
#include "common.glsl"
#include "math.glsl"
#include "eltwise_abi.h"
#include "specialize.glsl"

#include "eltwise_exec.glsl"

layout(std430, set = 0, binding = 1) readonly buffer In0 { uint in0[]; };
layout(std430, set = 0, binding = 2) readonly buffer In1 { uint in1[]; };
layout(std430, set = 0, binding = 3) readonly buffer In2 { uint in2[]; };
layout(std430, set = 0, binding = 4) readonly buffer In3 { uint in3[]; };
layout(std430, set = 0, binding = 5) writeonly buffer Out { uint outv[]; };

const uint kDivisors = 35, kProgram = 47;

// Specialized copies: words 1..4 and the program (specialize.glsl).
SPEC_PARAM(1) SPEC_PARAM(2) SPEC_PARAM(3) SPEC_PARAM(4)
SPEC_PARAM(47) SPEC_PARAM(48) SPEC_PARAM(49)
SPEC_PARAM(50) SPEC_PARAM(51) SPEC_PARAM(52)
SPEC_PARAM(53) SPEC_PARAM(54) SPEC_PARAM(55)
SPEC_PARAM(56) SPEC_PARAM(57) SPEC_PARAM(58)
SPEC_PARAM(59) SPEC_PARAM(60) SPEC_PARAM(61)
SPEC_PARAM(62) SPEC_PARAM(63) SPEC_PARAM(64)
SPEC_PARAM(65) SPEC_PARAM(66) SPEC_PARAM(67)
SPEC_PARAM(68) SPEC_PARAM(69) SPEC_PARAM(70)
SPEC_PARAM(71) SPEC_PARAM(72) SPEC_PARAM(73)
SPEC_PARAM(74) SPEC_PARAM(75) SPEC_PARAM(76)
SPEC_PARAM(77) SPEC_PARAM(78) SPEC_PARAM(79)
SPEC_PARAM(80) SPEC_PARAM(81) SPEC_PARAM(82)
SPEC_PARAM(83) SPEC_PARAM(84) SPEC_PARAM(85)
SPEC_PARAM(86) SPEC_PARAM(87) SPEC_PARAM(88)
SPEC_PARAM(89) SPEC_PARAM(90) SPEC_PARAM(91)
SPEC_PARAM(92) SPEC_PARAM(93) SPEC_PARAM(94)

uint linearMask() { return PARAM(4); }

// Word w of the program: p[kProgram + w], a constant once specialized.
uint programWord(uint w) {
  if (!kSpecialized) return p[kProgram + w];
  switch (w) {
    case 0: return sp47;
    case 1: return sp48;
    case 2: return sp49;
    case 3: return sp50;
    case 4: return sp51;
    case 5: return sp52;
    case 6: return sp53;
    case 7: return sp54;
    case 8: return sp55;
    case 9: return sp56;
    case 10: return sp57;
    case 11: return sp58;
    case 12: return sp59;
    case 13: return sp60;
    case 14: return sp61;
    case 15: return sp62;
    case 16: return sp63;
    case 17: return sp64;
    case 18: return sp65;
    case 19: return sp66;
    case 20: return sp67;
    case 21: return sp68;
    case 22: return sp69;
    case 23: return sp70;
    case 24: return sp71;
    case 25: return sp72;
    case 26: return sp73;
    case 27: return sp74;
    case 28: return sp75;
    case 29: return sp76;
    case 30: return sp77;
    case 31: return sp78;
    case 32: return sp79;
    case 33: return sp80;
    case 34: return sp81;
    case 35: return sp82;
    case 36: return sp83;
    case 37: return sp84;
    case 38: return sp85;
    case 39: return sp86;
    case 40: return sp87;
    case 41: return sp88;
    case 42: return sp89;
    case 43: return sp90;
    case 44: return sp91;
    case 45: return sp92;
    case 46: return sp93;
    case 47: return sp94;
  }
  return 0u;
}

uint loadInput(uint k, uint i) {
  if (k == 0) return in0[i];
  if (k == 1) return in1[i];
  if (k == 2) return in2[i];
  return in3[i];
}

// Integer divisions dominate here: each a multiply-high and a shift, none
// once the outer axes are all 0.
uint inputIndex(uint k, uint i) {
  if ((linearMask() & (1u << k)) != 0) return i;
  uint rem = i, idx = 0;
  for (int d = 5; d >= 0 && rem != 0u; --d) {
    uint dim = p[5 + d], stride = p[11 + 6 * k + d];
    uint q = fastDiv(rem, dim, p[kDivisors + 2 * d], p[kDivisors + 2 * d + 1]);
    if (stride != 0u) idx += (rem - q * dim) * stride;
    rem = q;
  }
  return idx;
}

void main() {
  uint i = linearInvocation();
  if (i >= p[0]) return;
  uint r[EW_MAX_REGS] = uint[EW_MAX_REGS](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
  const uint mask = EW_MAX_REGS - 1;
  // A specialized copy has constant trip counts and words: the driver
  // unrolls both loops and folds each step's op switch and register indices.
  const uint numInputs = min(PARAM(1), uint(EW_MAX_INPUTS));
  const uint numInstrs = min(PARAM(2), uint(EW_MAX_INSTRS));
  [[unroll]] for (uint k = 0; k < numInputs; ++k) r[k] = loadInput(k, inputIndex(k, i));
  [[unroll]] for (uint j = 0; j < numInstrs; ++j) {
    uint w = programWord(3 * j);
    r[(w >> 8) & mask] = execute(w & 255u, r[(w >> 12) & mask], r[(w >> 16) & mask], r[(w >> 20) & mask],
                                 programWord(3 * j + 1), programWord(3 * j + 2));
  }
  outv[i] = r[PARAM(3) & mask];
}
