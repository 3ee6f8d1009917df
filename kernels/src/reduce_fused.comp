// reduce_fused: a reduction (sum / mean / max / min, f32) of an eltwise
// program's result (ir/fused_reduce.h: fused_reduce), the program run on
// the inputs as they are read, so its result is never stored. The walks are
// reduce.comp's, with one set of strides per input (a broadcast input has
// stride 0): the host views each input in the reduced shape
// (broadcastViewStrides) and splits its dims into kept and reduced ones.
// Mode 0: one invocation per output; mode 1: one workgroup per output.
//
// Bindings: 1..4 = inputs (unused slots repeat input 0), 5 = out.
// Params:
//   p[0] outCount  p[1] R (reduced extent)  p[2] op (0 sum, 1 mean, 2 max,
//   3 min)  p[3] 0  p[4] mode
//   p[5..10] kept dims (6, leading 1s)      p[11..16] reduced dims
//   p[17] numInputs  p[18] numInstrs  p[19] outReg (as eltwise.comp's)
//   p[20 + 6k + d] kept strides of input k  p[44 + 6k + d] reduced strides
//   p[68 + 3j ..] instruction j (eltwise.comp's encoding)
#version 450
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 128) in;
#include "common.glsl"
#include "math.glsl"
#include "eltwise_abi.h"
#include "specialize.glsl"
#include "eltwise_exec.glsl"
#include "reduce_ops.glsl"

layout(std430, set = 0, binding = 1) readonly buffer In0 { uint in0[]; };
layout(std430, set = 0, binding = 2) readonly buffer In1 { uint in1[]; };
layout(std430, set = 0, binding = 3) readonly buffer In2 { uint in2[]; };
layout(std430, set = 0, binding = 4) readonly buffer In3 { uint in3[]; };
layout(std430, set = 0, binding = 5) writeonly buffer Out { uint outv[]; };

const uint kKeptDims = 5, kRedDims = 11, kKeptStrides = 20, kRedStrides = 44, kProgram = 68;

