// The fused_eltwise op (written by passes/graph/fuse_elementwise.cpp): a chain or
// tree of elementwise nodes carried as a small program in one node, so the
// lowering emits one eltwise dispatch (kernels/eltwise_program.h) for all of
// them. Attributes (all lists have one entry group per step):
//
//   ops     string  step ops by text name, comma separated: "div,erf,add"
//   args    int[3k] operands of step k: 0..n-1 = node input, n+j = result
//                   of step j < k, -1-c = inline scalar consts[c]; unused
//                   operand slots (unary ops) hold 0
//   dtypes  int[k]  dtype of each step's result (DType as int)
//   fargs   f64[2k] the step op's float attributes: leaky_relu / elu alpha,
//                   hard_sigmoid alpha, beta; clip min, max; gelu approximate
//   consts  f64[]   inline scalar constants (rank-0 tensors of dtype f32)
//
//   %y = fused_eltwise(%x) {ops = "div,erf", args = [0, -1, 0, 1, 0, 0],
//        dtypes = [0, 0], fargs = [0.0, 0.0, 0.0, 0.0], consts = [1.4142135]}
//   is erf(%x / 1.4142135) in one node.
//
// The result is the last step's. Its type is the expansion's (below): the
// broadcast of the inputs, as every step is elementwise. Semantics are
// exactly the sub-nodes' (the reference evaluator runs them one by one).
#pragma once

#include <vector>

#include "ir/graph.h"

namespace mgc {

struct FusedStep {
  Op op = Op::Identity;
  int args[3] = {0, 0, 0};  // as in the `args` attribute
  DType dtype = DType::F32;
  double farg0 = 0, farg1 = 0;
};

struct FusedProgram {
  std::vector<FusedStep> steps;
  std::vector<double> consts;
};

// Limits shared by the fusion pass and the lowering (the eltwise kernel's).
constexpr int kFusedMaxInputs = 8, kFusedMaxInstrs = 16, kFusedMaxRegs = 16;

// Can `op` be a step (an elementwise op of one output)?
bool isFusableEltwiseOp(Op op);
// The step's own attributes (alpha, min/max, approximate, ...) from fargs,
// and back.
Attrs fusedStepAttrs(const FusedStep& s);
void fusedStepFargs(const Node& n, double* farg0, double* farg1);

// Reads and checks the attributes (throws mgc::Error naming the node).
FusedProgram readFusedEltwise(const Node& n);
void writeFusedEltwise(Node& n, const FusedProgram& p);

// The node as a stand-alone graph: one input per node input (same types,
// names "in0".."in3"), one rank-0 f32 constant per inline const ("c0"..),
// one node per step, the last step's value as the only output. Throws
// mgc::Error naming `n` when a step is invalid (the sub-node's message).
Graph expandFusedEltwise(const Graph& g, const Node& n);

// Register assignment of the program for the eltwise kernel: inputs start
// in registers 0..n-1; each step's result and each inline constant take the
// lowest register free at that point (a value's register frees after its
// last use). stepReg[k] = register of step k's result, constReg[k][s] =
// register loaded with the constant of operand slot s (-1 if none).
struct FusedRegisters {
  std::vector<int> stepReg;
  std::vector<std::vector<int>> constReg;
  int regsUsed = 0;      // peak number of registers
  int constLoads = 0;    // CONST instructions needed
};
FusedRegisters assignFusedRegisters(const FusedProgram& p, int numInputs);

// The reference semantics: the expansion evaluated node by node (evalGraph).
HostTensor evalFusedEltwise(const Graph& g, const Node& n, const std::vector<const HostTensor*>& inputs);
// An expansion's only output, its inputs "in0".. given in order.
HostTensor evalExpansion(const Graph& sub, const std::vector<const HostTensor*>& inputs);

}  // namespace mgc
