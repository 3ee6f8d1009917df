// fuse-rotary: rotate-half RoPE as PyTorch exports it (Hugging Face Llama's
// apply_rotary_pos_emb) becomes one rotary node (ir/ops.def; kernels/src/
// rotary.comp), one dispatch where the export costs six (two slices, a
// negation, a two-part concat, the fused multiply-add):
//
//   %a  = mul(%x, %cos)                                  (either order)
//   %hi = slice(%x) {last axis [D/2, D)}
//   %n  = neg(%hi)
//   %lo = slice(%x) {last axis [0, D/2)}
//   %c  = concat(%n, %lo) {axis = last}
//   %b  = mul(%c, %sin)                                  (either order)
//   %y  = add(%a, %b)                                    (either order)
//     →
//   %y  = rotary(%x, %cos', %sin')
//
// When x is the heads-major view of [.., T, H, D] (transpose of its two
// axes before the last, as exports split q and k into heads) and nothing
// else reads it, the rotary reads the stored tensor instead
// (`tokens_major = 1`) and that copy goes too. cos' is cos viewed as [T, D] (x [..., T, D]; cos [T, D] or with
// leading 1s) and sin' is sin with its first half negated (a constant
// when sin is one, else a mul by a constant ±1 row). Every intermediate
// must have no other use; x, f32, rank >= 2, D even. In a training graph
// the backward already holds its own ops (autodiff ran before), and the
// forward's intermediates have no other use only where the backward reads
// none of them.
#include <algorithm>
#include <optional>

#include "passes/graph/passes.h"
#include "passes/graph/pattern_util.h"

namespace mgc {

namespace {

struct Match {
  NodeId add = -1;
  ValueId x = kNoValue, cos = kNoValue, sin = kNoValue;
  NodeId headTranspose = -1;  // x = transpose(y) of its token and head axes, read by nothing else
  std::vector<NodeId> dead;
};

class Matcher {
 public:
  explicit Matcher(const Graph& g) : g_(g), uses_(g) {}
  NodeId soleProducer(ValueId v, Op op) const { return uses_.soleProducer(v, op); }

  // s = slice(x) along x's last axis over [from, to), the rest whole.
  bool lastAxisSlice(const Node& s, ValueId x, int64_t from, int64_t to) const {
    if (s.inputs[0] != x) return false;
    const Shape& xs = g_.type(x).shape;
    const std::vector<int64_t> st = s.ints("starts"), en = s.ints("ends"), sp = s.ints("steps");
    if (st.size() != xs.size() || en.size() != xs.size() || sp.size() != xs.size()) return false;
    for (size_t a = 0; a < xs.size(); ++a) {
      const bool last = a + 1 == xs.size();
      const int64_t lo = last ? from : 0, hi = last ? to : xs[a];
      if (sp[a] != 1 || st[a] != lo || std::min(en[a], xs[a]) != hi) return false;
    }
    return true;
  }

  // cos / sin: [T, D], or [..., T, D] with leading 1s.
  bool rowsOf(ValueId t, const TensorType& x) const {
    const TensorType& tt = g_.type(t);
    if (tt.dtype != DType::F32 || tt.rank() < 2 || tt.rank() > x.rank()) return false;
    for (size_t a = 0; a + 2 < tt.shape.size(); ++a)
      if (tt.shape[a] != 1) return false;
    return tt.shape[tt.shape.size() - 2] == x.shape[x.shape.size() - 2] && tt.shape.back() == x.shape.back();
  }

