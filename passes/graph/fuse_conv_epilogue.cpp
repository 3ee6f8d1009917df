// fuse-conv-epilogue: a Conv or MatMul followed by a chain of single-use
// elementwise ops — activations (relu, clip, leaky_relu, sigmoid, gelu,
// hard_swish, tanh) and adds of another tensor of the output's shape (a
// residual) or, after a MatMul, of a row vector (a Linear's bias) — becomes
// one node carrying the chain as its epilogue (ir/epilogue.h), so
// the kernel applies it before its store: one dispatch, one barrier.
//
//   %c = conv(%x, %w, %b) : f32[1,8,4,4]
//   %s = add(%c, %skip) : f32[1,8,4,4]          →   %r = conv(%x, %w, %b, %skip)
//   %r = relu(%s) : f32[1,8,4,4]                         {epilogue = [7, 1], epilogue_args = [0.0, 0.0, 0.0, 0.0], ...}
//
// The fused node takes the place of the chain's last node (every operand is
// defined by then) and writes its value; the chain's inner values must have
// no other use and not be graph outputs. f32 only (the kernels' type).
//
// After a MatMul the chain may pass through reshapes that keep the last
// axis (nn.MultiheadAttention's out projection: a 2-D Gemm, then a view
// back to [T, N, E] and the residual add): a reshape moves no element, so
// the product adds the operand viewed in its own shape, and the fused
// node's result is viewed back (reshapes are aliases: no copy).
//
//   %m = matmul(%a, %w) : f32[16,64]                 %s' = reshape(%skip) {shape = [16, 64]}
//   %v = reshape(%m) {shape = [1, 16, 64]}     →     %m' = matmul(%a, %w, %s') {epilogue = [7], ...}
//   %r = add(%skip, %v) : f32[1,16,64]               %r = reshape(%m') {shape = [1, 16, 64]}
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "ir/epilogue.h"
#include "passes/graph/passes.h"

