// fold-repeat-kv: grouped-query attention as Hugging Face exports it
// repeats each K/V head G times (repeat_kv: unsqueeze → expand → reshape,
// a copy of the keys and one of the values per layer) before an attention
// node whose heads then match q's. The attention kernels broadcast k and v
// over q's leading dims instead (docs/ir.md), so view q's heads as
// [KV, G] and let the unrepeated K/V heads broadcast over G:
//
//   %ke = expand(%k1) {shape = [B, KV, G, S, D]}       (%k1: [B, KV, 1, S, D])
//   %k  = reshape(%ke) {shape = [B, KV*G, S, D]}       (v likewise, the same G)
//   %o  = attention(%q, %k, %v, %mask) : [B, KV*G, T, Dv]
//     →
//   %q5 = reshape(%q) {shape = [B, KV, G, T, D]}
//   %o5 = attention(%q5, %k1, %v1, %mask) : [B, KV, G, T, Dv]
//   %o  = reshape(%o5) {shape = [B, KV*G, T, Dv]}
//
// The expands and their reshapes must have no other use (they go here);
// the new operands must be what the kernels take (attentionFuses).
#include "ir/attention_layout.h"
#include "ir/builder.h"
#include "passes/graph/passes.h"
#include "passes/graph/pattern_util.h"

namespace mgc {

namespace {

struct Repeat {
  ValueId heads = kNoValue;  // the unrepeated [.., KV, 1, S, D]
  int64_t kv = 0, groups = 0;
  NodeId expand = -1, reshape = -1;  // the copy and its view, read only by the attention
};

class Matcher {
 public:
  explicit Matcher(const Graph& g) : g_(g), uses_(g) {}
  NodeId soleProducer(ValueId v, Op op) const { return uses_.soleProducer(v, op); }

  // t = reshape(expand(h)) repeating each of h's heads G times in place.
  std::optional<Repeat> repeated(ValueId t) const {
    const NodeId r = soleProducer(t, Op::Reshape);
    if (r < 0) return std::nullopt;
    const NodeId e = soleProducer(g_.nodes[size_t(r)].inputs[0], Op::Expand);
    if (e < 0) return std::nullopt;
    const ValueId h = g_.nodes[size_t(e)].inputs[0];
    const Shape &ts = g_.type(t).shape, &es = g_.type(g_.nodes[size_t(e)].outputs[0]).shape, &hs = g_.type(h).shape;
    const size_t L = ts.size();
    if (L < 3 || es.size() != L + 1 || hs.size() != L + 1) return std::nullopt;
    for (size_t a = 0; a + 3 < L; ++a)
      if (es[a] != ts[a] || hs[a] != ts[a]) return std::nullopt;
    const int64_t kv = es[L - 3], groups = es[L - 2];
    if (hs[L - 3] != kv || hs[L - 2] != 1 || kv * groups != ts[L - 3] || groups < 2) return std::nullopt;
    if (hs[L - 1] != ts[L - 2] || hs[L] != ts[L - 1] || es[L - 1] != ts[L - 2] || es[L] != ts[L - 1])
      return std::nullopt;
    return Repeat{h, kv, groups, e, r};
  }

 private:
  const Graph& g_;
  Uses uses_;
};

}  // namespace

void foldRepeatKv(Graph& g) {
  struct Match {
    NodeId node;
    Repeat k, v;
  };
  std::vector<Match> matches;
  {
    const Matcher matcher(g);
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      const Node& a = g.nodes[size_t(n)];
      if (a.op != Op::Attention || attentionTokensMajor(a) != 0) continue;
      const auto k = matcher.repeated(a.inputs[1]), v = matcher.repeated(a.inputs[2]);
      if (!k || !v || k->kv != v->kv || k->groups != v->groups) continue;
      const Shape& q = g.type(a.inputs[0]).shape;
      if (q.size() != g.type(a.inputs[1]).shape.size()) continue;
      matches.push_back({NodeId(n), *k, *v});
    }
  }
  if (matches.empty()) return;
  Splice splice(g);
  for (const Match& m : matches) {
    const Node& a = g.nodes[size_t(m.node)];
    const std::string name = a.name;
    const ValueId q = a.inputs[0];
    const ValueId mask = a.inputs.size() > 3 ? a.inputs[3] : kNoValue;
    Shape q5 = g.type(q).shape;
    const size_t L = q5.size();
    q5[L - 3] = m.k.kv;
    q5.insert(q5.begin() + std::ptrdiff_t(L - 2), m.k.groups);
    TensorType q5t{g.type(q).dtype, q5};
    const TensorType* maskType = mask != kNoValue ? &g.type(mask) : nullptr;
    if (!GraphBuilder::attentionFuses(q5t, g.type(m.k.heads), g.type(m.v.heads), maskType)) continue;
    const Attrs attrs = a.attrs;
    const Shape out = g.type(a.outputs[0]).shape;
    g.addNode(Op::Reshape, name, {q}, {{"shape", std::vector<int64_t>(q5.begin(), q5.end())}});
    std::vector<ValueId> ins = {g.nodes.back().outputs[0], m.k.heads, m.v.heads};
    if (mask != kNoValue) ins.push_back(mask);
    g.addNode(Op::Attention, name, ins, attrs);
    const ValueId o5 = g.nodes.back().outputs[0];
    splice.placeNewBefore(m.node);
    for (NodeId d : {m.k.expand, m.k.reshape, m.v.expand, m.v.reshape}) splice.drop(d);
    Node& at = g.nodes[size_t(m.node)];
    at.op = Op::Reshape;
    at.inputs = {o5};
    at.attrs = {{"shape", std::vector<int64_t>(out.begin(), out.end())}};
  }
  splice.finish();
}

}  // namespace mgc
