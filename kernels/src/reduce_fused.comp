// reduce_fused: a reduction (sum / mean / max / min, f32) of an eltwise
// program's result (ir/fused_reduce.h: fused_reduce), the program run on
// the inputs as they are read, so its result is never stored. The walks are
// reduce.comp's, with one set of strides per input (a broadcast input has
// stride 0): the host views each input in the reduced shape
// (broadcastViewStrides) and splits its dims into kept and reduced ones.
// Mode 0: one invocation per output; mode 1: one workgroup per output.
//
// Bindings: 1..8 = inputs (unused slots repeat input 0), 9 = out.
// Params:
//   p[0] outCount  p[1] R (reduced extent)  p[2] op (0 sum, 1 mean, 2 max,
//   3 min)  p[3] 0  p[4] mode
//   p[5..10] kept dims (6, leading 1s)      p[11..16] reduced dims
//   p[17] numInputs  p[18] numInstrs  p[19] outReg (as eltwise.comp's)
//   p[20 + 6k + d] kept strides of input k  p[68 + 6k + d] reduced strides
//   p[116 + 3j ..] instruction j (eltwise.comp's encoding)
#version 450
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 128) in;
#include "common.glsl"
#include "math.glsl"
#include "eltwise_abi.h"
#include "specialize.glsl"
#include "eltwise_exec.glsl"
#include "reduce_ops.glsl"

#include "eltwise_inputs.glsl"
// A copy built by the compiler (kernels/program_codegen.h) has the
// dispatch's program as code: programValue().
#ifdef EW_GENERATED
#include "ew_program.glsl"
#endif
layout(std430, set = 0, binding = 9) writeonly buffer Out { uint outv[]; };

const uint kKeptDims = RF_PARAM_KEPT_DIMS, kRedDims = RF_PARAM_REDUCED_DIMS, kKeptStrides = RF_PARAM_KEPT_STRIDES,
           kRedStrides = RF_PARAM_REDUCED_STRIDES, kProgram = RF_PARAM_PROGRAM;

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
SPEC_PARAM(108) SPEC_PARAM(109) SPEC_PARAM(110) SPEC_PARAM(111) SPEC_PARAM(112) SPEC_PARAM(113) SPEC_PARAM(114) SPEC_PARAM(115) SPEC_PARAM(116) SPEC_PARAM(117) SPEC_PARAM(118) SPEC_PARAM(119)
SPEC_PARAM(120) SPEC_PARAM(121) SPEC_PARAM(122) SPEC_PARAM(123) SPEC_PARAM(124) SPEC_PARAM(125) SPEC_PARAM(126) SPEC_PARAM(127) SPEC_PARAM(128) SPEC_PARAM(129) SPEC_PARAM(130) SPEC_PARAM(131)
SPEC_PARAM(132) SPEC_PARAM(133) SPEC_PARAM(134) SPEC_PARAM(135) SPEC_PARAM(136) SPEC_PARAM(137) SPEC_PARAM(138) SPEC_PARAM(139) SPEC_PARAM(140) SPEC_PARAM(141) SPEC_PARAM(142) SPEC_PARAM(143)
SPEC_PARAM(144) SPEC_PARAM(145) SPEC_PARAM(146) SPEC_PARAM(147) SPEC_PARAM(148) SPEC_PARAM(149) SPEC_PARAM(150) SPEC_PARAM(151) SPEC_PARAM(152) SPEC_PARAM(153) SPEC_PARAM(154) SPEC_PARAM(155)
SPEC_PARAM(156) SPEC_PARAM(157) SPEC_PARAM(158) SPEC_PARAM(159) SPEC_PARAM(160) SPEC_PARAM(161) SPEC_PARAM(162) SPEC_PARAM(163)
uint param(uint k) {
  if (kSpecialized) switch (k) {
      SPEC_CASE(0) SPEC_CASE(1) SPEC_CASE(2) SPEC_CASE(3) SPEC_CASE(4) SPEC_CASE(5) SPEC_CASE(6) SPEC_CASE(7) SPEC_CASE(8) SPEC_CASE(9) SPEC_CASE(10) SPEC_CASE(11)
      SPEC_CASE(12) SPEC_CASE(13) SPEC_CASE(14) SPEC_CASE(15) SPEC_CASE(16) SPEC_CASE(17) SPEC_CASE(18) SPEC_CASE(19) SPEC_CASE(20) SPEC_CASE(21) SPEC_CASE(22) SPEC_CASE(23)
      SPEC_CASE(24) SPEC_CASE(25) SPEC_CASE(26) SPEC_CASE(27) SPEC_CASE(28) SPEC_CASE(29) SPEC_CASE(30) SPEC_CASE(31) SPEC_CASE(32) SPEC_CASE(33) SPEC_CASE(34) SPEC_CASE(35)
      SPEC_CASE(36) SPEC_CASE(37) SPEC_CASE(38) SPEC_CASE(39) SPEC_CASE(40) SPEC_CASE(41) SPEC_CASE(42) SPEC_CASE(43) SPEC_CASE(44) SPEC_CASE(45) SPEC_CASE(46) SPEC_CASE(47)
      SPEC_CASE(48) SPEC_CASE(49) SPEC_CASE(50) SPEC_CASE(51) SPEC_CASE(52) SPEC_CASE(53) SPEC_CASE(54) SPEC_CASE(55) SPEC_CASE(56) SPEC_CASE(57) SPEC_CASE(58) SPEC_CASE(59)
      SPEC_CASE(60) SPEC_CASE(61) SPEC_CASE(62) SPEC_CASE(63) SPEC_CASE(64) SPEC_CASE(65) SPEC_CASE(66) SPEC_CASE(67) SPEC_CASE(68) SPEC_CASE(69) SPEC_CASE(70) SPEC_CASE(71)
      SPEC_CASE(72) SPEC_CASE(73) SPEC_CASE(74) SPEC_CASE(75) SPEC_CASE(76) SPEC_CASE(77) SPEC_CASE(78) SPEC_CASE(79) SPEC_CASE(80) SPEC_CASE(81) SPEC_CASE(82) SPEC_CASE(83)
      SPEC_CASE(84) SPEC_CASE(85) SPEC_CASE(86) SPEC_CASE(87) SPEC_CASE(88) SPEC_CASE(89) SPEC_CASE(90) SPEC_CASE(91) SPEC_CASE(92) SPEC_CASE(93) SPEC_CASE(94) SPEC_CASE(95)
      SPEC_CASE(96) SPEC_CASE(97) SPEC_CASE(98) SPEC_CASE(99) SPEC_CASE(100) SPEC_CASE(101) SPEC_CASE(102) SPEC_CASE(103) SPEC_CASE(104) SPEC_CASE(105) SPEC_CASE(106) SPEC_CASE(107)
      SPEC_CASE(108) SPEC_CASE(109) SPEC_CASE(110) SPEC_CASE(111) SPEC_CASE(112) SPEC_CASE(113) SPEC_CASE(114) SPEC_CASE(115)
    }
  return p[k];
}


