// fused_eltwise → one eltwise dispatch: each step of the node's program
// (ir/fused_eltwise.h) is emitted by emitNodeOp against the
// expanded sub-graph (which holds every step's types), into the registers
// assignFusedRegisters picked; inline constants are loaded with CONST.
// fused_reduce's program is built the same way (lower_reduce.cpp).
#include "ir/fused_eltwise.h"
#include "kernels/eltwise_program.h"
#include "kernels/lower_common.h"

namespace mgc::kern {

EltwiseProgram fusedEltwiseProgram(const Graph& g, const Node& n, Shape* resultShape) {
  FusedProgram fp = readFusedEltwise(n);
  Graph sub = expandFusedEltwise(g, n);
  if (resultShape) *resultShape = sub.type(sub.outputs[0]).shape;
  const int numInputs = int(n.inputs.size());
  FusedRegisters regs = assignFusedRegisters(fp, numInputs);
  // One register past the peak is the scratch emitNodeOp may clobber.
  if (regs.regsUsed >= EltwiseProgram::kMaxRegs)
    fail(n, "fused program needs " + std::to_string(regs.regsUsed) + " registers plus a scratch (at most " +
                std::to_string(EltwiseProgram::kMaxRegs) + " in all)");
  const int scratch = regs.regsUsed;

  EltwiseProgram prog;
  prog.numInputs = numInputs;
  std::vector<int> regOf(size_t(numInputs) + fp.steps.size());
  for (int k = 0; k < numInputs; ++k) regOf[size_t(k)] = k;
  for (size_t s = 0; s < fp.steps.size(); ++s) {
    const Node& step = sub.nodes[s];
    std::vector<int> in;
    for (size_t a = 0; a < step.inputs.size(); ++a) {
      int ref = fp.steps[s].args[a];
      if (ref >= 0) {
        in.push_back(regOf[size_t(ref)]);
        continue;
      }
      int reg = regs.constReg[s][a];
      prog.emit(EwOp::CONST, reg, 0, 0, 0, f32Bits(fp.consts[size_t(-1 - ref)]));
      in.push_back(reg);
    }
    emitNodeOp(prog, sub, step, in, regs.stepReg[s], scratch);
    regOf[size_t(numInputs) + s] = regs.stepReg[s];
  }
  prog.outReg = regs.stepReg.back();
  return prog;
}

std::vector<DispatchPlan> lowerFusedEltwise(const Graph& g, const Node& n) {
  const EltwiseProgram prog = fusedEltwiseProgram(g, n);
  std::vector<Shape> shapes;
  for (size_t k = 0; k < n.inputs.size(); ++k) shapes.push_back(inType(g, n, k).shape);
  DispatchPlan d = makePlan(n, "eltwise");
  d.params = encodeEltwiseParams(n, prog, outType(g, n).shape, shapes);  // checks the 16-instruction limit
  for (int k = 0; k < EltwiseProgram::kMaxInputs; ++k)
    d.bindings.push_back(n.inputs[size_t(k) < n.inputs.size() ? size_t(k) : 0]);  // unused slots repeat input 0
  d.bindings.push_back(n.outputs[0]);
  setItemGrid(d, n, uint64_t(outType(g, n).numel()));
  return {d};
}

}  // namespace mgc::kern
