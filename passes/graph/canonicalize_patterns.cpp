// canonicalize-patterns: multi-node spellings that exporters emit for ops the
// IR has as one node, folded back into that node (one dispatch instead of
// five to nine). Each rule matches from the pattern's last node backwards,
// requires every inner value to have a single use (the shared `%d` of
// LayerNorm excepted, which the pattern itself uses twice) and not be a graph
// output, and then rewrites the last node in place into the fused op writing
// the same value; the inner nodes are left unused and removed at the end.
#include <algorithm>
#include <cmath>
#include <optional>

#include "passes/graph/canonicalize_util.h"
#include "passes/graph/passes.h"

namespace mgc {

namespace {

using canon::Rewriter;

// A scalar float constant (one element) close to `v`.
bool isScalarConst(Rewriter& r, ValueId id, double v) {
  const HostTensor* c = r.constantOf(id);
  if (!c || c->numel() != 1 || !isFloat(c->type.dtype) || c->data.size() != c->type.bytes()) return false;
  double x = c->getF(0);
  return std::fabs(x - v) <= 1e-6 * std::max(1.0, std::fabs(v));
}

// The value of a scalar float constant, if `id` is one.
std::optional<double> scalarConst(Rewriter& r, ValueId id) {
  const HostTensor* c = r.constantOf(id);
  if (!c || c->numel() != 1 || !isFloat(c->type.dtype) || c->data.size() != c->type.bytes()) return std::nullopt;
  return c->getF(0);
}

// The producer of `v` if it is an `op` node whose output is used once and is
// not a graph output (so the pattern may swallow it).
const Node* innerProducer(Rewriter& r, ValueId v, Op op, int allowedUses = 1) {
  const Node* p = r.producerOf(v);
  if (!p || p->op != op || r.uses(v) != allowedUses || r.isGraphOutput(v)) return nullptr;
  return p;
}

// For a binary node, the operand that is not `v` (or kNoValue when both are).
ValueId otherOperand(const Node& n, ValueId v) {
  if (n.inputs[0] == v) return n.inputs[1] == v ? kNoValue : n.inputs[1];
  return n.inputs[1] == v ? n.inputs[0] : kNoValue;
}

Shape dropLeadingOnes(Shape s) {
  while (!s.empty() && s.front() == 1) s.erase(s.begin());
  return s;
}

// A constant that can be LayerNorm's scale/bias over the trailing `norm`
// shape: same elements, broadcasting only along leading axes.
bool fitsNormParam(Rewriter& r, ValueId id, const Shape& norm, const TensorType& out) {
  const HostTensor* c = r.constantOf(id);
  if (!c || c->type.dtype != out.dtype || c->type.rank() > out.rank()) return false;
  return dropLeadingOnes(c->type.shape) == dropLeadingOnes(norm) && c->numel() == numel(norm);
}

// The trailing-axes LayerNorm start axis of a keepdims reduce_mean over
// axes [a, rank), or -1.
int64_t trailingMeanAxis(const Graph& g, const Node& mean) {
  if (mean.i("keepdims", 1) == 0) return -1;
  std::vector<int64_t> axes = mean.ints("axes", {{}});
  int64_t rank = g.type(mean.inputs[0]).rank();
  if (axes.empty() || rank == 0) return -1;
  int64_t first = rank - int64_t(axes.size());
  for (size_t k = 0; k < axes.size(); ++k)
    if (axes[k] != first + int64_t(k)) return -1;
  return first;
}

// torch.nn.LayerNorm as exported below opset 17:
//   %m = reduce_mean(%x) {axes = [A..r-1], keepdims = 1}
//   %d = sub(%x, %m)
//   %p = pow(%d, 2.0)                       (or mul(%d, %d))
//   %v = reduce_mean(%p) {same axes, keepdims = 1}
//   %a = add(%v, eps)                       (eps: a scalar constant, either side)
//   %s = sqrt(%a)
//   %n = div(%d, %s)
//   [%y = mul(%n, %scale)]  [%z = add(%y, %bias)]   (constants over axes A..)
// →
//   %z = layer_norm(%x, %scale or ones, [%bias]) {axis = A, epsilon = eps}
// Scale 1 and bias 0 have usually been removed by canonicalize already,
// hence both optional.
bool foldLayerNorm(Rewriter& r, size_t i) {
  Graph& g = r.g;
  const Node& div = g.nodes[i];
  if (div.op != Op::Div) return false;
  const TensorType out = g.type(div.outputs[0]);
  if (!isFloat(out.dtype)) return false;
  const Node* sq = innerProducer(r, div.inputs[1], Op::Sqrt);
  const Node* sub = r.producerOf(div.inputs[0]);  // its uses are checked with the square below
  if (!sq || !sub || sub->op != Op::Sub || r.isGraphOutput(div.inputs[0])) return false;
  const Node* add = innerProducer(r, sq->inputs[0], Op::Add);
  if (!add) return false;
  const Node* var = nullptr;
  std::optional<double> eps;
  for (int side = 0; side < 2 && !var; ++side) {
    eps = scalarConst(r, add->inputs[size_t(1 - side)]);
    if (eps) var = innerProducer(r, add->inputs[size_t(side)], Op::ReduceMean);
  }
  if (!var || *eps < 0) return false;
  const Node* sqr = r.producerOf(var->inputs[0]);
  if (!sqr || r.uses(var->inputs[0]) != 1 || r.isGraphOutput(var->inputs[0])) return false;
  ValueId d = div.inputs[0];
  bool isSquare = (sqr->op == Op::Pow && sqr->inputs[0] == d && isScalarConst(r, sqr->inputs[1], 2.0)) ||
                  (sqr->op == Op::Mul && sqr->inputs[0] == d && sqr->inputs[1] == d);
  if (!isSquare) return false;
  // Mul(d, d) counts d twice: then d has 3 uses, not 2.
  if (sqr->op == Op::Mul && r.uses(d) != 3) return false;
  if (sqr->op == Op::Pow && r.uses(d) != 2) return false;
  const Node* mean = innerProducer(r, sub->inputs[1], Op::ReduceMean);
  ValueId x = sub->inputs[0];
  if (!mean || mean->inputs[0] != x || g.type(x) != out) return false;
  int64_t axis = trailingMeanAxis(g, *mean);
  if (axis < 0 || trailingMeanAxis(g, *var) != axis || var->ints("axes") != mean->ints("axes")) return false;
  if (g.type(var->inputs[0]) != out) return false;
  Shape norm(out.shape.begin() + axis, out.shape.end());

  // Optional affine tail: mul by a scale constant, then add a bias constant.
  size_t last = i;
  ValueId scale = kNoValue, bias = kNoValue, cur = div.outputs[0];
  auto singleUser = [&](ValueId v) -> std::optional<size_t> {
    if (r.uses(v) != 1 || r.isGraphOutput(v)) return std::nullopt;
    for (size_t j = last + 1; j < g.nodes.size(); ++j)
      for (ValueId in : g.nodes[j].inputs)
        if (in == v) return j;
    return std::nullopt;
  };
  if (auto j = singleUser(cur); j && g.nodes[*j].op == Op::Mul && g.type(g.nodes[*j].outputs[0]) == out) {
    ValueId k = otherOperand(g.nodes[*j], cur);
    if (k != kNoValue && fitsNormParam(r, k, norm, out)) {
      scale = k;
      last = *j;
      cur = g.nodes[*j].outputs[0];
    }
  }
  if (auto j = singleUser(cur); j && g.nodes[*j].op == Op::Add && g.type(g.nodes[*j].outputs[0]) == out) {
    ValueId k = otherOperand(g.nodes[*j], cur);
    if (k != kNoValue && fitsNormParam(r, k, norm, out)) {
      bias = k;
      last = *j;
      cur = g.nodes[*j].outputs[0];
    }
  }
  if (scale == kNoValue) {
    HostTensor ones(TensorType{out.dtype, norm});
    for (int64_t e = 0; e < ones.numel(); ++e) ones.setF(e, 1.0);
    scale = g.addConstant(div.name + "_ones", std::move(ones));
  }
  Node ln{Op::LayerNorm, g.nodes[last].name, {x, scale}, {cur}, {}};
  if (bias != kNoValue) ln.inputs.push_back(bias);
  ln.attrs["axis"] = axis;
  ln.attrs["epsilon"] = *eps;
  g.nodes[last] = std::move(ln);  // x, scale and bias are all defined by then
  r.changed();
  return true;
}

// ---- RMSNorm ----

// What an RMS normalizer computes: r = sqrt(mean(x²) + eps) over the
// trailing axes [axis, rank), or sqrt(mean(x²)) + eps (epsilonOutside).
struct RmsRoot {
  ValueId x = kNoValue;
  int64_t axis = -1;
  double epsilon = 0;
  bool epsilonOutside = false;
};

// %q = pow(%x, 2.0) or mul(%x, %x), used once: returns x.
ValueId squareOf(Rewriter& r, ValueId q) {
  const Node* p = r.producerOf(q);
  if (!p || r.uses(q) != 1 || r.isGraphOutput(q)) return kNoValue;
  if (p->op == Op::Pow && isScalarConst(r, p->inputs[1], 2.0)) return p->inputs[0];
  if (p->op == Op::Mul && p->inputs[0] == p->inputs[1]) return p->inputs[0];
  return kNoValue;
}

// mean(x²) over trailing axes, spelled reduce_mean(x²), or reduce_sum(x²)
// times / divided by its element count. Sets root.x and root.axis.
bool meanSquare(Rewriter& r, ValueId s, RmsRoot& root) {
  const Node* p = r.producerOf(s);
  if (!p || r.uses(s) != 1 || r.isGraphOutput(s)) return false;
  if (p->op == Op::ReduceMean) {
    root.x = squareOf(r, p->inputs[0]);
    root.axis = trailingMeanAxis(r.g, *p);
    return root.x != kNoValue && root.axis >= 0;
  }
  return false;
}

// sqrt(mean(x²)) spelled sqrt(reduce_mean(x²)), or sqrt(reduce_sum(x²))
// (x.norm(), ReduceL2) scaled by 1/sqrt(D) (mul) or sqrt(D) (div).
bool rootMeanSquare(Rewriter& r, ValueId v, RmsRoot& root) {
  const Node* p = r.producerOf(v);
  if (!p || r.uses(v) != 1 || r.isGraphOutput(v)) return false;
  if (p->op == Op::Sqrt) return meanSquare(r, p->inputs[0], root);
  if (p->op != Op::Mul && p->op != Op::Div) return false;
  for (int side = 0; side < (p->op == Op::Mul ? 2 : 1); ++side) {
    auto c = scalarConst(r, p->inputs[size_t(1 - side)]);
    const Node* sq = innerProducer(r, p->inputs[size_t(side)], Op::Sqrt);
    if (!c || !sq) continue;
    const Node* sum = innerProducer(r, sq->inputs[0], Op::ReduceSum);
    if (!sum) continue;
    int64_t axis = trailingMeanAxis(r.g, *sum);
    ValueId x = squareOf(r, sum->inputs[0]);
    if (axis < 0 || x == kNoValue) continue;
    const Shape& xs = r.g.type(x).shape;
    int64_t count = 1;
    for (size_t k = size_t(axis); k < xs.size(); ++k) count *= xs[k];
    double want = p->op == Op::Mul ? 1.0 / std::sqrt(double(count)) : std::sqrt(double(count));
    if (std::fabs(*c - want) > 1e-6 * want) continue;
    root.x = x;
    root.axis = axis;
    return true;
  }
  return false;
}

// r: sqrt(add(mean(x²), eps)) or add(sqrt(mean(x²)), eps), eps a scalar
// constant on either side of the add.
bool rmsRoot(Rewriter& r, ValueId v, RmsRoot& root) {
  const Node* p = r.producerOf(v);
  if (!p || r.uses(v) != 1 || r.isGraphOutput(v)) return false;
  bool inside = p->op == Op::Sqrt;
  const Node* add = inside ? innerProducer(r, p->inputs[0], Op::Add) : p->op == Op::Add ? p : nullptr;
  if (!add) return false;
  for (int side = 0; side < 2; ++side) {
    auto eps = scalarConst(r, add->inputs[size_t(1 - side)]);
    if (!eps || *eps < 0) continue;
    RmsRoot got;
    if (inside ? meanSquare(r, add->inputs[size_t(side)], got) : rootMeanSquare(r, add->inputs[size_t(side)], got)) {
      root = got;
      root.epsilon = *eps;
      root.epsilonOutside = !inside;
      return true;
    }
  }
  return false;
}

// 1 / r spelled reciprocal(r) or div(1.0, r).
bool inverseRmsRoot(Rewriter& r, ValueId v, RmsRoot& root) {
  const Node* p = r.producerOf(v);
  if (!p || r.uses(v) != 1 || r.isGraphOutput(v)) return false;
  if (p->op == Op::Reciprocal) return rmsRoot(r, p->inputs[0], root);
  if (p->op == Op::Div && isScalarConst(r, p->inputs[0], 1.0)) return rmsRoot(r, p->inputs[1], root);
  return false;
}

// RMSNorm (Llama's, T5's, ...) as PyTorch exports its spellings:
//   x * rsqrt(mean(x²) + eps)          mul(x, div(1, sqrt(add(reduce_mean(pow(x, 2)), eps))))
//   x / sqrt(mean(x²) + eps)           div(x, sqrt(add(reduce_mean(mul(x, x)), eps)))
//   x / (x.norm(dim) * D^-0.5 + eps)   div(x, add(mul(sqrt(reduce_sum(mul(x, x))), D^-0.5), eps))
// each times a scale constant over the normalized axes, before or after the
// division (either side of the mul), or without one:
// →
//   %y = rms_norm(%x, %scale or ones) {axis, epsilon, epsilon_outside}
bool foldRMSNorm(Rewriter& r, size_t i) {
  Graph& g = r.g;
  const Node& last = g.nodes[i];
  if (last.op != Op::Div && last.op != Op::Mul) return false;
  const TensorType out = g.type(last.outputs[0]);
  if (!isFloat(out.dtype)) return false;
  RmsRoot root;
  ValueId num = kNoValue;
  if (last.op == Op::Div) {
    if (rmsRoot(r, last.inputs[1], root)) num = last.inputs[0];
  } else {
    for (int side = 0; side < 2 && num == kNoValue; ++side)
      if (inverseRmsRoot(r, last.inputs[size_t(1 - side)], root)) num = last.inputs[size_t(side)];
  }
  if (num == kNoValue || g.type(root.x) != out) return false;
  Shape norm(out.shape.begin() + root.axis, out.shape.end());
  // The numerator: x, or x times the scale (the scale-first spelling).
  ValueId scale = kNoValue;
  if (num != root.x) {
    const Node* m = innerProducer(r, num, Op::Mul);
    ValueId k = m ? otherOperand(*m, root.x) : kNoValue;
    if (k == kNoValue || !fitsNormParam(r, k, norm, out)) return false;
    scale = k;
  }
  // A scale after the division.
  size_t at = i;
  ValueId cur = last.outputs[0];
  if (scale == kNoValue && r.uses(cur) == 1 && !r.isGraphOutput(cur)) {
    for (size_t j = i + 1; j < g.nodes.size(); ++j) {
      const Node& m = g.nodes[j];
      if (std::find(m.inputs.begin(), m.inputs.end(), cur) == m.inputs.end()) continue;
      ValueId k = m.op == Op::Mul && g.type(m.outputs[0]) == out ? otherOperand(m, cur) : kNoValue;
      if (k != kNoValue && fitsNormParam(r, k, norm, out)) {
        scale = k;
        at = j;
        cur = m.outputs[0];
      }
      break;
    }
  }
  if (scale == kNoValue) {
    HostTensor ones(TensorType{out.dtype, norm});
    for (int64_t e = 0; e < ones.numel(); ++e) ones.setF(e, 1.0);
    scale = g.addConstant(last.name + "_ones", std::move(ones));
  }
  Node rms{Op::RMSNorm, g.nodes[at].name, {root.x, scale}, {cur}, {}};
  rms.attrs["axis"] = root.axis;
  rms.attrs["epsilon"] = root.epsilon;
  if (root.epsilonOutside) rms.attrs["epsilon_outside"] = int64_t(1);
  g.nodes[at] = std::move(rms);
  r.changed();
  return true;
}

// LayerNorm spelled as an RMSNorm of the centered values (the ONNX
// importer's InstanceNormalization, GroupNorm as exported: x - mean, then
// times rsqrt(mean(d²) + eps), which foldRMSNorm takes first):
//   %m = reduce_mean(%x) {axes = [A..r-1], keepdims = 1}
//   %d = sub(%x, %m)
//   %y = rms_norm(%d, %scale) {axis = A, epsilon}
// →
//   %y = layer_norm(%x, %scale) {axis = A, epsilon}
bool foldCenteredRMSNorm(Rewriter& r, size_t i) {
  Graph& g = r.g;
  const Node& rms = g.nodes[i];
  if (rms.op != Op::RMSNorm || rms.i("epsilon_outside", 0) != 0) return false;
  const Node* sub = innerProducer(r, rms.inputs[0], Op::Sub);
  if (!sub) return false;
  const Node* mean = innerProducer(r, sub->inputs[1], Op::ReduceMean);
  ValueId x = sub->inputs[0];
  if (!mean || mean->inputs[0] != x || g.type(x) != g.type(rms.outputs[0])) return false;
  const int64_t rank = g.type(x).rank(), axis = rms.i("axis", -1) < 0 ? rms.i("axis", -1) + rank : rms.i("axis", -1);
  if (trailingMeanAxis(g, *mean) != axis) return false;
  Node ln{Op::LayerNorm, rms.name, {x, rms.inputs[1]}, rms.outputs, {}};
  ln.attrs["axis"] = axis;
  ln.attrs["epsilon"] = rms.f("epsilon", 1e-5);
  g.nodes[i] = std::move(ln);
  r.changed();
  return true;
}

// Gelu (erf form) as exported below opset 20:
//   %q = div(%x, 1.4142135)               (or mul(%x, 0.70710678))
//   %e = erf(%q)
//   %a = add(%e, 1.0)                     (either side)
//   %m = mul(%x, %a)                      (either side)
//   %y = mul(%m, 0.5)                     (either side)
// →
//   %y = gelu(%x) {approximate = 0}
bool foldGelu(Rewriter& r, size_t i) {
  Graph& g = r.g;
  const Node& half = g.nodes[i];
  if (half.op != Op::Mul) return false;
  const TensorType out = g.type(half.outputs[0]);
  if (!isFloat(out.dtype)) return false;
  const Node* m = nullptr;
  for (int side = 0; side < 2 && !m; ++side)
    if (isScalarConst(r, half.inputs[size_t(1 - side)], 0.5)) m = innerProducer(r, half.inputs[size_t(side)], Op::Mul);
  if (!m) return false;
  for (int side = 0; side < 2; ++side) {
    ValueId x = m->inputs[size_t(side)];
    const Node* a = innerProducer(r, m->inputs[size_t(1 - side)], Op::Add);
    if (!a || g.type(x) != out) continue;
    const Node* e = nullptr;
    for (int s2 = 0; s2 < 2 && !e; ++s2)
      if (isScalarConst(r, a->inputs[size_t(1 - s2)], 1.0)) e = innerProducer(r, a->inputs[size_t(s2)], Op::Erf);
    if (!e) continue;
    const Node* q = r.producerOf(e->inputs[0]);
    if (!q || r.uses(e->inputs[0]) != 1 || r.isGraphOutput(e->inputs[0]) || q->inputs[0] != x) continue;
    bool scaled = (q->op == Op::Div && isScalarConst(r, q->inputs[1], std::sqrt(2.0))) ||
                  (q->op == Op::Mul && isScalarConst(r, q->inputs[1], std::sqrt(0.5)));
    if (!scaled) continue;
    Node gelu{Op::Gelu, half.name, {x}, half.outputs, {}};
    gelu.attrs["approximate"] = int64_t(0);
    g.nodes[i] = std::move(gelu);
    r.changed();
    return true;
  }
  return false;
}

using Rule = bool (*)(Rewriter&, size_t);
const Rule kPatternRules[] = {foldLayerNorm, foldRMSNorm, foldCenteredRMSNorm, foldGelu};

}  // namespace

// Sweeps until nothing folds: a fold's swallowed nodes count as uses until
// they are removed between sweeps, so a pattern built on another fold's
// result (foldCenteredRMSNorm on foldRMSNorm's) matches in the next sweep.
// Every fold removes nodes, so this ends; kMaxSweeps bounds it regardless.
void canonicalizePatterns(Graph& g) {
  constexpr int kMaxSweeps = 8;
  bool changed = true;
  for (int sweep = 0; changed && sweep < kMaxSweeps; ++sweep) {
    changed = false;
    Rewriter r{g};
    for (size_t i = 0; i < g.nodes.size(); ++i)
      for (Rule rule : kPatternRules)
        changed |= rule(r, i);
    if (changed) g.removeDeadNodes();
  }
}

}  // namespace mgc