uint programWord(uint w) {
  if (kSpecialized) switch (kProgram + w) {
      SPEC_CASE(116) SPEC_CASE(117) SPEC_CASE(118) SPEC_CASE(119) SPEC_CASE(120) SPEC_CASE(121) SPEC_CASE(122) SPEC_CASE(123) SPEC_CASE(124) SPEC_CASE(125) SPEC_CASE(126) SPEC_CASE(127)
      SPEC_CASE(128) SPEC_CASE(129) SPEC_CASE(130) SPEC_CASE(131) SPEC_CASE(132) SPEC_CASE(133) SPEC_CASE(134) SPEC_CASE(135) SPEC_CASE(136) SPEC_CASE(137) SPEC_CASE(138) SPEC_CASE(139)
      SPEC_CASE(140) SPEC_CASE(141) SPEC_CASE(142) SPEC_CASE(143) SPEC_CASE(144) SPEC_CASE(145) SPEC_CASE(146) SPEC_CASE(147) SPEC_CASE(148) SPEC_CASE(149) SPEC_CASE(150) SPEC_CASE(151)
      SPEC_CASE(152) SPEC_CASE(153) SPEC_CASE(154) SPEC_CASE(155) SPEC_CASE(156) SPEC_CASE(157) SPEC_CASE(158) SPEC_CASE(159) SPEC_CASE(160) SPEC_CASE(161) SPEC_CASE(162) SPEC_CASE(163)
    }
  return p[kProgram + w];
}

uint numInputs() { return min(param(RF_PARAM_NUM_INPUTS), uint(EW_MAX_INPUTS)); }

