// eltwise: out = program(in0..in7) elementwise, numpy broadcasting, rank <= 6.
//
// The program is a straight line of up to 16 instructions over 16 registers
// of raw 32-bit words; inputs are preloaded into r0..r(numInputs-1). One
// node lowers to a short program; a fusion pass can chain several ops into
// one dispatch. Opcodes: eltwise_ops.def. Host side: kernels/eltwise_program.h.
//
// Bindings: 1..8 = inputs (unused slots repeat input 0), 9 = output.
// Params:
//   p[0] count        output elements
//   p[1] numInputs    1..8
//   p[2] numInstrs    1..16
//   p[3] outReg       register written to the output
//   p[4] linearMask   bit k: input k is laid out like the output (index = i)
//   p[5..10]          output dims, 6 entries, leading 1s
//   p[11 + 6k + d]    element stride of input k along output dim d (0 = broadcast)
//   p[59 + 2d ..]     output dim d as a fast divisor: mul, shift (0, 0: divide)
//   p[71 + 3j ..]     instruction j: op | dst<<8 | a<<12 | b<<16 | c<<20, imm0, imm1
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

#include "eltwise_inputs.glsl"
layout(std430, set = 0, binding = 9) writeonly buffer Out { uint outv[]; };

const uint kDivisors = EW_PARAM_DIVISORS, kProgram = EW_PARAM_PROGRAM;

// Specialized copies: words 1..4 and the program (specialize.glsl).
SPEC_PARAM(1) SPEC_PARAM(2) SPEC_PARAM(3) SPEC_PARAM(4)
SPEC_PARAM(71) SPEC_PARAM(72) SPEC_PARAM(73)
SPEC_PARAM(74) SPEC_PARAM(75) SPEC_PARAM(76)
SPEC_PARAM(77) SPEC_PARAM(78) SPEC_PARAM(79)
SPEC_PARAM(80) SPEC_PARAM(81) SPEC_PARAM(82)
SPEC_PARAM(83) SPEC_PARAM(84) SPEC_PARAM(85)
SPEC_PARAM(86) SPEC_PARAM(87) SPEC_PARAM(88)
SPEC_PARAM(89) SPEC_PARAM(90) SPEC_PARAM(91)
SPEC_PARAM(92) SPEC_PARAM(93) SPEC_PARAM(94)
SPEC_PARAM(95) SPEC_PARAM(96) SPEC_PARAM(97)
SPEC_PARAM(98) SPEC_PARAM(99) SPEC_PARAM(100)
SPEC_PARAM(101) SPEC_PARAM(102) SPEC_PARAM(103)
SPEC_PARAM(104) SPEC_PARAM(105) SPEC_PARAM(106)
SPEC_PARAM(107) SPEC_PARAM(108) SPEC_PARAM(109)
SPEC_PARAM(110) SPEC_PARAM(111) SPEC_PARAM(112)
SPEC_PARAM(113) SPEC_PARAM(114) SPEC_PARAM(115)
SPEC_PARAM(116) SPEC_PARAM(117) SPEC_PARAM(118)

uint linearMask() { return PARAM(4); }

// Word w of the program: p[kProgram + w], a constant once specialized.
uint programWord(uint w) {
  if (!kSpecialized) return p[kProgram + w];
  switch (w) {
    case 0: return sp71;
    case 1: return sp72;
    case 2: return sp73;
    case 3: return sp74;
    case 4: return sp75;
    case 5: return sp76;
    case 6: return sp77;
    case 7: return sp78;
    case 8: return sp79;
    case 9: return sp80;
    case 10: return sp81;
    case 11: return sp82;
    case 12: return sp83;
    case 13: return sp84;
    case 14: return sp85;
    case 15: return sp86;
    case 16: return sp87;
    case 17: return sp88;
    case 18: return sp89;
    case 19: return sp90;
    case 20: return sp91;
    case 21: return sp92;
    case 22: return sp93;
    case 23: return sp94;
    case 24: return sp95;
    case 25: return sp96;
    case 26: return sp97;
    case 27: return sp98;
    case 28: return sp99;
    case 29: return sp100;
    case 30: return sp101;
    case 31: return sp102;
    case 32: return sp103;
    case 33: return sp104;
    case 34: return sp105;
    case 35: return sp106;
    case 36: return sp107;
    case 37: return sp108;
    case 38: return sp109;
    case 39: return sp110;
    case 40: return sp111;
    case 41: return sp112;
    case 42: return sp113;
    case 43: return sp114;
    case 44: return sp115;
    case 45: return sp116;
    case 46: return sp117;
    case 47: return sp118;
  }
  return 0u;
}

// A copy built by the compiler (kernels/program_codegen.h) has the
// dispatch's program as code: programValue().
#ifdef EW_GENERATED
#include "ew_program.glsl"
#endif

// The inputs' element indices of output element i. One division per axis
// for all the inputs (the digits of i: a multiply-high and a shift each),
// none once the outer axes are all 0, none when every live input is laid
// out like the output. A group often reads several per-channel values
// ([1, C, 1, 1] statistics) beside one large tensor, which a walk per
// input would divide once per input and axis.
void inputIndices(uint i, uint numInputs, out uint idx[EW_MAX_INPUTS]) {
  const uint live = (1u << numInputs) - 1u;
  [[unroll]] for (uint k = 0; k < EW_MAX_INPUTS; ++k) idx[k] = (linearMask() & (1u << k)) != 0u ? i : 0u;
  if ((linearMask() & live) == live) return;
  uint rem = i;
  for (int d = 5; d >= 0 && rem != 0u; --d) {
    uint dim = p[5 + d];
    uint q = fastDiv(rem, dim, p[kDivisors + 2 * d], p[kDivisors + 2 * d + 1]);
    uint digit = rem - q * dim;
    [[unroll]] for (uint k = 0; k < numInputs; ++k)
      if ((linearMask() & (1u << k)) == 0u) idx[k] += digit * p[11 + 6 * k + d];
    rem = q;
  }
}

void main() {
  uint i = linearInvocation();
  if (i >= p[0]) return;
  const uint numInputs = min(PARAM(1), uint(EW_MAX_INPUTS));
  uint idx[EW_MAX_INPUTS];
  inputIndices(i, numInputs, idx);
#ifdef EW_GENERATED
  outv[i] = programValue(idx);
#else
  uint r[EW_MAX_REGS];
  [[unroll]] for (uint k = 0; k < EW_MAX_REGS; ++k) r[k] = 0u;
  const uint mask = EW_MAX_REGS - 1;
  // A specialized copy has constant trip counts and words: the driver may
  // unroll both loops and fold each step's op switch and register indices.
  const uint numInstrs = min(PARAM(2), uint(EW_MAX_INSTRS));
  [[unroll]] for (uint k = 0; k < numInputs; ++k) r[k] = loadInput(k, idx[k]);
  [[unroll]] for (uint j = 0; j < numInstrs; ++j) {
    uint w = programWord(3 * j);
    r[(w >> 8) & mask] = execute(w & 255u, r[(w >> 12) & mask], r[(w >> 16) & mask], r[(w >> 20) & mask],
                                 programWord(3 * j + 1), programWord(3 * j + 2));
  }
  outv[i] = r[PARAM(3) & mask];
#endif
}
