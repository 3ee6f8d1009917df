// fuse-attention-cache: a decoder layer's RoPE, KV-cache writes and
// attention (as compiler/hf/llama.cpp builds them, after fuse-state-write)
// become one attention_cache node (ir/ops.def), one dispatch: the kernel
// rotates q as it loads it, takes the chunk's keys and values from k / v
// rather than from the cache, and writes them into the cache in place. The
// level of rotary + two state writes between the q/k/v products and the
// attention disappears: one barrier fewer per layer.
//
//   %qr = rotary(%q, %cos, %sin) : f32[1,4,1,16]
//   %k1 = state_write(%kc, %k, %pos, %cos, %sin) {axis = 2} : f32[1,2,64,16]
//   %v1 = state_write(%vc, %v, %pos) {axis = 2} : f32[1,2,64,16]
//   %q5 = reshape(%qr) {shape = [1, 2, 2, 1, 16]}
//   %k5 = reshape(%k1) {shape = [1, 2, 1, 64, 16]}
//   %v5 = reshape(%v1) {shape = [1, 2, 1, 64, 16]}
//   %o = attention(%q5, %k5, %v5, %mask) {scale = 0.25} : f32[1,2,2,1,16]
//   update %kc = %k1
//   update %vc = %v1
//     →
//   %o.1, %k1, %v1 = attention_cache(%q, %k, %v, %kc, %vc, %pos, %cos, %sin, %mask) {scale = 0.25}
//   %o = reshape(%o.1) {shape = [1, 2, 2, 1, 16]}
//
// The GQA views (q [B, KV, G, T, D] against k / v [B, KV, 1, S, *]) or, with
// as many K/V heads as query heads, none. Every matched intermediate must
// have no other use; anything else (no rotary on q, a v rotated, other
// readers of the written cache, head dims past the kernel's) stays as it
// is. Runs after fuse-state-write, which puts the keys' rotary into their
// state_write.
#include <optional>

#include "ir/attention_layout.h"
#include "ir/builder.h"
#include "passes/graph/passes.h"
#include "passes/graph/pattern_util.h"

namespace mgc {

namespace {

struct Match {
  NodeId attention, rotary, keyWrite, valueWrite;
  std::vector<NodeId> views;  // the reshapes between them and the attention
};

class Matcher {
 public:
  explicit Matcher(const Graph& g) : g_(g), uses_(g) {}

  // The value a reshape view of v reads (v when v is no view), the view
  // noted in m; the view must be read by nothing else.
  ValueId throughView(ValueId v, Match& m) const {
    const NodeId p = g_.value(v).producer;
    if (p < 0 || g_.nodes[size_t(p)].op != Op::Reshape || uses_.count(v) != 1 || uses_.isOutput(v)) return v;
    m.views.push_back(p);
    return g_.nodes[size_t(p)].inputs[0];
  }

  // v's producer if it is `op` and v is read once (plus, for a state's new
  // value, by its update), else -1.
  NodeId producer(ValueId v, Op op, int extraUses) const { return uses_.soleProducer(v, op, extraUses); }

