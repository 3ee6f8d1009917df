// Fused epilogues (ir/epilogue.h) → the params block and operand
// bindings read by kernels/src/epilogue.glsl.
#include "ir/epilogue.h"
#include "kernels/lower_common.h"

namespace mgc::kern {

void appendEpilogue(const Graph& g, const Node& n, DispatchPlan& d, ValueId absent) {
  Epilogue e = readEpilogue(n);
  std::vector<uint32_t> words(2 + 3 * Epilogue::kMaxSteps, 0);
  words[0] = uint32_t(e.steps.size());
  std::vector<ValueId> operands;
  size_t first = size_t(epilogueFirstInput(n.op));
  const TensorType& out = outType(g, n);
  for (size_t s = 0; s < e.steps.size(); ++s) {
    words[2 + 3 * s] = uint32_t(e.steps[s]);
    words[3 + 3 * s] = f32Bits(e.args[2 * s]);
    words[4 + 3 * s] = f32Bits(e.args[2 * s + 1]);
    if (!takesOperand(e.steps[s])) continue;
    ValueId v = n.inputs.at(first + operands.size());
    if (!isDeviceFloat(g.type(v).dtype)) fail(n, "epilogue operands must be float");
    if (g.type(v).shape != out.shape) words[1] |= 1u << operands.size();  // row vector: indexed by column
    operands.push_back(v);
  }
  d.params.insert(d.params.end(), words.begin(), words.end());
  while (operands.size() < size_t(Epilogue::kMaxOperands)) operands.push_back(absent);
  // Operands go right before the output binding (the last one).
  d.bindings.insert(d.bindings.end() - 1, operands.begin(), operands.end());
}

}  // namespace mgc::kern
