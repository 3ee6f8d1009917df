// Fused epilogues on Conv and MatMul (written by passes/graph/fuse_conv_epilogue.cpp,
// honoured by the shape rule, the reference evaluator and the lowering).
//
// A node carries an epilogue when it has the attribute `epilogue`: a list of
// step codes applied in order to every output element v (after Conv's bias):
//
//   code  step            epilogue_args (2 per step)
//   1     relu            -
//   2     clip            min, max
//   3     leaky_relu      alpha
//   4     sigmoid         -
//   5     gelu (erf)      -
//   6     gelu (tanh)     -
//   7     add             -      v += the next epilogue operand
//   8     hard_swish      -
//   9     tanh            -
//   10    mul_silu        -      v *= silu(o), o the next epilogue operand
//                                (a SwiGLU's up product taking its gate:
//                                passes/graph/fuse_swiglu_epilogue.cpp)
//
// `epilogue_args` is a float list of 2 entries per step (0 where unused).
// Epilogue operands are extra node inputs after the op's own ones (Conv:
// inputs 3.., so the bias slot 2 is present or `none`; MatMul: inputs 2..),
// one per add or mul_silu step, consumed in order. Each has the output's dtype and
// either the output's shape, or (MatMul only) the shape [N] with optional
// leading 1s: a row vector broadcast along the last axis (a Linear's bias;
// only where b has rank >= 2, so that the last axis is N).
//
//   %y = conv(%x, %w, %b, %skip) {epilogue = [7, 1], epilogue_args = [0.0, 0.0, 0.0, 0.0], ...}
//   is relu(conv(%x, %w, %b) + %skip) in one node.
//
// Fused prologues (MatMul, QMatMul; written by passes/graph/fuse_prologue.cpp):
// the node first transforms its first operand a with its LAST input u, then
// multiplies. One of the attributes
//
//   rms_eps (float)  a' = a / sqrt(mean(a², last axis) + rms_eps) * u   u: the norm weight [K]
//   swiglu = 1       a' = silu(a) * u = a * sigmoid(a) * u              u: a's shape
//
// so that the rms_norm before a decode step's projections, and the SwiGLU
// gate before its down projection, need no dispatch of their own: the
// matvec kernels apply them as they read a. Only where a is f32, not
// transposed, with at most kPrologueMaxRows rows.
//
//   %q = matmul(%x, %wq, %g) {rms_eps = 1e-05}   is matmul(rms_norm(%x, %g), %wq)
//   %d = qmatmul(%gate, %w, %s, %up) {swiglu = 1, ...}   is qmatmul(silu(%gate) * %up, %w, %s)
//
// Conv's input through a ReLU (written by passes/graph/fold_relu_input.cpp):
//
//   relu_input = 1   the conv reads relu(x) where it reads x
//
// so that the ReLU ending the conv before it (its only reader) costs that
// conv nothing: a split-K conv applies an activation in a finishing pass
// of its own (kernels/lower_conv.cpp), one dispatch and one level.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"

namespace mgc {

enum class EpilogueStep : int64_t {
  Relu = 1,
  Clip = 2,
  LeakyRelu = 3,
  Sigmoid = 4,
  GeluErf = 5,
  GeluTanh = 6,
  Add = 7,
  HardSwish = 8,
  Tanh = 9,
  MulSilu = 10,
};
// Whether step s reads an epilogue operand (add, mul_silu).
inline bool takesOperand(EpilogueStep s) { return s == EpilogueStep::Add || s == EpilogueStep::MulSilu; }

struct Epilogue {
  static constexpr int kMaxSteps = 6, kMaxOperands = 2;
  std::vector<EpilogueStep> steps;
  std::vector<double> args;  // 2 per step
  int numOperands() const;
};

// The prologue: its kind, its operand (the last input), and the most rows
// of a it is fused for (the matvec kernels').
enum class Prologue { None, RmsNorm, SwiGlu };
constexpr int64_t kPrologueMaxRows = 4;
Prologue prologueOf(const Node& n);
inline bool hasPrologue(const Node& n) { return prologueOf(n) != Prologue::None; }
// Conv's relu_input (above).
inline bool convReluInput(const Node& n) { return n.op == Op::Conv && n.i("relu_input", 0) != 0; }
ValueId prologueOperand(const Node& n);
// Checks a and the prologue's operand: a is f32, not transposed, with at
// most kPrologueMaxRows rows; u is [K] (rms) or a's type (swiglu). Throws
// mgc::Error naming the node.
void checkPrologue(const Graph& g, const Node& n);

// Index of the first epilogue operand among the node's inputs (Conv 3,
// MatMul 2).
int epilogueFirstInput(Op op);
// Whether n's epilogue may add a row vector of its last dim (MatMul with a
// matrix b, QMatMul) as well as a tensor of its output's shape.
bool hasRowOperands(const Graph& g, const Node& n);

// The node's epilogue (empty if it has none). Throws mgc::Error naming the
// node on unknown codes, a wrong args length, too many steps, or an input
// count that does not match the add steps.
Epilogue readEpilogue(const Node& n);

// Checks the epilogue operands' types against the output type `out`.
void checkEpilogueOperands(const Graph& g, const Node& n, const TensorType& out);

// One non-add step applied to v in double (the reference semantics).
double applyEpilogueStep(EpilogueStep s, double v, double arg0, double arg1);

}  // namespace mgc