  std::optional<Match> match(NodeId a) const {
    const Node& at = g_.nodes[size_t(a)];
    if (at.op != Op::Attention || at.inputs.size() < 3 || attentionTokensMajor(at) != 0) return std::nullopt;
    Match m{a, -1, -1, -1, {}};
    const ValueId qr = throughView(at.inputs[0], m), k1 = throughView(at.inputs[1], m),
                  v1 = throughView(at.inputs[2], m);
    m.rotary = producer(qr, Op::Rotary, 0);
    m.keyWrite = producer(k1, Op::StateWrite, 1);
    m.valueWrite = producer(v1, Op::StateWrite, 1);
    if (m.rotary < 0 || m.keyWrite < 0 || m.valueWrite < 0) return std::nullopt;
    if (g_.nodes[size_t(m.rotary)].i("tokens_major", 0)) return std::nullopt;
    const Node &r = g_.nodes[size_t(m.rotary)], &kw = g_.nodes[size_t(m.keyWrite)],
               &vw = g_.nodes[size_t(m.valueWrite)];
    // Keys rotated with q's tables, values not, both at one offset along the rows.
    if (kw.inputs.size() != 5 || vw.inputs.size() != 3 || kw.inputs[3] != r.inputs[1] || kw.inputs[4] != r.inputs[2] ||
        kw.inputs[2] != vw.inputs[2] || kw.inputs[0] == vw.inputs[0])
      return std::nullopt;
    const TensorType &q = g_.type(qr), &kc = g_.type(k1), &vc = g_.type(v1);
    if (q.rank() != 4 || kc.rank() != 4 || vc.rank() != 4 || q.dtype != DType::F32) return std::nullopt;
    for (const Node* w : {&kw, &vw})
      if (w->i("axis", 0) != 2 && w->i("axis", 0) != -2) return std::nullopt;
    const int64_t B = q.shape[0], H = q.shape[1], T = q.shape[2], D = q.shape[3], KV = kc.shape[1], S = kc.shape[2],
                  Dv = vc.shape[3];
    if (KV < 1 || H % KV != 0 || kc.shape != Shape{B, KV, S, D} || vc.shape != Shape{B, KV, S, Dv} ||
        g_.type(kw.inputs[1]).shape != Shape{B, KV, T, D} || g_.type(vw.inputs[1]).shape != Shape{B, KV, T, Dv})
      return std::nullopt;
    if (D > GraphBuilder::kAttentionMaxHeadDim || Dv > GraphBuilder::kAttentionMaxHeadDim || Dv < 1) return std::nullopt;
    // The attention's operands are the GQA views of ops.def, or no views at all.
    const Shape &q5 = g_.type(at.inputs[0]).shape, &k5 = g_.type(at.inputs[1]).shape,
                &v5 = g_.type(at.inputs[2]).shape;
    const bool grouped = q5 == Shape{B, KV, H / KV, T, D} && k5 == Shape{B, KV, 1, S, D} && v5 == Shape{B, KV, 1, S, Dv};
    const bool plain = KV == H && q5 == q.shape && k5 == kc.shape && v5 == vc.shape;
    if (!grouped && !plain) return std::nullopt;
    return m;
  }

 private:
  const Graph& g_;
  Uses uses_;
};

}  // namespace

void fuseAttentionCache(Graph& g) {
  std::vector<Match> matches;
  {
    const Matcher matcher(g);
    for (size_t a = 0; a < g.nodes.size(); ++a)
      if (auto m = matcher.match(NodeId(a))) matches.push_back(*m);
  }
  if (matches.empty()) return;
  // Each attention's place in the node order gets its replacement; the
  // matched nodes go (the cache values k1 / v1 keep their ids and names,
  // now attention_cache's results, so their updates stay as they are).
  std::vector<bool> erase(g.nodes.size(), false);
  std::vector<std::vector<Node>> replacement(g.nodes.size());
  const size_t oldCount = g.nodes.size();
  for (const Match& m : matches) {
    // Copies: adding nodes below may move g.nodes.
    const Node at = g.nodes[size_t(m.attention)], r = g.nodes[size_t(m.rotary)], kw = g.nodes[size_t(m.keyWrite)],
               vw = g.nodes[size_t(m.valueWrite)];
    std::vector<ValueId> in{r.inputs[0], kw.inputs[1], vw.inputs[1], kw.inputs[0], vw.inputs[0],
                            kw.inputs[2], r.inputs[1],  r.inputs[2]};
    if (at.inputs.size() > 3 && at.inputs[3] != kNoValue) in.push_back(at.inputs[3]);
    const ValueId result = at.outputs[0];
    const TensorType& q = g.type(r.inputs[0]);
    const TensorType out{DType::F32, {q.shape[0], q.shape[1], q.shape[2], g.type(vw.inputs[1]).shape[3]}};
    const bool view = g.type(result).shape != out.shape;
    const ValueId o = view ? g.addValue(g.uniqueName(g.value(result).name), out) : result;
    g.addNodeWithOutputs(Op::AttentionCache, at.name, std::move(in), {o, kw.outputs[0], vw.outputs[0]},
                         {{"scale", at.f("scale", 1.0)}});
    if (view)
      g.addNodeWithOutputs(Op::Reshape, at.name, {o}, {result}, {{"shape", std::vector<int64_t>(g.type(result).shape)}});
    for (NodeId k : {m.attention, m.rotary, m.keyWrite, m.valueWrite}) erase[size_t(k)] = true;
    for (NodeId k : m.views) erase[size_t(k)] = true;
    for (size_t k = oldCount; k < g.nodes.size(); ++k) replacement[size_t(m.attention)].push_back(std::move(g.nodes[k]));
    g.nodes.resize(oldCount);
  }
  std::vector<Node> nodes;
  for (size_t k = 0; k < oldCount; ++k) {
    if (!erase[k]) nodes.push_back(std::move(g.nodes[k]));
    for (Node& n : replacement[k]) nodes.push_back(std::move(n));
  }
  g.nodes = std::move(nodes);
  g.rebuildProducers();
}

}  // namespace mgc
