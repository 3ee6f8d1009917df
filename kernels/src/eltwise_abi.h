// The eltwise kernel's program limits and where eltwise.comp and
// reduce_fused.comp keep the program in their params: included by those
// kernels (GLSL) and by kernels/eltwise_program.h (C++), which checks the
// IR's fused_eltwise limits against them with a static_assert.
#ifndef MGC_ELTWISE_ABI_H_
#define MGC_ELTWISE_ABI_H_
#define EW_MAX_INPUTS 8   // bindings 1..8
#define EW_MAX_INSTRS 16  // instructions in one program
#define EW_MAX_REGS 16    // registers of raw 32-bit words (a power of two: indices are masked)
#define EW_MAX_RANK 6     // output dims, broadcast strides per input
#define EW_PARAM_DIVISORS 59  // eltwise.comp's params: the output dims' fast divisors,
#define EW_PARAM_PROGRAM 71   // and the program (after 11 + 6 * EW_MAX_INPUTS strides)
#define RF_PARAM_KEPT_DIMS 5       // reduce_fused.comp's params: the kept dims (6),
#define RF_PARAM_REDUCED_DIMS 11   // the reduced dims (6),
#define RF_PARAM_NUM_INPUTS 17     // numInputs, numInstrs, outReg,
#define RF_PARAM_KEPT_STRIDES 20   // each input's 6 kept strides,
#define RF_PARAM_REDUCED_STRIDES 68  // each input's 6 reduced strides,
#define RF_PARAM_PROGRAM 116       // and the program
#endif
