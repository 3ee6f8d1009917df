// Unary, Binary, Where and Cast nodes → one eltwise dispatch running a
// short program (kernels/eltwise_program.h).
#include "kernels/eltwise_program.h"
#include "kernels/lower_common.h"

namespace mgc::kern {

std::vector<DispatchPlan> lowerEltwise(const Graph& g, const Node& n) {
  EltwiseProgram prog;
  prog.numInputs = int(n.inputs.size());
  std::vector<int> regs;
  std::vector<Shape> shapes;
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    regs.push_back(int(k));
    shapes.push_back(inType(g, n, k).shape);
  }
  int dst = prog.numInputs;
  emitNodeOp(prog, g, n, regs, dst, dst + 1);
  prog.outReg = dst;

  DispatchPlan d = makePlan(n, "eltwise");
  d.params = encodeEltwiseParams(n, prog, outType(g, n).shape, shapes);
  for (int k = 0; k < EltwiseProgram::kMaxInputs; ++k)
    d.bindings.push_back(n.inputs[size_t(k) < n.inputs.size() ? size_t(k) : 0]);  // unused slots repeat input 0
  d.bindings.push_back(n.outputs[0]);
  setItemGrid(d, n, uint64_t(outType(g, n).numel()));
  return {d};
}

}  // namespace mgc::kern
