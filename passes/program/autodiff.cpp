// Reverse-mode differentiation (autodiff.h): the sweep over the graph and
// the node emitter the rules use. The rules themselves: grad_rules*.cpp.
#include "passes/program/autodiff.h"

#include <algorithm>

#include "passes/program/grad_builder.h"

namespace mgc {

namespace grad {

ValueId Emitter::op(Op o, std::vector<ValueId> ins, Attrs attrs) {
  NodeId id = g.addNode(o, g.uniqueName(base_ + ".grad"), std::move(ins), std::move(attrs));
  return g.nodes[size_t(id)].outputs[0];
}

ValueId Emitter::filled(double v, const TensorType& t) {
  HostTensor h(t);
  for (int64_t i = 0; i < h.numel(); ++i) h.setF(i, v);
  return g.addConstant(g.uniqueName(base_ + ".k"), std::move(h));
}

ValueId Emitter::scalar(double v, DType t) { return filled(v, TensorType{t, {}}); }

ValueId Emitter::reshape(ValueId v, Shape s) {
  if (shape(v) == s) return v;
  return op(Op::Reshape, {v}, {{"shape", s}});
}

ValueId Emitter::transpose(ValueId v, const std::vector<int64_t>& perm) {
  bool identity = true;
  for (size_t k = 0; k < perm.size(); ++k) identity = identity && perm[k] == int64_t(k);
  if (identity) return v;
  return op(Op::Transpose, {v}, {{"perm", perm}});
}

ValueId Emitter::expand(ValueId v, Shape s) {
  if (shape(v) == s) return v;
  return op(Op::Expand, {v}, {{"shape", s}});
}

ValueId Emitter::cast(ValueId v, DType t) {
  if (type(v).dtype == t) return v;
  return op(Op::Cast, {v}, {{"to", int64_t(t)}});
}

ValueId Emitter::reduceSum(ValueId v, const std::vector<int64_t>& axes, bool keepdims) {
  if (axes.empty()) return v;
  return op(Op::ReduceSum, {v}, {{"axes", axes}, {"keepdims", int64_t(keepdims)}});
}

ValueId Emitter::reduceMean(ValueId v, const std::vector<int64_t>& axes, bool keepdims) {
  if (axes.empty()) return v;
  return op(Op::ReduceMean, {v}, {{"axes", axes}, {"keepdims", int64_t(keepdims)}});
}

ValueId Emitter::sumToShape(ValueId v, Shape s) {
  const Shape from = shape(v);
  if (from == s) return v;
  size_t lead = from.size() - s.size();
  std::vector<int64_t> axes;
  for (size_t d = 0; d < from.size(); ++d)  // (an axis of size 1 needs no sum, only the reshape)
    if (from[d] != 1 && (d < lead || s[d - lead] == 1)) axes.push_back(int64_t(d));
  return reshape(axes.empty() ? v : reduceSum(v, axes, true), s);
}

void noGradient(const Node& n, const std::string& why) {
  throw Error("autodiff: node '" + n.name + "' (" + opName(n.op) + "): " + why);
}

}  // namespace grad

GradResult differentiate(Graph& g, ValueId loss, const std::vector<ValueId>& wrt) {
  if (loss < 0 || size_t(loss) >= g.values.size()) throw Error("autodiff: loss is not a value of graph '" + g.name + "'");
  const TensorType lossType = g.type(loss);
  if (!isFloat(lossType.dtype) || lossType.numel() != 1)
    throw Error("autodiff: loss '" + g.value(loss).name + "' must be a float tensor with one element, got " +
                lossType.str());

  // Values that depend on some wrt value: only they carry gradients.
  std::vector<bool> active(g.values.size(), false);
  for (ValueId v : wrt) {
    if (v < 0 || size_t(v) >= g.values.size()) throw Error("autodiff: a wrt value is not a value of the graph");
    if (!isFloat(g.type(v).dtype))
      throw Error("autodiff: cannot differentiate with respect to '" + g.value(v).name + "' of type " +
                  g.type(v).str() + " (not a float tensor)");
    active[size_t(v)] = true;
  }
  const size_t forwardNodes = g.nodes.size();
  for (size_t k = 0; k < forwardNodes; ++k) {
    const Node& n = g.nodes[k];
    bool any = false;
    for (ValueId v : n.inputs) any = any || (v != kNoValue && active[size_t(v)]);
    for (ValueId o : n.outputs) active[size_t(o)] = any && isFloat(g.type(o).dtype);
  }

  // The loss's node comes after everything it depends on: sweep backwards
  // from it, accumulating each value's gradient (fan-out adds up).
  std::map<ValueId, ValueId> acc;
  auto accumulate = [&](grad::Emitter& e, ValueId v, ValueId gv) {
    auto it = acc.find(v);
    if (it == acc.end()) acc[v] = gv;
    else it->second = e.add(it->second, gv);
  };
  {
    grad::Emitter seed(g, g.value(loss).name);
    if (active[size_t(loss)]) acc[loss] = seed.filled(1.0, lossType);
  }
  for (size_t k = forwardNodes; k-- > 0;) {
    const Node n = g.nodes[k];  // a copy: rules append to g.nodes
    if (n.outputs.size() != 1) grad::noGradient(n, "nodes with several outputs have no gradient rule");
    auto it = acc.find(n.outputs[0]);
    if (it == acc.end()) continue;
    std::vector<bool> need;
    bool anyNeed = false;
    for (ValueId v : n.inputs) {
      need.push_back(v != kNoValue && active[size_t(v)]);
      anyNeed = anyNeed || need.back();
    }
    if (!anyNeed) continue;
    grad::Emitter e(g, n.name.empty() ? opName(n.op) : n.name);
    grad::Grads gs = grad::gradOf(e, n, it->second, need);
    for (size_t i = 0; i < n.inputs.size() && i < gs.size(); ++i) {
      if (!need[i] || gs[i] == kNoValue) continue;
      ValueId gv = gs[i];
      const TensorType& want = g.type(n.inputs[i]);
      if (g.type(gv) != want)
        grad::noGradient(n, "gradient rule produced " + g.type(gv).str() + " for input " + std::to_string(i) +
                                " of type " + want.str() + " (a bug in the rule)");
      accumulate(e, n.inputs[i], gv);
    }
  }

  GradResult r;
  for (ValueId v : wrt) {
    auto it = acc.find(v);
    if (it != acc.end()) {
      r.grads[v] = it->second;
    } else {
      grad::Emitter e(g, g.value(v).name);
      r.grads[v] = e.filled(0.0, g.type(v));
    }
  }
  return r;
}

}  // namespace mgc
