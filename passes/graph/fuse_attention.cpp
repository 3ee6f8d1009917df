// fuse-attention: scaled dot-product attention as PyTorch exports it
// (nn.MultiheadAttention, hand-written q kᵀ / sqrt(d) → softmax → · v)
// becomes one attention node (ir/ops.def), so that the scores never reach
// memory (kernels/src/attention_tiled.comp, attention.comp):
//
//   %qs = div(%q, %c8)                               (or mul; or on the scores)
//   %kt = transpose(%k4) {perm = [0, 2, 3, 1]}       (or matmul trans_b)
//   %s  = matmul(%qs, %kt) : f32[1,6,1500,1500]
//   %s2 = add(%s, %mask)                             (optional, mask [.., T, S];
//                                                     or where(%causal, %ninf, %s),
//                                                     %causal constant: a constant mask)
//   %p  = softmax(%s2) {axis = 3}
//   %o  = matmul(%p, %v) : f32[1,6,1500,64]
//     →
//   %k  = transpose(%k4) {perm = [0, 2, 1, 3]}       (the same copy, last axes swapped)
//   %o  = attention(%q, %k, %v, %mask) {scale = 0.125}
//
// Every matched intermediate must have no other use (a training step's
// backward reads the scores and the weights, so its forward stays as it
// is) and the operands must be what the attention kernels take
// (GraphBuilder::attentionFuses: f32, equal ranks, k's leading dims q's or
// 1, a mask [T, S] after dropping leading 1s). Runs before
// fuse-conv-epilogue, which would take the mask's add into the scores'
// matmul.
#include <cmath>
#include <memory>
#include <optional>

#include "ir/builder.h"
#include "ir/matmul.h"
#include "passes/graph/passes.h"
#include "passes/graph/pattern_util.h"

namespace mgc {

namespace {

struct Match {
  NodeId product = -1;
  ValueId q = kNoValue, k = kNoValue, v = kNoValue, mask = kNoValue;
  NodeId scores = -1;        // the product q kᵀ
  std::vector<NodeId> dead;  // it, the scales, the mask's add, the softmax
  double scale = 1.0;
  NodeId keyTranspose = -1;  // a transpose of k whose perm gets its last two entries swapped
  bool transposeKeys = false;  // no such transpose: a new one on kᵀ
  bool reshapeMask = false;    // the mask has leading 1s: a reshape to [T, S]
  // A masked_fill (where(cond, c, s) or where(cond, s, c), cond constant):
  // the additive mask [T, S] it stands for, c where the fill applies, else 0.
  std::shared_ptr<HostTensor> fillMask;
};

class Matcher {
 public:
  explicit Matcher(const Graph& g) : g_(g), uses_(g) {}

  // v's producer if it is `op` and v is read only once, else -1.
  NodeId soleProducer(ValueId v, Op op) const { return uses_.soleProducer(v, op); }

  // The factor of a mul / div of v by a scalar f32 constant (read once):
  // its other operand in *x, the node in *node.
  std::optional<double> scalarFactor(ValueId v, ValueId* x, NodeId* node) const {
    for (Op op : {Op::Mul, Op::Div}) {
      const NodeId p = soleProducer(v, op);
      if (p < 0) continue;
      const Node& n = g_.nodes[size_t(p)];
      for (size_t side = 0; side < 2; ++side) {
        if (op == Op::Div && side == 0) continue;  // c / x is no scaling
        const std::optional<double> c = scalarF32(g_, n.inputs[side]);
        if (!c || !std::isfinite(*c) || *c == 0.0) continue;
        const double f = *c;
        *x = n.inputs[1 - side];
        *node = p;
        if (g_.type(*x).shape != g_.type(v).shape) return std::nullopt;
        return op == Op::Div ? 1.0 / f : f;
      }
    }
    return std::nullopt;
  }

  static bool plainMatMul(const Node& n) {
    return n.inputs.size() == 2 && !n.has("epilogue") && !n.has("precision") && !n.has("rms_eps") &&
           !n.has("swiglu") && !matmulLayout(n).transA;
  }