// Specialized copies (kernels/specialize.h): every word is a constant, so
// the driver folds the walks, unrolls the program and loads only the live
// inputs.
SPEC_PARAM(0) SPEC_PARAM(1) SPEC_PARAM(2) SPEC_PARAM(3) SPEC_PARAM(4) SPEC_PARAM(5) SPEC_PARAM(6) SPEC_PARAM(7) SPEC_PARAM(8) SPEC_PARAM(9) SPEC_PARAM(10) SPEC_PARAM(11)
SPEC_PARAM(12) SPEC_PARAM(13) SPEC_PARAM(14) SPEC_PARAM(15) SPEC_PARAM(16) SPEC_PARAM(17) SPEC_PARAM(18) SPEC_PARAM(19) SPEC_PARAM(20) SPEC_PARAM(21) SPEC_PARAM(22) SPEC_PARAM(23)
SPEC_PARAM(24) SPEC_PARAM(25) SPEC_PARAM(26) SPEC_PARAM(27) SPEC_PARAM(28) SPEC_PARAM(29) SPEC_PARAM(30) SPEC_PARAM(31) SPEC_PARAM(32) SPEC_PARAM(33) SPEC_PARAM(34) SPEC_PARAM(35)
SPEC_PARAM(36) SPEC_PARAM(37) SPEC_PARAM(38) SPEC_PARAM(39) SPEC_PARAM(40) SPEC_PARAM(41) SPEC_PARAM(42) SPEC_PARAM(43) SPEC_PARAM(44) SPEC_PARAM(45) SPEC_PARAM(46) SPEC_PARAM(47)
SPEC_PARAM(48) SPEC_PARAM(49) SPEC_PARAM(50) SPEC_PARAM(51) SPEC_PARAM(52) SPEC_PARAM(53) SPEC_PARAM(54) SPEC_PARAM(55) SPEC_PARAM(56) SPEC_PARAM(57) SPEC_PARAM(58) SPEC_PARAM(59)
SPEC_PARAM(60) SPEC_PARAM(61) SPEC_PARAM(62) SPEC_PARAM(63) SPEC_PARAM(64) SPEC_PARAM(65) SPEC_PARAM(66) SPEC_PARAM(67) SPEC_PARAM(68) SPEC_PARAM(69) SPEC_PARAM(70) SPEC_PARAM(71)
SPEC_PARAM(72) SPEC_PARAM(73) SPEC_PARAM(74) SPEC_PARAM(75) SPEC_PARAM(76) SPEC_PARAM(77) SPEC_PARAM(78) SPEC_PARAM(79) SPEC_PARAM(80) SPEC_PARAM(81) SPEC_PARAM(82) SPEC_PARAM(83)
SPEC_PARAM(84) SPEC_PARAM(85) SPEC_PARAM(86) SPEC_PARAM(87) SPEC_PARAM(88) SPEC_PARAM(89) SPEC_PARAM(90) SPEC_PARAM(91) SPEC_PARAM(92) SPEC_PARAM(93) SPEC_PARAM(94) SPEC_PARAM(95)
SPEC_PARAM(96) SPEC_PARAM(97) SPEC_PARAM(98) SPEC_PARAM(99) SPEC_PARAM(100) SPEC_PARAM(101) SPEC_PARAM(102) SPEC_PARAM(103) SPEC_PARAM(104) SPEC_PARAM(105) SPEC_PARAM(106) SPEC_PARAM(107)
SPEC_PARAM(108) SPEC_PARAM(109) SPEC_PARAM(110) SPEC_PARAM(111) SPEC_PARAM(112) SPEC_PARAM(113) SPEC_PARAM(114) SPEC_PARAM(115)
uint param(uint k) {
  if (kSpecialized) switch (k) {
      SPEC_CASE(0) SPEC_CASE(1) SPEC_CASE(2) SPEC_CASE(3) SPEC_CASE(4) SPEC_CASE(5) SPEC_CASE(6) SPEC_CASE(7) SPEC_CASE(8) SPEC_CASE(9) SPEC_CASE(10) SPEC_CASE(11)
      SPEC_CASE(12) SPEC_CASE(13) SPEC_CASE(14) SPEC_CASE(15) SPEC_CASE(16) SPEC_CASE(17) SPEC_CASE(18) SPEC_CASE(19) SPEC_CASE(20) SPEC_CASE(21) SPEC_CASE(22) SPEC_CASE(23)
      SPEC_CASE(24) SPEC_CASE(25) SPEC_CASE(26) SPEC_CASE(27) SPEC_CASE(28) SPEC_CASE(29) SPEC_CASE(30) SPEC_CASE(31) SPEC_CASE(32) SPEC_CASE(33) SPEC_CASE(34) SPEC_CASE(35)
      SPEC_CASE(36) SPEC_CASE(37) SPEC_CASE(38) SPEC_CASE(39) SPEC_CASE(40) SPEC_CASE(41) SPEC_CASE(42) SPEC_CASE(43) SPEC_CASE(44) SPEC_CASE(45) SPEC_CASE(46) SPEC_CASE(47)
      SPEC_CASE(48) SPEC_CASE(49) SPEC_CASE(50) SPEC_CASE(51) SPEC_CASE(52) SPEC_CASE(53) SPEC_CASE(54) SPEC_CASE(55) SPEC_CASE(56) SPEC_CASE(57) SPEC_CASE(58) SPEC_CASE(59)
      SPEC_CASE(60) SPEC_CASE(61) SPEC_CASE(62) SPEC_CASE(63) SPEC_CASE(64) SPEC_CASE(65) SPEC_CASE(66) SPEC_CASE(67)
    }
  return p[k];
}


