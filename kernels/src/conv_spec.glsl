// The convolution kernels' shape words p[0..16] (conv_params.glsl) as
// specialization constants (kernels/specialize.h): in a copy specialized to
// a dispatch they are constants, so the driver folds the im2col index
// arithmetic. convParam(k) reads word k (p[k] past 16).
#include "specialize.glsl"
SPEC_PARAM(0) SPEC_PARAM(1) SPEC_PARAM(2) SPEC_PARAM(3) SPEC_PARAM(4) SPEC_PARAM(5) SPEC_PARAM(6) SPEC_PARAM(7)
SPEC_PARAM(8) SPEC_PARAM(9) SPEC_PARAM(10) SPEC_PARAM(11) SPEC_PARAM(12) SPEC_PARAM(13) SPEC_PARAM(14)
SPEC_PARAM(15) SPEC_PARAM(16)
uint convParam(uint k) {
  if (kSpecialized) switch (k) {
      SPEC_CASE(0) SPEC_CASE(1) SPEC_CASE(2) SPEC_CASE(3) SPEC_CASE(4) SPEC_CASE(5) SPEC_CASE(6) SPEC_CASE(7)
      SPEC_CASE(8) SPEC_CASE(9) SPEC_CASE(10) SPEC_CASE(11) SPEC_CASE(12) SPEC_CASE(13) SPEC_CASE(14)
      SPEC_CASE(15) SPEC_CASE(16)
    }
  return p[k];
}
// p[16]'s bits: 1 the bias (conv2d_finish adds it in the split-K passes),
// 2 the input read through a ReLU (Conv's relu_input, ir/epilogue.h: the
// activation of the conv before, taken out of that conv's epilogue).
bool convHasBias() { return (convParam(16) & 1u) != 0u; }
float convInput(float v) { return (convParam(16) & 2u) != 0u ? max(v, 0.0) : v; }
