// Programs for the eltwise kernel (kernels/src/eltwise.comp): a straight
// line of up to 16 instructions over 8 registers of raw 32-bit words, run
// once per output element with numpy broadcasting over up to 4 inputs.
// One node lowers to a short program (emitNodeOp); a fusion pass can emit
// several nodes into one program and run a whole chain in one dispatch.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/fused_eltwise.h"
#include "ir/graph.h"
#include "kernels/src/eltwise_abi.h"

namespace mgc {

enum class EwOp : uint8_t {
#define EW_OP(name, code) name = code,
#include "kernels/src/eltwise_ops.def"
#undef EW_OP
};

struct EwInstr {
  EwOp op;
  uint8_t dst, a, b, c;
  uint32_t imm0, imm1;
};

struct EltwiseProgram {
  static constexpr int kMaxInputs = EW_MAX_INPUTS, kMaxInstrs = EW_MAX_INSTRS, kMaxRegs = EW_MAX_REGS,
                       kMaxRank = EW_MAX_RANK;
  int numInputs = 0;  // inputs live in registers 0..numInputs-1 at the start
  int outReg = 0;     // register stored to the output
  std::vector<EwInstr> code;

  void emit(EwOp op, int dst, int a = 0, int b = 0, int c = 0, uint32_t imm0 = 0, uint32_t imm1 = 0);
};

// Appends the instructions computing node `n` (an op of class Unary or
// Binary, or Where) from registers inRegs (one per node input) into `dst`;
// `scratch` is one more register it may clobber. Results are rounded to the
// output's external type where the device keeps more (f16, bf16, i8, u8,
// i16, u16).
// Throws mgc::Error naming the node if the op is not elementwise.
void emitNodeOp(EltwiseProgram& prog, const Graph& g, const Node& n, const std::vector<int>& inRegs, int dst,
                int scratch);

// The eltwise params block (layout at the top of eltwise.comp) for
// computing `out` from inputs of the given shapes (each broadcastable to
// out). Throws mgc::Error naming `n` if the program or shapes exceed the
// kernel's limits.
// Writes the program's instructions (3 words each, eltwise.comp's
// encoding) at params[at..], growing params as needed. Throws mgc::Error
// naming `n` past the kernel's limits.
void writeEltwiseProgram(const Node& n, const EltwiseProgram& prog, std::vector<uint32_t>& params, size_t at);

std::vector<uint32_t> encodeEltwiseParams(const Node& n, const EltwiseProgram& prog, const Shape& out,
                                          const std::vector<Shape>& inputs);

// The fusion pass plans programs with the IR's limits; the kernel runs them.
static_assert(kFusedMaxInputs == EltwiseProgram::kMaxInputs && kFusedMaxInstrs == EltwiseProgram::kMaxInstrs &&
                  kFusedMaxRegs == EltwiseProgram::kMaxRegs,
              "ir/fused_eltwise.h's limits must equal the eltwise kernel ABI (kernels/src/eltwise_abi.h)");
static_assert((EW_MAX_REGS & (EW_MAX_REGS - 1)) == 0, "eltwise.comp masks register indices");
static_assert(EW_PARAM_DIVISORS == 11 + 6 * EW_MAX_INPUTS && EW_PARAM_PROGRAM == EW_PARAM_DIVISORS + 2 * EW_MAX_RANK,
              "eltwise.comp's params layout");

}  // namespace mgc
