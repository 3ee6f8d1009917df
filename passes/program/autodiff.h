// Reverse-mode automatic differentiation over the IR.
//
// differentiate() appends, to the same graph, the nodes that compute the
// gradient of a scalar loss with respect to chosen values (parameters,
// inputs). The forward nodes are not touched; gradient nodes reuse forward
// values (activations) where a rule needs them. One rule per op lives in
// passes/grad_rules*.cpp; an op without a gradient (ReduceProd, the
// gradient ops themselves) throws mgc::Error naming the node when a
// gradient has to flow through it.
//
// Semantics follow PyTorch: fan-out gradients add up, broadcast operands get
// the gradient summed back to their shape, integer and bool tensors never
// receive gradients, piecewise ops take PyTorch's choice at their kinks
// (relu'(0) = 0, ties of Max/Min split in half, MaxPool routes to the first
// maximum of each window, ReduceMax splits evenly among ties).
#pragma once

#include <map>
#include <vector>

#include "ir/graph.h"

namespace mgc {

struct GradResult {
  std::map<ValueId, ValueId> grads;  // wrt value → its gradient (same type)
};

// `loss` must be a float tensor with one element (any rank). Every `wrt`
// value must be a float tensor; one that the loss does not depend on gets a
// zero constant as its gradient. Throws mgc::Error naming the node whose op
// has no gradient rule, or the offending value.
GradResult differentiate(Graph& g, ValueId loss, const std::vector<ValueId>& wrt);

}  // namespace mgc