uint programWord(uint w) {
  if (kSpecialized) switch (kProgram + w) {
      SPEC_CASE(68) SPEC_CASE(69) SPEC_CASE(70) SPEC_CASE(71) SPEC_CASE(72) SPEC_CASE(73) SPEC_CASE(74) SPEC_CASE(75) SPEC_CASE(76) SPEC_CASE(77) SPEC_CASE(78) SPEC_CASE(79)
      SPEC_CASE(80) SPEC_CASE(81) SPEC_CASE(82) SPEC_CASE(83) SPEC_CASE(84) SPEC_CASE(85) SPEC_CASE(86) SPEC_CASE(87) SPEC_CASE(88) SPEC_CASE(89) SPEC_CASE(90) SPEC_CASE(91)
      SPEC_CASE(92) SPEC_CASE(93) SPEC_CASE(94) SPEC_CASE(95) SPEC_CASE(96) SPEC_CASE(97) SPEC_CASE(98) SPEC_CASE(99) SPEC_CASE(100) SPEC_CASE(101) SPEC_CASE(102) SPEC_CASE(103)
      SPEC_CASE(104) SPEC_CASE(105) SPEC_CASE(106) SPEC_CASE(107) SPEC_CASE(108) SPEC_CASE(109) SPEC_CASE(110) SPEC_CASE(111) SPEC_CASE(112) SPEC_CASE(113) SPEC_CASE(114) SPEC_CASE(115)
    }
  return p[kProgram + w];
}

uint loadInput(uint k, uint i) {
  if (k == 0) return in0[i];
  if (k == 1) return in1[i];
  if (k == 2) return in2[i];
  return in3[i];
}

// Each input's offset of linear index `index` over dims at p[dims..]:
// one division per axis for all four.
uvec4 walk(uint index, uint dims, uint strides) {
  uvec4 off = uvec4(0u);
  for (int d = 5; d >= 0 && index != 0u; --d) {
    uint q = index / param(dims + d);
    uint digit = index - q * param(dims + d);
    off += digit * uvec4(param(strides + d), param(strides + 6 + d), param(strides + 12 + d), param(strides + 18 + d));
    index = q;
  }
  return off;
}

// The program's value at the inputs' offsets.
uint value(uvec4 off) {
  uint r[EW_MAX_REGS] = uint[EW_MAX_REGS](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
  const uint mask = EW_MAX_REGS - 1;
  const uint numInputs = min(param(17), uint(EW_MAX_INPUTS));
  const uint numInstrs = min(param(18), uint(EW_MAX_INSTRS));
  [[unroll]] for (uint k = 0; k < numInputs; ++k) r[k] = loadInput(k, off[k]);
  [[unroll]] for (uint j = 0; j < numInstrs; ++j) {
    uint w = programWord(3 * j);
    r[(w >> 8) & mask] = execute(w & 255u, r[(w >> 12) & mask], r[(w >> 16) & mask], r[(w >> 20) & mask],
                                 programWord(3 * j + 1), programWord(3 * j + 2));
  }
  return r[param(19) & mask];
}

// Partial sum over r = first, first + step, ... (reduce.comp's walk: rows
// of the innermost reduced dim when it is at least `step` long).
uint partial(uvec4 base, uint first, uint step, uint op) {
  uint val = identity(op, false), idx = 0u;
  uint inner = param(kRedDims + 5);
  uvec4 innerStride = uvec4(param(kRedStrides + 5), param(kRedStrides + 11), param(kRedStrides + 17),
                            param(kRedStrides + 23));
  if (inner >= step) {
    uint rows = param(1) / inner;
    for (uint row = 0; row < rows; ++row) {
      uvec4 rowBase = base + walk(row * inner, kRedDims, kRedStrides);
      for (uint i = first; i < inner; i += step) accumulate(op, false, value(rowBase + i * innerStride), 0u, val, idx);
    }
    return val;
  }
  for (uint r = first; r < param(1); r += step)
    accumulate(op, false, value(base + walk(r, kRedDims, kRedStrides)), 0u, val, idx);
  return val;
}

void main() {
  uint op = param(2);
  if (param(4) == 0) {
    uint o = linearInvocation();
    if (o >= param(0)) return;
    outv[o] = finish(op, false, partial(walk(o, kKeptDims, kKeptStrides), 0, 1, op), param(1));
    return;
  }
  uint o = linearGroup();  // uniform: the whole workgroup returns together
  if (o >= param(0)) return;
  uint t = gl_LocalInvocationIndex;
  uint val = partial(walk(o, kKeptDims, kKeptStrides), t, 128, op), idx = 0u;
  reduceGroup(t, op, false, val, idx);
  if (t == 0) outv[o] = finish(op, false, val, param(1));
}