  // The scores' product behind s (through a scale), noted in m.
  NodeId scoresOf(ValueId s, Match& m) const {
    ValueId unscaled = kNoValue;
    NodeId scaleNode = -1;
    double scale = 1.0;
    if (auto f = scalarFactor(s, &unscaled, &scaleNode)) {
      scale = *f;
      s = unscaled;
    }
    const NodeId qk = soleProducer(s, Op::MatMul);
    if (qk < 0 || !plainMatMul(g_.nodes[size_t(qk)])) return -1;
    m.scale *= scale;
    if (scaleNode >= 0) m.dead.push_back(scaleNode);
    m.dead.push_back(qk);
    return qk;
  }

  std::optional<Match> match(NodeId o) const {
    const Node& pv = g_.nodes[size_t(o)];
    if (pv.op != Op::MatMul || !plainMatMul(pv) || matmulLayout(pv).transB) return std::nullopt;
    Match m;
    m.product = o;
    m.v = pv.inputs[1];
    const NodeId softmax = soleProducer(pv.inputs[0], Op::Softmax);
    if (softmax < 0) return std::nullopt;
    const Node& sm = g_.nodes[size_t(softmax)];
    const int64_t rank = g_.type(sm.inputs[0]).rank();
    if (rank < 2 || (sm.i("axis", -1) != -1 && sm.i("axis", -1) != rank - 1)) return std::nullopt;
    m.dead.push_back(softmax);
    // The scores, the scores plus an additive mask (either side), or the
    // scores filled with a constant where a constant condition says.
    NodeId scores = -1;
    if (const NodeId where = soleProducer(sm.inputs[0], Op::Where); where >= 0) {
      const Node& w = g_.nodes[size_t(where)];
      for (size_t side = 1; side < 3 && scores < 0; ++side) {
        const Value& cond = g_.value(w.inputs[0]);
        const std::optional<double> fill = scalarF32(g_, w.inputs[3 - side]);
        if (!cond.isConstant() || !fill) continue;
        const TensorType& st = g_.type(w.inputs[side]);
        if (st.rank() < 2 || cond.type.rank() > st.rank()) continue;
        Match tried = m;
        scores = scoresOf(w.inputs[side], tried);
        if (scores < 0) continue;
        // cond broadcast to [T, S] (leading 1s only).
        const int64_t T = st.shape[size_t(st.rank() - 2)], S = st.shape[size_t(st.rank() - 1)];
        Shape cs = cond.type.shape;
        while (cs.size() > 2 && cs[0] == 1) cs.erase(cs.begin());
        while (cs.size() < 2) cs.insert(cs.begin(), 1);
        if (cs.size() != 2 || (cs[0] != T && cs[0] != 1) || (cs[1] != S && cs[1] != 1)) {
          scores = -1;
          continue;
        }
        auto mask = std::make_shared<HostTensor>(TensorType{DType::F32, {T, S}});
        const double c = *fill;
        for (int64_t t = 0; t < T; ++t)
          for (int64_t j = 0; j < S; ++j) {
            const bool on = cond.constant->getF((cs[0] == 1 ? 0 : t) * cs[1] + (cs[1] == 1 ? 0 : j)) != 0.0;
            mask->setF(t * S + j, on == (side == 2) ? c : 0.0);  // side 2: the scores where cond is false
          }
        m = tried;
        m.fillMask = mask;
        m.dead.push_back(where);
      }
      if (scores < 0) return std::nullopt;
    } else if (const NodeId add = soleProducer(sm.inputs[0], Op::Add); add >= 0) {
      const Node& a = g_.nodes[size_t(add)];
      for (size_t side = 0; side < 2 && scores < 0; ++side) {
        Match tried = m;
        scores = scoresOf(a.inputs[side], tried);
        if (scores >= 0) {
          m = tried;
          m.mask = a.inputs[1 - side];
          m.dead.push_back(add);
        }
      }
    } else {
      scores = scoresOf(sm.inputs[0], m);
    }
    if (scores < 0) return std::nullopt;
    m.scores = scores;
    const Node& qk = g_.nodes[size_t(scores)];
    m.q = qk.inputs[0];
    ValueId unscaled = kNoValue;
    NodeId scaleNode = -1;
    if (auto f = scalarFactor(m.q, &unscaled, &scaleNode)) {
      m.scale *= *f;
      m.q = unscaled;
      m.dead.push_back(scaleNode);
    }
    // k [.., S, D]: the stored operand of a trans_b product, the input of
    // a transpose whose perm ends swapped, or a new transpose.
    const ValueId kt = qk.inputs[1];
    TensorType kType = g_.type(kt);
    if (kType.rank() < 2) return std::nullopt;
    if (matmulLayout(qk).transB) {
      m.k = kt;
    } else {
      std::swap(kType.shape[size_t(kType.rank() - 1)], kType.shape[size_t(kType.rank() - 2)]);
      m.keyTranspose = soleProducer(kt, Op::Transpose);
      m.transposeKeys = m.keyTranspose < 0;
    }
    // Operands the attention kernels take.
    const TensorType &q = g_.type(m.q), &v = g_.type(m.v);
    TensorType maskType;
    if (m.fillMask) maskType = m.fillMask->type;
    if (m.mask != kNoValue) {
      maskType = g_.type(m.mask);
      while (maskType.rank() > 2 && maskType.shape[0] == 1) maskType.shape.erase(maskType.shape.begin());
      m.reshapeMask = maskType.shape != g_.type(m.mask).shape;
    }
    const bool masked = m.mask != kNoValue || m.fillMask;
    if (!GraphBuilder::attentionFuses(q, kType, v, masked ? &maskType : nullptr)) return std::nullopt;
    if (g_.type(pv.outputs[0]).shape.size() != q.shape.size()) return std::nullopt;
    return m;
  }

