// fuse-prologue: what a decode step computes right before its products
// moves into those products as their prologue (ir/epilogue.h), so that it
// costs no dispatch and no barrier of its own:
//
//   - an RMSNorm over the last axis (before q/k/v and gate/up):
//       %n = rms_norm(%x, %g) {epsilon = 1e-05} : f32[1,1,576]
//       %q = matmul(%n, %wq)                  →   %q = matmul(%x, %wq, %g) {rms_eps = 1e-05}
//   - SwiGLU's silu(gate) * up (before down_proj):
//       %s = mul(%gate, sigmoid(%gate)); %m = mul(%s, %up)
//       %d = matmul(%m, %wd)                  →   %d = matmul(%gate, %wd, %up) {swiglu = 1}
//
// Only into products of at most kPrologueMaxRows rows (the matvec kernels
// apply it as they read a), where the value is their first operand, not
// transposed, and there is room for one more input. Users that cannot take
// it keep reading the value, which then stays. Runs after
// fuse-conv-epilogue (the operand goes after the epilogue operands, as the
// last input) and before fuse-elementwise (which would fuse silu * up).
#include <algorithm>
#include <optional>

#include "ir/epilogue.h"
#include "ir/matmul.h"
#include "passes/graph/passes.h"

namespace mgc {

namespace {

// May product u take a prologue that replaces its first operand v?
bool takesPrologue(const Graph& g, const Node& u, ValueId v) {
  if (u.op != Op::MatMul && u.op != Op::QMatMul) return false;
  if (u.inputs.empty() || u.inputs[0] != v || hasPrologue(u)) return false;
  for (size_t k = 1; k < u.inputs.size(); ++k)
    if (u.inputs[k] == v) return false;  // also its b or an epilogue operand
  if (u.op == Op::MatMul && matmulLayout(u).transA) return false;
  const TensorType& a = g.type(v);
  const int64_t K = a.shape.empty() ? 0 : a.shape.back();
  if (a.dtype != DType::F32 || K <= 0 || a.numel() / K > kPrologueMaxRows) return false;
  // MatMul: a, b, up to 2 epilogue operands, then u; QMatMul keeps its
  // scales slot (input 2) before the epilogue operands and u.
  const size_t slots = u.op == Op::MatMul ? 2 : 3;
  return std::max(u.inputs.size(), slots) + 1 <= size_t(u.op == Op::MatMul ? 5 : 6);
}

struct Rewrite {
  ValueId a, operand;  // the product's new first operand and the prologue's operand
  std::string attr;
  AttrValue value;
};

// rms_norm(x, g) over the last axis, eps inside the root.
std::optional<Rewrite> rmsNormPrologue(const Graph& g, const Node& r) {
  if (r.op != Op::RMSNorm || r.i("epsilon_outside", 0) != 0 || r.inputs.size() != 2) return std::nullopt;
  const ValueId x = r.inputs[0], w = r.inputs[1];
  const TensorType& t = g.type(x);
  if (t.rank() < 1 || w == kNoValue) return std::nullopt;
  const int64_t axis = r.i("axis", -1);
  if (axis != -1 && axis != t.rank() - 1) return std::nullopt;
  if (g.type(w).shape != Shape{t.shape.back()} || g.type(w).dtype != t.dtype) return std::nullopt;
  return Rewrite{x, w, "rms_eps", r.f("epsilon", 1e-5)};
}

// mul(mul(gate, sigmoid(gate)), up) in any operand order, every value of
// one type, the inner ones used only here.
std::optional<Rewrite> swigluPrologue(const Graph& g, const Node& m, const std::vector<int>& uses) {
  if (m.op != Op::Mul || m.inputs.size() != 2) return std::nullopt;
  const TensorType& out = g.type(m.outputs[0]);
  auto producer = [&](ValueId v) -> const Node* {
    NodeId p = g.value(v).producer;
    return p < 0 || uses[size_t(v)] != 1 ? nullptr : &g.nodes[size_t(p)];
  };
  for (int side = 0; side < 2; ++side) {
    const ValueId silu = m.inputs[size_t(side)], up = m.inputs[size_t(1 - side)];
    const Node* s = producer(silu);
    if (!s || s->op != Op::Mul || g.type(up) != out || g.type(silu) != out) continue;
    for (int k = 0; k < 2; ++k) {
      const ValueId gate = s->inputs[size_t(k)];
      const Node* sig = producer(s->inputs[size_t(1 - k)]);
      if (sig && sig->op == Op::Sigmoid && sig->inputs[0] == gate && g.type(gate) == out)
        return Rewrite{gate, up, "swiglu", int64_t(1)};
    }
  }
  return std::nullopt;
}

}  // namespace

void fusePrologue(Graph& g) {
  std::vector<int> uses = g.useCounts();
  std::vector<bool> isOutput(g.values.size(), false);
  for (ValueId v : g.outputs) isOutput[size_t(v)] = true;
  for (const auto& u : g.stateUpdates) isOutput[size_t(u.second)] = true;
  std::vector<std::vector<size_t>> users(g.values.size());
  for (size_t j = 0; j < g.nodes.size(); ++j)
    for (ValueId v : g.nodes[j].inputs)
      if (v != kNoValue && (users[size_t(v)].empty() || users[size_t(v)].back() != j)) users[size_t(v)].push_back(j);

  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const ValueId y = n.outputs.empty() ? kNoValue : n.outputs[0];
    if (y == kNoValue || isOutput[size_t(y)] || g.type(y).dtype != DType::F32) continue;
    std::optional<Rewrite> r = rmsNormPrologue(g, n);
    if (!r) r = swigluPrologue(g, n, uses);
    if (!r) continue;
    for (size_t j : users[size_t(y)]) {
      Node& u = g.nodes[j];
      if (!takesPrologue(g, u, y)) continue;
      u.inputs[0] = r->a;
      if (u.op == Op::QMatMul && u.inputs.size() < 3) u.inputs.push_back(kNoValue);  // the scales slot
      u.inputs.push_back(r->operand);
      u.attrs[r->attr] = r->value;
    }
  }
}

}  // namespace mgc
