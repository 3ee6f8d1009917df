// fold-causal-mask: an attention_cache whose mask is the causal mask of its
// own cache offset (as compiler/hf/generation.cpp builds it through
// GraphBuilder::causalMask) takes no mask and `causal = 1` instead
// (ir/ops.def): the kernel then reads no [T, S] mask and stops at the last
// visible key, offset + t, instead of walking the whole cache; the mask's
// comparison and select, which nothing else reads, go with dce. In a decode
// step that removes the two elementwise dispatches of the first layer's
// levels, and with them the barrier that stood between that level and the
// first attention (docs/architecture.md "In-stream waits").
//
//   %rows = reshape(%pos) {shape = [1, 1]}                  (T = 1), or
//   %p = add(%pos, %iota_T)  %rows = reshape(%p) {shape = [T, 1]}
//   %gt = greater(%iota_S, %rows) : bool[T, S]             (or less(%rows, %iota_S))
//   %mask = where(%gt, %hidden, %zero) : f32[T, S]          (%hidden = -FLT_MAX, %zero = 0)
//   %o, %k1, %v1 = attention_cache(.., %pos, .., %mask)
//     →
//   %o, %k1, %v1 = attention_cache(.., %pos, ..) {causal = 1}
//
// Exactly the same keys are hidden; a hidden key scores -FLT_MAX either way
// (%hidden is taken only when it is that value: another would change the
// scores of a row that sees no key).
#include <cfloat>

#include "passes/graph/passes.h"
#include "passes/graph/pattern_util.h"

namespace mgc {

namespace {

class CausalMatcher {
 public:
  explicit CausalMatcher(const Graph& g) : g_(g) {}

  // Is `mask` [T, S] the causal mask of query positions offset + t over
  // cache positions 0 .. S - 1?
  bool isCausal(ValueId mask, ValueId offset, int64_t T, int64_t S) const {
    const Node* where = producer(mask, Op::Where);
    if (!where || where->inputs.size() != 3 || !isScalar(where->inputs[1], -FLT_MAX) ||
        !isScalar(where->inputs[2], 0.0))
      return false;
    const Node* cmp = producer(where->inputs[0], Op::Greater);
    ValueId keys, rows;
    if (cmp && cmp->inputs.size() == 2) {
      keys = cmp->inputs[0];
      rows = cmp->inputs[1];
    } else if ((cmp = producer(where->inputs[0], Op::Less)) && cmp->inputs.size() == 2) {
      keys = cmp->inputs[1];
      rows = cmp->inputs[0];
    } else {
      return false;
    }
    if (!isIota(keys, S) || g_.type(rows).shape != Shape{T, 1}) return false;
    const Node* view = producer(rows, Op::Reshape);
    if (!view) return false;
    const ValueId positions = view->inputs[0];
    if (positions == offset) return T == 1;
    const Node* add = producer(positions, Op::Add);
    if (!add || add->inputs.size() != 2) return false;
    return (add->inputs[0] == offset && isIota(add->inputs[1], T)) ||
           (add->inputs[1] == offset && isIota(add->inputs[0], T));
  }

 private:
  const Node* producer(ValueId v, Op op) const {
    const NodeId p = g_.value(v).producer;
    return p >= 0 && g_.nodes[size_t(p)].op == op ? &g_.nodes[size_t(p)] : nullptr;
  }
  // A constant f32 of one element equal to `want` (bit-exact after the
  // f32 rounding of want).
  bool isScalar(ValueId v, double want) const {
    const std::optional<double> x = scalarF32(g_, v);
    return x && float(*x) == float(want);
  }
  // A constant integer vector [n] holding 0 .. n - 1.
  bool isIota(ValueId v, int64_t n) const {
    const Value& val = g_.value(v);
    if (!val.isConstant() || (val.type.dtype != DType::I64 && val.type.dtype != DType::I32) ||
        val.type.shape != Shape{n} || val.constant->data.size() != val.type.bytes())
      return false;
    for (int64_t i = 0; i < n; ++i)
      if (val.constant->getI(i) != i) return false;
    return true;
  }

  const Graph& g_;
};

}  // namespace

void foldCausalMask(Graph& g) {
  const CausalMatcher matcher(g);
  for (Node& n : g.nodes) {
    if (n.op != Op::AttentionCache || n.inputs.size() < 9 || n.inputs[8] == kNoValue) continue;
    const Shape& q = g.type(n.inputs[0]).shape;    // [B, H, T, D]
    const Shape& kc = g.type(n.inputs[3]).shape;   // [B, KV, S, D]
    if (q.size() != 4 || kc.size() != 4 || !matcher.isCausal(n.inputs[8], n.inputs[5], q[2], kc[2])) continue;
    n.inputs[8] = kNoValue;
    if (n.inputs.size() == 9) n.inputs.pop_back();
    n.attrs["causal"] = int64_t(1);
  }
}

}  // namespace mgc
