// canonicalize: small local rewrites to one spelling per computation, run to
// a fixed point. Each rule is one function with its before/after; a rule
// looks at one node (and its producer or single consumer) and returns true
// when it changed the graph. Nodes a rule leaves unused are removed by dce.
//
// Graph outputs keep their names: a rule that would make a graph output an
// alias of another value instead retargets the producing node onto the
// output value (see forwardValue), or does nothing.
#include <algorithm>
#include <cmath>
#include <memory>

#include "passes/graph/canonicalize_util.h"
#include "passes/graph/passes.h"

namespace mgc {

namespace {

using canon::Rewriter;

// identity(%x) → %x
bool removeIdentity(Rewriter& r, size_t i) {
  const Node& n = r.g.nodes[i];
  if (n.op != Op::Identity) return false;
  return r.forwardValue(i, n.outputs[0], n.inputs[0]);
}

// add(%x, 0) / add(0, %x) / sub(%x, 0) / mul(%x, 1) / mul(1, %x) / div(%x, 1) → %x
// when the constant does not broadcast %x to a larger shape. (x + -0.0 and
// x + 0.0 are both treated as x: the sign of a zero sum is not preserved.)
bool removeNeutralOperand(Rewriter& r, size_t i) {
  const Node& n = r.g.nodes[i];
  // The neutral element of each op, and whether it may stand on the left.
  double neutral;
  bool commutes;
  if (n.op == Op::Add || n.op == Op::Sub) neutral = 0;
  else if (n.op == Op::Mul || n.op == Op::Div) neutral = 1;
  else return false;
  commutes = n.op == Op::Add || n.op == Op::Mul;
  for (int side = 1; side >= (commutes ? 0 : 1); --side) {
    ValueId x = n.inputs[size_t(1 - side)], k = n.inputs[size_t(side)];
    const HostTensor* c = r.constantOf(k);
    if (!c || r.g.type(x) != r.g.type(n.outputs[0]) || !canon::allElementsEqual(*c, neutral)) continue;
    return r.forwardValue(i, n.outputs[0], x);
  }
  return false;
}

// reshape(reshape(%x) {shape = A}) {shape = B} → reshape(%x) {shape = B}
// reshape(%x) {shape = shape of %x} → %x
bool simplifyReshape(Rewriter& r, size_t i) {
  Node& n = r.g.nodes[i];
  if (n.op != Op::Reshape) return false;
  const Node* inner = r.producerOf(n.inputs[0]);
  if (inner && inner->op == Op::Reshape) {
    n.inputs[0] = inner->inputs[0];
    return true;
  }
  if (r.g.type(n.inputs[0]) == r.g.type(n.outputs[0])) return r.forwardValue(i, n.outputs[0], n.inputs[0]);
  return false;
}

// transpose(transpose(%x) {perm = P}) {perm = Q} → transpose(%x) {perm = P∘Q}
// (out[i] = mid[Q[i]] = x[P[Q[i]]]);  transpose(%x) {perm = [0, 1, ...]} → %x;
// a transpose that keeps the axes longer than 1 in their order moves no
// element (e.g. [1, T=1, H, D] → [1, H, 1, D] in a decode step) → reshape,
// a view: no copy dispatch.
bool simplifyTranspose(Rewriter& r, size_t i) {
  Node& n = r.g.nodes[i];
  if (n.op != Op::Transpose) return false;
  std::vector<int64_t> q = n.ints("perm");
  const Node* inner = r.producerOf(n.inputs[0]);
  if (inner && inner->op == Op::Transpose) {
    std::vector<int64_t> p = inner->ints("perm"), combined;
    for (int64_t axis : q) combined.push_back(p.at(size_t(axis)));
    n.inputs[0] = inner->inputs[0];
    n.attrs["perm"] = combined;
    return true;
  }
  bool identity = true;
  int64_t lastMoved = -1;
  const Shape& in = r.g.type(n.inputs[0]).shape;
  for (size_t k = 0; k < q.size(); ++k) {
    identity &= q[k] == int64_t(k);
    if (in.at(size_t(q[k])) == 1) continue;
    if (q[k] < lastMoved) return false;  // two real axes change order: a real transpose
    lastMoved = q[k];
  }
  if (identity) return r.forwardValue(i, n.outputs[0], n.inputs[0]);
  n.op = Op::Reshape;
  n.attrs.clear();
  n.attrs["shape"] = std::vector<int64_t>(r.g.type(n.outputs[0]).shape);
  return true;
}

// Does transpose node `n` swap exactly the last two axes (rank >= 2)?
bool swapsLastTwo(const Node& n) {
  if (n.op != Op::Transpose) return false;
  std::vector<int64_t> perm = n.ints("perm");
  const size_t r = perm.size();
  if (r < 2) return false;
  for (size_t k = 0; k + 2 < r; ++k)
    if (perm[k] != int64_t(k)) return false;
  return perm[r - 2] == int64_t(r - 1) && perm[r - 1] == int64_t(r - 2);
}

// matmul(transpose(%a) {perm = [.., r-1, r-2]}, %b) → matmul(%a, %b) {trans_a = 1}
// (the same for %b / trans_b; a flag already set is cleared). The kernel
// reads the stored layout directly, so no transposed copy is made.
bool foldTransposeIntoMatMul(Rewriter& r, size_t i) {
  Node& n = r.g.nodes[i];
  if (n.op != Op::MatMul) return false;
  bool changed = false;
  for (size_t k = 0; k < 2; ++k) {
    const Node* t = r.producerOf(n.inputs[k]);
    if (!t || !swapsLastTwo(*t)) continue;
    const char* flag = k == 0 ? "trans_a" : "trans_b";
    n.inputs[k] = t->inputs[0];
    if (n.i(flag, 0) != 0) n.attrs.erase(flag);
    else n.attrs[flag] = int64_t(1);
    changed = true;
  }
  return changed;
}

// %c = matmul(%a, %b) {trans_a = x, trans_b = y} (used only here, no fused
// epilogue, both operands of rank >= 2);  transpose(%c) {perm = [.., r-1, r-2]}
//   → matmul(%b, %a) {trans_a = !y, trans_b = !x}        ((AB)^T = B^T A^T)
bool transposeMatMulResult(Rewriter& r, size_t i) {
  Node& n = r.g.nodes[i];
  if (!swapsLastTwo(n)) return false;
  const Node* m = r.producerOf(n.inputs[0]);
  if (!m || m->op != Op::MatMul || m->inputs.size() != 2 || m->has("epilogue") || r.uses(n.inputs[0]) != 1) return false;
  if (r.g.type(m->inputs[0]).rank() < 2 || r.g.type(m->inputs[1]).rank() < 2) return false;
  const int64_t ta = m->i("trans_a", 0) != 0, tb = m->i("trans_b", 0) != 0;
  std::vector<ValueId> swapped = {m->inputs[1], m->inputs[0]};
  n.op = Op::MatMul;
  n.inputs = swapped;
  n.attrs.clear();
  if (!tb) n.attrs["trans_a"] = int64_t(1);
  if (!ta) n.attrs["trans_b"] = int64_t(1);
  return true;
}

// batch_norm(%x, %scale, %bias, %mean, %var) {epsilon = e}, all params constant →
//   %s = const [C,1,1] = scale / sqrt(var + e),  %t = const [C,1,1] = bias - mean * s
//   %m = mul(%x, %s);  %y = add(%m, %t)
bool decomposeBatchNorm(Rewriter& r, size_t i) {
  const Node& bn = r.g.nodes[i];
  if (bn.op != Op::BatchNorm) return false;
  const TensorType& xt = r.g.type(bn.inputs[0]);
  if (!isFloat(xt.dtype)) return false;
  const HostTensor *scale = r.constantOf(bn.inputs[1]), *bias = r.constantOf(bn.inputs[2]);
  const HostTensor *mean = r.constantOf(bn.inputs[3]), *var = r.constantOf(bn.inputs[4]);
  if (!scale || !bias || !mean || !var) return false;
  int64_t channels = xt.shape[1];
  Shape perChannel(size_t(xt.rank() - 1), 1);
  perChannel[0] = channels;
  HostTensor s(TensorType{xt.dtype, perChannel}), t(TensorType{xt.dtype, perChannel});
  double eps = bn.f("epsilon", 1e-5);
  for (int64_t c = 0; c < channels; ++c) {
    double sc = scale->getF(c) / std::sqrt(var->getF(c) + eps);
    s.setF(c, sc);
    t.setF(c, bias->getF(c) - mean->getF(c) * sc);
  }
  Node copy = bn;  // r.g.nodes changes below
  ValueId sv = r.g.addConstant(copy.name + "_scale", std::move(s));
  ValueId tv = r.g.addConstant(copy.name + "_shift", std::move(t));
  ValueId scaled = r.g.addValue(r.g.value(copy.outputs[0]).name + "_scaled", xt);
  Node mul{Op::Mul, copy.name + "_mul", {copy.inputs[0], sv}, {scaled}, {}};
  Node add{Op::Add, copy.name, {scaled, tv}, copy.outputs, {}};
  r.g.nodes[i] = std::move(add);
  r.g.nodes.insert(r.g.nodes.begin() + std::ptrdiff_t(i), std::move(mul));
  r.g.rebuildProducers();
  return true;
}

// %c = conv(%x, %w, %b) {...};  %y = mul(%c, %k)   (%k constant, one value or
// one per output channel, %c used only here) →
//   %y = conv(%x, %w * k, %b * k) {...}
bool foldMulIntoConv(Rewriter& r, size_t i) {
  canon::ConvFoldSite site;
  if (!canon::matchConvConsumer(r, i, Op::Mul, &site)) return false;
  Node& conv = r.g.nodes[i];
  const HostTensor& w = *r.constantOf(conv.inputs[1]);
  int64_t perOut = w.numel() / int64_t(site.factors.size());
  HostTensor nw(w.type);
  for (int64_t e = 0; e < w.numel(); ++e) nw.setF(e, w.getF(e) * site.factors[size_t(e / perOut)]);
  ValueId newW = r.g.addConstant(canon::foldedName(r.g.value(conv.inputs[1]).name), std::move(nw));
  if (conv.inputs.size() > 2 && conv.inputs[2] != kNoValue) {
    const HostTensor& b = *r.constantOf(conv.inputs[2]);
    HostTensor nb(b.type);
    for (int64_t m = 0; m < b.numel(); ++m) nb.setF(m, b.getF(m) * site.factors[size_t(m)]);
    conv.inputs[2] = r.g.addConstant(canon::foldedName(r.g.value(conv.inputs[2]).name), std::move(nb));
  }
  conv.inputs[1] = newW;
  r.retargetOntoConsumer(i, site.consumer);
  return true;
}

// %c = conv(%x, %w, %b) {...};  %y = add(%c, %k)   (%k constant, one value or
// one per output channel, %c used only here) →
//   %y = conv(%x, %w, %b + k) {...}      (a missing %b counts as zeros)
bool foldAddIntoConv(Rewriter& r, size_t i) {
  canon::ConvFoldSite site;
  if (!canon::matchConvConsumer(r, i, Op::Add, &site)) return false;
  Node& conv = r.g.nodes[i];
  const TensorType& wt = r.g.type(conv.inputs[1]);
  HostTensor nb(TensorType{wt.dtype, {wt.shape[0]}});
  bool hasBias = conv.inputs.size() > 2 && conv.inputs[2] != kNoValue;
  const HostTensor* b = hasBias ? r.constantOf(conv.inputs[2]) : nullptr;
  for (int64_t m = 0; m < nb.numel(); ++m) nb.setF(m, (b ? b->getF(m) : 0.0) + site.factors[size_t(m)]);
  std::string name = b ? canon::foldedName(r.g.value(conv.inputs[2]).name) : conv.name + "_bias";
  ValueId newB = r.g.addConstant(name, std::move(nb));
  conv.inputs.resize(3, kNoValue);
  conv.inputs[2] = newB;
  r.retargetOntoConsumer(i, site.consumer);
  return true;
}

// %c = matmul(%a, %b) (no epilogue, used only here);  %y = div(%c, %k)
// or mul(%c, %k) / mul(%k, %c), %k a one-element constant →
//   %s = div(%a, %k) (or of %b, whichever is smaller);  %y = matmul(%s, %b)
// when that operand has under half the product's elements: attention's
// scores / sqrt(d) then scale q ([T, d]) instead of the scores ([T, T]).
bool scaleSmallerOperand(Rewriter& r, size_t i) {
  const Node& n = r.g.nodes[i];
  if ((n.op != Op::Div && n.op != Op::Mul) || n.inputs.size() != 2) return false;
  for (int side = 0; side < (n.op == Op::Mul ? 2 : 1); ++side) {
    const ValueId c = n.inputs[size_t(side)], k = n.inputs[size_t(1 - side)];
    const HostTensor* kc = r.constantOf(k);
    const Node* m = r.producerOf(c);
    if (!kc || kc->numel() != 1 || !m || m->op != Op::MatMul || m->inputs.size() != 2 || m->has("epilogue")) continue;
    const TensorType& out = r.g.type(c);
    if (out.dtype != DType::F32 || kc->type.dtype != DType::F32 || r.uses(c) != 1 || r.g.type(n.outputs[0]) != out)
      continue;
    const size_t j = size_t(m - r.g.nodes.data());
    int operand = r.g.type(m->inputs[0]).numel() <= r.g.type(m->inputs[1]).numel() ? 0 : 1;
    const TensorType ot = r.g.type(m->inputs[size_t(operand)]);
    if (ot.numel() * 2 >= out.numel() || ot.rank() < kc->type.rank()) continue;
    const Op op = n.op;
    const std::string name = n.name;
    r.retargetOntoConsumer(j, i);  // the matmul now writes %y; node i is gone (it came after j)
    Node& mm = r.g.nodes[j];
    ValueId scaled = r.g.addValue(r.g.uniqueName(r.g.value(mm.inputs[size_t(operand)]).name + "_scaled"), ot);
    Node s{op, name, {mm.inputs[size_t(operand)], k}, {scaled}, {}};
    mm.inputs[size_t(operand)] = scaled;
    r.g.nodes.insert(r.g.nodes.begin() + std::ptrdiff_t(j), std::move(s));
    r.g.rebuildProducers();
    return true;
  }
  return false;
}

// add(expand(%a), %b) → add(%a, %b) where the broadcast alone gives the
// same result (every use of the expand is such a Unary / Binary op):
//   %e = expand(%d) {shape = [4,64,56,56]} : f32[4,64,56,56]   (a ReduceMean's gradient)
//   %s = add(%e, %g) : f32[4,64,56,56]           →   %s = add(%d, %g) : f32[4,64,56,56]
// No tensor of the full shape is written, and the add can fuse further.
bool absorbExpandIntoBroadcast(Rewriter& r, size_t i) {
  const Node& n = r.g.nodes[i];
  if (n.op != Op::Expand || r.isGraphOutput(n.outputs[0])) return false;
  const ValueId e = n.outputs[0], src = n.inputs[0];
  std::vector<size_t> users;
  for (size_t k = 0; k < r.g.nodes.size(); ++k) {
    const Node& u = r.g.nodes[k];
    if (std::find(u.inputs.begin(), u.inputs.end(), e) == u.inputs.end()) continue;
    const OpClass cls = opInfo(u.op).cls;
    if (cls != OpClass::Binary || u.inputs[0] == u.inputs[1]) return false;
    Node trial = u;
    for (ValueId& v : trial.inputs)
      if (v == e) v = src;
    try {
      if (inferTypes(r.g, trial) != std::vector<TensorType>{r.g.type(u.outputs[0])}) return false;
    } catch (const Error&) {
      return false;
    }
    users.push_back(k);
  }
  if (users.empty()) return false;
  for (size_t k : users)
    for (ValueId& v : r.g.nodes[k].inputs)
      if (v == e) v = src;
  return true;
}

using Rule = bool (*)(Rewriter&, size_t);
const Rule kRules[] = {
    removeIdentity,     removeNeutralOperand, simplifyReshape,         simplifyTranspose,
    decomposeBatchNorm, foldMulIntoConv,      foldAddIntoConv,         foldTransposeIntoMatMul,
    transposeMatMulResult, scaleSmallerOperand,  absorbExpandIntoBroadcast,
};

// Enough for any realistic chain; guarantees termination if two rules ever
// undo each other.
constexpr int kMaxSweeps = 64;

}  // namespace

void canonicalize(Graph& g) {
  Rewriter r{g};
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    bool changed = false;
    // A rule may erase node i (the next node then sits at i) or insert
    // before it; either way the remaining rules look at whatever is at i.
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      for (Rule rule : kRules) {
        if (i >= g.nodes.size() || !rule(r, i)) continue;
        r.changed();
        changed = true;
      }
    }
    if (!changed) return;
  }
}

}  // namespace mgc