// Adds each input's offset of linear index `index` over dims at p[dims..]
// to off[]: one division per axis for all the inputs.
void walk(uint index, uint dims, uint strides, inout uint off[EW_MAX_INPUTS]) {
#ifdef EW_GENERATED
  // The generated copy's walks (kernels/program_codegen.cpp): the dims and
  // strides as literals, dims of 1 and zero strides left out. A specialized
  // copy of the loop below reads each through a switch over the constants,
  // which lavapipe took 0.45 s to compile per copy.
  if (dims == kKeptDims) walkKept(index, off);
  else walkReduced(index, off);
#else
  // A specialized copy walks all six axes unrolled, so every param index
  // is a constant (the dims of 1 fold away); the early exit would leave
  // the loop rolled.
  const uint n = numInputs();
  [[unroll]] for (int d = 5; d >= 0 && (kSpecialized || index != 0u); --d) {
    uint q = index / param(dims + d);
    uint digit = index - q * param(dims + d);
    [[unroll]] for (uint k = 0; k < n; ++k) off[k] += digit * param(strides + 6 * k + d);
    index = q;
  }
#endif
}

// The program's value at the inputs' offsets.
uint value(uint off[EW_MAX_INPUTS]) {
#ifdef EW_GENERATED
  return programValue(off);
#else
  uint r[EW_MAX_REGS];
  [[unroll]] for (uint k = 0; k < EW_MAX_REGS; ++k) r[k] = 0u;
  const uint mask = EW_MAX_REGS - 1;
  const uint n = numInputs();
  const uint numInstrs = min(param(RF_PARAM_NUM_INPUTS + 1), uint(EW_MAX_INSTRS));
  [[unroll]] for (uint k = 0; k < n; ++k) r[k] = loadInput(k, off[k]);
  [[unroll]] for (uint j = 0; j < numInstrs; ++j) {
    uint w = programWord(3 * j);
    r[(w >> 8) & mask] = execute(w & 255u, r[(w >> 12) & mask], r[(w >> 16) & mask], r[(w >> 20) & mask],
                                 programWord(3 * j + 1), programWord(3 * j + 2));
  }
  return r[param(RF_PARAM_NUM_INPUTS + 2) & mask];
#endif
}

// Partial sum over r = first, first + step, ... from the inputs' offsets
// `base`. When the innermost reduced dim is at least `step` long, the
// reduced extent is walked as rows of it (reduce.comp's walk: one index
// decomposition per row); otherwise each r is decomposed. One loop with
// one call of value(), so a specialized copy holds the program once
// (lavapipe compiles each copy with LLVM: four inlined copies of the
// program made a training bundle's load several times slower).
uint partial(uint base[EW_MAX_INPUTS], uint first, uint step, uint op) {
  uint val = identity(op, false), idx = 0u;
  const uint n = numInputs();
  const uint inner = param(kRedDims + 5), R = param(1);
  const bool byRows = inner >= step;
  const uint rows = byRows ? R / inner : 1u;
  uint row = 0u, i = first;
  uint rowBase[EW_MAX_INPUTS] = base, off[EW_MAX_INPUTS];
  while (byRows ? row < rows : i < R) {
    if (byRows) {
#ifdef EW_GENERATED
      off = rowBase;
      stepInnerReduced(i, off);
#else
      [[unroll]] for (uint k = 0; k < n; ++k) off[k] = rowBase[k] + i * param(kRedStrides + 6 * k + 5);
#endif
    } else {
      off = base;
      walk(i, kRedDims, kRedStrides, off);
    }
    accumulate(op, false, value(off), 0u, val, idx);
    i += step;
    if (byRows && i >= inner) {
      i = first;
      ++row;
      rowBase = base;
      walk(row * inner, kRedDims, kRedStrides, rowBase);
    }
  }
  return val;
}

// The inputs' offsets of output o.
void outputBase(uint o, out uint base[EW_MAX_INPUTS]) {
  [[unroll]] for (uint k = 0; k < EW_MAX_INPUTS; ++k) base[k] = 0u;
  walk(o, kKeptDims, kKeptStrides, base);
}

void main() {
  const uint op = param(2);
  // Mode 1: a workgroup per output (o uniform: the whole group returns
  // together); mode 0: an invocation per output.
  const bool perGroup = param(4) != 0;
  const uint o = perGroup ? linearGroup() : linearInvocation();
  if (o >= param(0)) return;
  const uint t = perGroup ? gl_LocalInvocationIndex : 0u;
  uint base[EW_MAX_INPUTS];
  outputBase(o, base);
  uint val = partial(base, t, perGroup ? 128u : 1u, op), idx = 0u;
  if (perGroup) reduceGroup(t, op, false, val, idx);
  if (t == 0) outv[o] = finish(op, false, val, param(1));
}
