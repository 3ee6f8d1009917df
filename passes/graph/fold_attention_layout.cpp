// fold-attention-layout: the head transposes around an attention node go
// into its `tokens_major` bits (ir/attention_layout.h), so the kernel reads
// q / k / v where the projections wrote them and writes its output where
// the output projection reads it. Exports split a projection [B, T, H*D]
// into heads with reshape → transpose (a copy per operand) and merge the
// output back with transpose → reshape (one more copy):
//
//   %t  = transpose(%x) {perm = [0, 2, 1, 3]}          (%x: [B, R, H, W])
//   %xv = reshape(%t) {shape = [B, L1.., R, W]}        (optional: GQA's view of
//                                                       the heads, H = L1 · ..)
//   %o  = attention(.., %xv, ..) : [B, L1.., T, Dv]
//   %or = reshape(%o) {shape = [B, H, T, Dv]}          (optional)
//   %z  = transpose(%or) {perm = [0, 2, 1, 3]}         : [B, T, H, Dv]
//     →
//   %xs = reshape(%x) {shape = [B, R, L1.., W]}        (none when that is %x's shape)
//   %o  = attention(.., %xs, ..) {tokens_major = bit} : [B, T, L1.., Dv]
//   %z  = reshape(%o) {shape = [B, T, H, Dv]}
//
// Every transpose and view of the pattern must have no other use (they
// go here). After fuse-attention-cache, which takes only plain operands.
#include <optional>

#include "ir/attention_layout.h"
#include "passes/graph/passes.h"
#include "passes/graph/pattern_util.h"

namespace mgc {

namespace {

const std::vector<int64_t> kSwapMiddle{0, 2, 1, 3};

int64_t product(const Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t a = from; a < to; ++a) p *= s[a];
  return p;
}

// x ([B, R, H, W] stored) is the head view `logical` [B, L1.., R, W] of.
bool tokensMajorOf(const Shape& x, const Shape& logical) {
  const size_t r = logical.size();
  return x.size() == 4 && r >= 4 && x[0] == logical[0] && x[1] == logical[r - 2] && x[3] == logical[r - 1] &&
         x[2] == product(logical, 1, r - 2);
}

struct InputFold {
  size_t slot;
  ValueId stored;            // the transpose's input
  std::vector<NodeId> dead;  // the transpose and its view
};

struct OutputFold {
  NodeId transpose = -1, view = -1;
};

class Matcher {
 public:
  explicit Matcher(const Graph& g) : g_(g), uses_(g), consumer_(g.values.size(), -1) {
    for (size_t n = 0; n < g.nodes.size(); ++n)
      for (ValueId v : g.nodes[n].inputs)
        if (v != kNoValue) consumer_[size_t(v)] = NodeId(n);
  }

  // Operand `slot` of attention `a` as the head view of a tokens-major tensor.
  std::optional<InputFold> input(const Node& a, size_t slot) const {
    const ValueId x = a.inputs[slot];
    const Shape& logical = g_.type(x).shape;
    InputFold f{slot, kNoValue, {}};
    ValueId t = x;
    if (const NodeId view = uses_.soleProducer(x, Op::Reshape); view >= 0) {
      f.dead.push_back(view);
      t = g_.nodes[size_t(view)].inputs[0];
    }
    const NodeId tr = uses_.soleProducer(t, Op::Transpose);
    if (tr < 0 || g_.nodes[size_t(tr)].ints("perm") != kSwapMiddle) return std::nullopt;
    f.stored = g_.nodes[size_t(tr)].inputs[0];
    if (!tokensMajorOf(g_.type(f.stored).shape, logical)) return std::nullopt;
    f.dead.push_back(tr);
    return f;
  }

  // Attention `a`'s output merged back into [B, T, H, Dv] by a transpose.
  std::optional<OutputFold> output(const Node& a) const {
    const ValueId o = a.outputs[0];
    const Shape& logical = g_.type(o).shape;
    OutputFold f;
    ValueId t = o;
    if (const NodeId view = soleConsumer(o, Op::Reshape); view >= 0) {
      f.view = view;
      t = g_.nodes[size_t(view)].outputs[0];
    }
    f.transpose = soleConsumer(t, Op::Transpose);
    if (f.transpose < 0) return std::nullopt;
    const Node& tr = g_.nodes[size_t(f.transpose)];
    if (tr.ints("perm") != kSwapMiddle || !tokensMajorOf(g_.type(tr.outputs[0]).shape, logical)) return std::nullopt;
    return f;
  }

 private:
  // The node reading v if it is `op` and the only reader (v no graph output), else -1.
  NodeId soleConsumer(ValueId v, Op op) const {
    const NodeId c = consumer_[size_t(v)];
    if (uses_.count(v) != 1 || uses_.isOutput(v) || c < 0 || g_.nodes[size_t(c)].op != op) return -1;
    return c;
  }

  const Graph& g_;
  Uses uses_;
  std::vector<NodeId> consumer_;  // the last node reading each value
};

}  // namespace

void foldAttentionLayout(Graph& g) {
  struct Match {
    NodeId node;
    std::vector<InputFold> inputs;
    std::optional<OutputFold> output;
  };
  std::vector<Match> matches;
  {
    const Matcher matcher(g);
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      const Node& a = g.nodes[n];
      if (a.op != Op::Attention || attentionTokensMajor(a) != 0 || g.type(a.inputs[0]).rank() < 4) continue;
      Match m{NodeId(n), {}, matcher.output(a)};
      for (size_t slot = 0; slot < 3; ++slot)
        if (auto f = matcher.input(a, slot)) m.inputs.push_back(*f);
      if (!m.inputs.empty() || m.output) matches.push_back(std::move(m));
    }
  }
  if (matches.empty()) return;
  Splice splice(g);
  for (const Match& m : matches) {
    const std::string name = g.nodes[size_t(m.node)].name;
    int64_t bits = 0;
    std::vector<ValueId> ins = g.nodes[size_t(m.node)].inputs;
    for (const InputFold& f : m.inputs) {
      const Shape stored = attentionStored(g.type(ins[f.slot]).shape, true);
      ValueId x = f.stored;
      if (g.type(x).shape != stored) {
        g.addNode(Op::Reshape, name, {x}, {{"shape", std::vector<int64_t>(stored.begin(), stored.end())}});
        x = g.nodes.back().outputs[0];
      }
      ins[f.slot] = x;
      bits |= int64_t(1) << f.slot;  // kAttnQ, kAttnK, kAttnV
      for (NodeId d : f.dead) splice.drop(d);
    }
    splice.placeNewBefore(m.node);
    Node& at = g.nodes[size_t(m.node)];
    at.inputs = ins;
    if (m.output) {
      bits |= kAttnOut;
      Value& o = g.value(at.outputs[0]);
      o.type.shape = attentionStored(o.type.shape, true);
      // The merging transpose becomes a view of the tokens-major output.
      Node& tr = g.nodes[size_t(m.output->transpose)];
      const Shape& z = g.type(tr.outputs[0]).shape;
      tr.op = Op::Reshape;
      tr.inputs = {at.outputs[0]};
      tr.attrs = {{"shape", std::vector<int64_t>(z.begin(), z.end())}};
      if (m.output->view >= 0) splice.drop(m.output->view);
    }
    g.nodes[size_t(m.node)].attrs["tokens_major"] = bits;
  }
  splice.finish();
}

}  // namespace mgc