 private:
  const Graph& g_;
  Uses uses_;
};

std::vector<int64_t> swapLastTwo(std::vector<int64_t> v) {
  std::swap(v[v.size() - 1], v[v.size() - 2]);
  return v;
}

}  // namespace

void fuseAttention(Graph& g) {
  std::vector<Match> matches;
  {
    const Matcher matcher(g);
    for (size_t o = 0; o < g.nodes.size(); ++o)
      if (auto m = matcher.match(NodeId(o))) matches.push_back(*m);
  }
  if (matches.empty()) return;
  // Each product becomes the attention in place (its output keeps its id);
  // the views it needs go just before it; the scores, scale, mask add and
  // softmax lose their last use and go.
  Splice splice(g);
  for (Match& m : matches) {
    const std::string name = g.nodes[size_t(m.product)].name;
    for (NodeId d : m.dead) splice.drop(d);
    if (m.keyTranspose >= 0) {
      Node& t = g.nodes[size_t(m.keyTranspose)];
      t.attrs["perm"] = swapLastTwo(t.ints("perm"));
      TensorType& kt = g.value(t.outputs[0]).type;
      kt.shape = swapLastTwo(kt.shape);
      m.k = t.outputs[0];
    }
    if (m.transposeKeys) {
      const ValueId kt = g.nodes[size_t(m.scores)].inputs[1];
      std::vector<int64_t> perm;
      for (int64_t a = 0; a < g.type(kt).rank(); ++a) perm.push_back(a);
      g.addNode(Op::Transpose, name, {kt}, {{"perm", swapLastTwo(perm)}});
      m.k = g.nodes.back().outputs[0];
    }
    if (m.fillMask) m.mask = g.addConstant(g.uniqueName(name + ".mask"), std::move(*m.fillMask));
    if (m.reshapeMask) {
      const Shape& ms = g.type(m.mask).shape;
      g.addNode(Op::Reshape, name, {m.mask}, {{"shape", std::vector<int64_t>(ms.end() - 2, ms.end())}});
      m.mask = g.nodes.back().outputs[0];
    }
    splice.placeNewBefore(m.product);
    Node& at = g.nodes[size_t(m.product)];
    at.op = Op::Attention;
    at.inputs = {m.q, m.k, m.v};
    if (m.mask != kNoValue) at.inputs.push_back(m.mask);
    at.attrs = {{"scale", m.scale}};
  }
  splice.finish();
}

}  // namespace mgc