namespace mgc {

namespace {

struct Step {
  EpilogueStep code;
  double arg0 = 0, arg1 = 0;
};

// The epilogue step for an activation node, if it is one.
std::optional<Step> activationStep(const Node& u) {
  if (u.op == Op::Relu) return Step{EpilogueStep::Relu};
  if (u.op == Op::Clip) return Step{EpilogueStep::Clip, u.f("min", -INFINITY), u.f("max", INFINITY)};
  if (u.op == Op::LeakyRelu) return Step{EpilogueStep::LeakyRelu, u.f("alpha", 0.01)};
  if (u.op == Op::Sigmoid) return Step{EpilogueStep::Sigmoid};
  if (u.op == Op::Gelu) return Step{u.i("approximate", 0) ? EpilogueStep::GeluTanh : EpilogueStep::GeluErf};
  if (u.op == Op::HardSwish) return Step{EpilogueStep::HardSwish};
  if (u.op == Op::Tanh) return Step{EpilogueStep::Tanh};
  return std::nullopt;  // not an activation: the chain ends
}

// May `operand` be added in the epilogue of `n` whose output type is `out`?
bool fitsOperand(const Graph& g, const Node& n, ValueId operand, const TensorType& out) {
  const TensorType& t = g.type(operand);
  if (t.dtype != out.dtype) return false;
  if (t.shape == out.shape) return true;
  return hasRowOperands(g, n) && t.rank() >= 1 && t.rank() <= out.rank() &&
         t.shape.back() == out.shape.back() && t.numel() == out.shape.back();
}

}  // namespace

void fuseConvEpilogue(Graph& g) {
  std::vector<int> uses = g.useCounts();
  std::vector<bool> isOutput(g.values.size(), false);
  for (ValueId v : g.outputs) isOutput[size_t(v)] = true;
  std::vector<int> userOf(g.values.size(), -1);  // the last node reading each value
  for (size_t j = 0; j < g.nodes.size(); ++j)
    for (ValueId v : g.nodes[j].inputs)
      if (v != kNoValue) userOf[size_t(v)] = int(j);
  std::vector<bool> dead(g.nodes.size(), false);
  std::map<size_t, std::vector<Node>> replacements;  // nodes that take the place of node i

  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (dead[i]) continue;
    const Node& n = g.nodes[i];
    if ((n.op != Op::Conv && n.op != Op::MatMul && n.op != Op::QMatMul) || n.has("epilogue") || hasPrologue(n))
      continue;
    const TensorType out = g.type(n.outputs[0]);
    if (out.dtype != DType::F32) continue;
    ValueId cur = n.outputs[0];
    TensorType view = out;  // cur's type: the output's, or a reshape of it
    std::vector<Step> steps;
    std::vector<ValueId> operands;
    std::vector<size_t> chain;
    size_t lastStep = 0;  // chain entries up to here end in an epilogue step
    while (steps.size() < size_t(Epilogue::kMaxSteps)) {
      if (uses[size_t(cur)] != 1 || isOutput[size_t(cur)]) break;
      int j = userOf[size_t(cur)];
      if (j < 0 || dead[size_t(j)]) break;
      const Node& u = g.nodes[size_t(j)];
      if (u.outputs.size() != 1) break;
      const TensorType& ut = g.type(u.outputs[0]);
      if (u.op == Op::Reshape && n.op == Op::MatMul && ut.dtype == out.dtype && !ut.shape.empty() &&
          ut.shape.back() == out.shape.back()) {
        chain.push_back(size_t(j));
        cur = u.outputs[0];
        view = ut;
        continue;
      }
      if (ut != view) break;
      if (auto s = activationStep(u)) {
        steps.push_back(*s);
      } else if (u.op == Op::Add) {
        ValueId other = u.inputs[0] == cur ? u.inputs[1] : u.inputs[0];
        if (other == cur || operands.size() == size_t(Epilogue::kMaxOperands) || !fitsOperand(g, n, other, view))
          break;
        steps.push_back(Step{EpilogueStep::Add});
        operands.push_back(other);
      } else {
        break;
      }
      chain.push_back(size_t(j));
      cur = u.outputs[0];
      lastStep = chain.size();
    }
    // Reshapes after the last step stay as they are.
    chain.resize(lastStep);
    if (chain.empty()) continue;
    cur = g.nodes[chain.back()].outputs[0];
    view = g.type(cur);

    // Through reshapes: each full-size operand viewed in the output's shape
    // (reshape nodes placed before the fused one), the result viewed back.
    std::vector<Node>& place = replacements[chain.back()];
    if (view.shape != out.shape) {
      for (ValueId& o : operands) {
        const TensorType& t = g.type(o);
        if (t.shape == out.shape || t.numel() != out.numel()) continue;  // as is, or a row vector
        const ValueId flat = g.addValue(g.uniqueName(g.value(o).name + ".view"), out);
        place.push_back(Node{Op::Reshape, g.value(flat).name, {o}, {flat}, {{"shape", out.shape}}});
        o = flat;
      }
    }
    Node fused = n;
    if ((fused.op == Op::Conv || fused.op == Op::QMatMul) && fused.inputs.size() < 3)
      fused.inputs.push_back(kNoValue);  // Conv's bias, QMatMul's scales slot
    fused.inputs.insert(fused.inputs.end(), operands.begin(), operands.end());
    std::vector<int64_t> codes;
    std::vector<double> args;
    for (const Step& s : steps) {
      codes.push_back(int64_t(s.code));
      args.push_back(s.arg0);
      args.push_back(s.arg1);
    }
    fused.attrs["epilogue"] = codes;
    fused.attrs["epilogue_args"] = args;
    dead[i] = true;
    for (size_t k = 0; k < chain.size(); ++k) dead[chain[k]] = true;
    // In the chain's last place: every operand is defined by then.
    if (view.shape == out.shape) {
      fused.outputs = {cur};
      place.push_back(std::move(fused));
    } else {
      const ValueId flat = g.addValue(g.uniqueName(g.value(cur).name + ".flat"), out);
      fused.outputs = {flat};
      const std::string name = fused.name;
      place.push_back(std::move(fused));
      place.push_back(Node{Op::Reshape, name + ".view", {flat}, {cur}, {{"shape", view.shape}}});
    }
  }

  std::vector<Node> kept;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!dead[i]) kept.push_back(std::move(g.nodes[i]));
    auto it = replacements.find(i);
    if (it != replacements.end())
      for (Node& r : it->second) kept.push_back(std::move(r));
  }
  g.nodes = std::move(kept);
  g.rebuildProducers();
}

}  // namespace mgc