  std::optional<Match> match(NodeId a) const {
    const Node& add = g_.nodes[size_t(a)];
    if (add.op != Op::Add || add.inputs.size() != 2) return std::nullopt;
    for (size_t side = 0; side < 2; ++side) {
      const NodeId m1 = soleProducer(add.inputs[side], Op::Mul), m2 = soleProducer(add.inputs[1 - side], Op::Mul);
      if (m1 < 0 || m2 < 0) continue;
      // m2 = mul(concat(neg(x[D/2:]), x[:D/2]), sin), either order.
      for (size_t cs = 0; cs < 2; ++cs) {
        const Node& mul2 = g_.nodes[size_t(m2)];
        const NodeId cat = soleProducer(mul2.inputs[cs], Op::Concat);
        if (cat < 0) continue;
        const Node& c = g_.nodes[size_t(cat)];
        if (c.inputs.size() != 2) continue;
        const NodeId neg = soleProducer(c.inputs[0], Op::Neg), lo = soleProducer(c.inputs[1], Op::Slice);
        if (neg < 0 || lo < 0) continue;
        const NodeId hi = soleProducer(g_.nodes[size_t(neg)].inputs[0], Op::Slice);
        if (hi < 0) continue;
        const ValueId x = g_.nodes[size_t(hi)].inputs[0];
        const TensorType& xt = g_.type(x);
        if (xt.dtype != DType::F32 || xt.rank() < 2 || xt.shape.back() % 2 != 0 || xt.shape.back() == 0) continue;
        const int64_t D = xt.shape.back(), rank = xt.rank();
        if (c.i("axis", -1) != rank - 1 && c.i("axis", -1) != -1) continue;
        if (!lastAxisSlice(g_.nodes[size_t(hi)], x, D / 2, D) || !lastAxisSlice(g_.nodes[size_t(lo)], x, 0, D / 2))
          continue;
        // m1 = mul(x, cos), either order.
        const Node& mul1 = g_.nodes[size_t(m1)];
        const size_t xs = mul1.inputs[0] == x ? 0 : mul1.inputs[1] == x ? 1 : 2;
        if (xs == 2) continue;
        Match m;
        m.add = a;
        m.x = x;
        m.cos = mul1.inputs[1 - xs];
        m.sin = mul2.inputs[1 - cs];
        if (!rowsOf(m.cos, xt) || !rowsOf(m.sin, xt)) continue;
        if (g_.type(add.outputs[0]).shape != xt.shape) continue;
        m.dead = {m1, m2, cat, neg, lo, hi};
        // x the heads-major view [.., H, T, D] of [.., T, H, D] (as q and k
        // are split into heads), read only by the pattern: the rotary reads
        // the stored tensor (tokens_major), and the copy goes.
        if (const NodeId t = g_.value(x).producer;
            rank >= 3 && t >= 0 && g_.nodes[size_t(t)].op == Op::Transpose && uses_.count(x) == 3 &&
            !uses_.isOutput(x)) {
          std::vector<int64_t> swap;
          for (int64_t a = 0; a < rank; ++a) swap.push_back(a);
          std::swap(swap[size_t(rank - 3)], swap[size_t(rank - 2)]);
          if (g_.nodes[size_t(t)].ints("perm") == swap) {
            m.headTranspose = t;
            m.dead.push_back(t);
          }
        }
        return m;
      }
    }
    return std::nullopt;
  }

 private:
  const Graph& g_;
  Uses uses_;
};

}  // namespace

void fuseRotary(Graph& g) {
  std::vector<Match> matches;
  {
    const Matcher matcher(g);
    for (size_t n = 0; n < g.nodes.size(); ++n)
      if (auto m = matcher.match(NodeId(n))) matches.push_back(*m);
  }
  if (matches.empty()) return;
  // Each add becomes the rotary in place (its output keeps its id); the
  // [T, D] views and the signed sine go just before it; the slices, neg,
  // concat and muls lose their last use and are dropped here.
  Splice splice(g);
  for (Match& m : matches) {
    const std::string name = g.nodes[size_t(m.add)].name;
    for (NodeId d : m.dead) splice.drop(d);
    const Shape& xs = g.type(m.x).shape;
    const int64_t T = xs[xs.size() - 2], D = xs.back();
    auto rows = [&](ValueId t) {
      if (g.type(t).rank() == 2) return t;
      g.addNode(Op::Reshape, name, {t}, {{"shape", std::vector<int64_t>{T, D}}});
      return g.nodes.back().outputs[0];
    };
    const ValueId cos = rows(m.cos);
    ValueId sin = m.sin;
    if (const Value& sv = g.value(m.sin); sv.isConstant()) {
      HostTensor signedSin(TensorType{DType::F32, {T, D}});
      for (int64_t i = 0; i < T * D; ++i) signedSin.setF(i, (i % D < D / 2 ? -1.0 : 1.0) * sv.constant->getF(i));
      sin = g.addConstant(g.uniqueName(name + ".signed_sin"), std::move(signedSin));
    } else {
      HostTensor sign(TensorType{DType::F32, {D}});
      for (int64_t i = 0; i < D; ++i) sign.setF(i, i < D / 2 ? -1.0 : 1.0);
      const ValueId s = g.addConstant(g.uniqueName(name + ".sign"), std::move(sign));
      sin = rows(sin);
      g.addNode(Op::Mul, name, {sin, s});
      sin = g.nodes.back().outputs[0];
    }
    splice.placeNewBefore(m.add);
    Node& at = g.nodes[size_t(m.add)];
    at.op = Op::Rotary;
    at.attrs.clear();
    if (m.headTranspose >= 0) {
      at.inputs = {g.nodes[size_t(m.headTranspose)].inputs[0], cos, sin};
      at.attrs["tokens_major"] = int64_t(1);
    } else {
      at.inputs = {m.x, cos, sin};
    }
  }
  splice.finish();
}

}  // namespace mgc
