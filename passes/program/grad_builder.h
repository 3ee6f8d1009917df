// Private to passes/program/autodiff.cpp, passes/grad_rules*.cpp and passes/program/loss.cpp:
// a small emitter of IR nodes (so that rules read like the math) and the
// per-family gradient rules.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"

namespace mgc::grad {

// Appends nodes to g, named after `base` (the forward node's name).
class Emitter {
 public:
  Emitter(Graph& graph, std::string base) : g(graph), base_(std::move(base)) {}
  Graph& g;

  const TensorType& type(ValueId v) const { return g.type(v); }
  const Shape& shape(ValueId v) const { return g.type(v).shape; }

  ValueId op(Op op, std::vector<ValueId> ins, Attrs attrs = {});
  // A rank-0 constant of dtype t (broadcasts against anything).
  ValueId scalar(double v, DType t);
  // Constant of `t` filled with v.
  ValueId filled(double v, const TensorType& t);

  ValueId add(ValueId a, ValueId b) { return op(Op::Add, {a, b}); }
  ValueId sub(ValueId a, ValueId b) { return op(Op::Sub, {a, b}); }
  ValueId mul(ValueId a, ValueId b) { return op(Op::Mul, {a, b}); }
  ValueId div(ValueId a, ValueId b) { return op(Op::Div, {a, b}); }
  ValueId neg(ValueId a) { return op(Op::Neg, {a}); }
  // a * k / a + k with k a scalar of a's dtype
  ValueId mulScalar(ValueId a, double k) { return mul(a, scalar(k, type(a).dtype)); }
  ValueId addScalar(ValueId a, double k) { return add(a, scalar(k, type(a).dtype)); }
  // cond ? a : 0
  ValueId maskOrZero(ValueId cond, ValueId a) { return op(Op::Where, {cond, a, scalar(0, type(a).dtype)}); }
  ValueId reshape(ValueId v, Shape s);  // shapes by value: emitting reallocates g.values
  ValueId transpose(ValueId v, const std::vector<int64_t>& perm);
  ValueId expand(ValueId v, Shape s);
  ValueId cast(ValueId v, DType t);
  // Reductions; an empty axis list means "nothing to reduce" (returns v),
  // unlike the IR's Reduce* where it means every axis.
  ValueId reduceSum(ValueId v, const std::vector<int64_t>& axes, bool keepdims);
  ValueId reduceMean(ValueId v, const std::vector<int64_t>& axes, bool keepdims);
  // Sums a broadcast result back to an operand's shape `s` (numpy rules):
  // leading axes and axes where s has 1 are summed, then reshaped.
  ValueId sumToShape(ValueId v, Shape s);

 private:
  std::string base_;
};

// A forward node's gradient rule: given dy (the gradient of its output,
// same type), the gradient of each input, kNoValue where none flows. `need`
// says which inputs want a gradient (float, depending on a wrt value); a
// rule may skip the others. `n` is a copy: emitting nodes may reallocate
// g.nodes.
using Grads = std::vector<ValueId>;

Grads gradOf(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need);

// Families (grad_rules_eltwise.cpp, grad_rules_nn.cpp, grad_rules_shape.cpp).
Grads unaryGrad(Emitter& e, const Node& n, ValueId dy);
Grads binaryGrad(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need);
Grads whereGrad(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need);
Grads matMulGrad(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need);
Grads convGrad(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need);
Grads poolGrad(Emitter& e, const Node& n, ValueId dy);
Grads softmaxGrad(Emitter& e, const Node& n, ValueId dy);
Grads layerNormGrad(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need);
Grads rmsNormGrad(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need);
Grads batchNormGrad(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need);
Grads reduceGrad(Emitter& e, const Node& n, ValueId dy);
Grads shapeGrad(Emitter& e, const Node& n, ValueId dy);  // Reshape, Transpose, Expand, Pad
Grads concatGrad(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need);
Grads sliceGrad(Emitter& e, const Node& n, ValueId dy);
Grads gatherGrad(Emitter& e, const Node& n, ValueId dy);
Grads convGradInputGrad(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need);
Grads gatherElementsGrad(Emitter& e, const Node& n, ValueId dy);
Grads scatterElementsGrad(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need);

[[noreturn]] void noGradient(const Node& n, const std::string& why);

}  // namespace mgc::grad
