// The inputs of the elementwise kernels (eltwise.comp, reduce_fused.comp):
// bindings 1..8 (unused slots repeat input 0; binding 9 is the output),
// and loadInput(k, i), word i of input k. A generated program
// (kernels/program_codegen.h) reads in0..in7 directly.
#ifndef MGC_ELTWISE_INPUTS_GLSL_
#define MGC_ELTWISE_INPUTS_GLSL_

layout(std430, set = 0, binding = 1) readonly buffer In0 { uint in0[]; };
layout(std430, set = 0, binding = 2) readonly buffer In1 { uint in1[]; };
layout(std430, set = 0, binding = 3) readonly buffer In2 { uint in2[]; };
layout(std430, set = 0, binding = 4) readonly buffer In3 { uint in3[]; };
layout(std430, set = 0, binding = 5) readonly buffer In4 { uint in4[]; };
layout(std430, set = 0, binding = 6) readonly buffer In5 { uint in5[]; };
layout(std430, set = 0, binding = 7) readonly buffer In6 { uint in6[]; };
layout(std430, set = 0, binding = 8) readonly buffer In7 { uint in7[]; };

uint loadInput(uint k, uint i) {
  switch (k) {
    case 0: return in0[i];
    case 1: return in1[i];
    case 2: return in2[i];
    case 3: return in3[i];
    case 4: return in4[i];
    case 5: return in5[i];
    case 6: return in6[i];
  }
  return in7[i];
}

#endif
