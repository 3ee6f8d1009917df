// fuse-gated-mlp: a decode step's SwiGLU MLP on packed weights — gate and
// up products of one normalized row, and the down product that takes
// silu(gate) * up as its prologue — becomes one qgated_mlp node (ir/ops.def),
// one barrier level instead of two:
//
//   %g = qmatmul(%x, %gw, %gs, %n) {rms_eps = 1e-05, format = 3, group = 64}
//   %u = qmatmul(%x, %uw, %us, %n) {rms_eps = 1e-05, format = 3, group = 64}
//   %d = qmatmul(%g, %dw, %ds, %h, %u) {swiglu = 1, epilogue = [7], ...}
//     → %d = qgated_mlp(%x, %gw, %uw, %dw, %gs, %us, %ds, %n, %h) {format = 3, group = 64, norm_eps = 1e-05}
//
// Conditions: one row x (a decode step), the three weights in one format
// and group, gate and up with the same prologue (an RMSNorm or none) and no
// epilogue, each read only by the down product, whose epilogue is nothing
// or one residual add of its output's shape; shapes the kernel takes
// (qgatedMlpProblem, ir/qweights.h). The kernel adds every row group's share
// of the down product into the output with float atomics: N × I / 16 adds,
// so only where that is at most kMaxGatedMlpAdds (SmolLM2-135M: 576 × 96;
// wider models keep their two levels, whose products then stream more
// bytes than a level costs). Runs after fuse-prologue, which builds the
// prologues matched here.
#include "ir/epilogue.h"
#include "ir/qweights.h"
#include "passes/graph/passes.h"
#include "passes/graph/pattern_util.h"

namespace mgc {

namespace {

constexpr int64_t kMaxGatedMlpAdds = int64_t(1) << 18;

ValueId inputOr(const Node& n, size_t k) { return k < n.inputs.size() ? n.inputs[k] : kNoValue; }

// The gate / up product of x: a QMatMul without epilogue, its prologue an
// RMSNorm or none.
bool isProjection(const Node& n) {
  if (n.op != Op::QMatMul || n.has("epilogue")) return false;
  const Prologue p = prologueOf(n);
  return p == Prologue::None ? n.inputs.size() <= 3 : p == Prologue::RmsNorm && n.inputs.size() == 4;
}

}  // namespace

void fuseGatedMlp(Graph& g) {
  g.removeDeadNodes();  // fuse-prologue leaves silu(gate) * up unread
  const Uses uses(g);
  Splice splice(g);
  for (Node& d : g.nodes) {
    if (d.op != Op::QMatMul || prologueOf(d) != Prologue::SwiGlu) continue;
    // d: (gate, words, scales, [residual], up) {swiglu = 1}
    const Epilogue e = readEpilogue(d);
    const bool residual = !e.steps.empty();
    if (residual &&
        (e.steps != std::vector<EpilogueStep>{EpilogueStep::Add} || g.type(d.inputs[3]) != g.type(d.outputs[0])))
      continue;
    const NodeId gi = uses.soleProducer(d.inputs[0], Op::QMatMul), ui = uses.soleProducer(d.inputs.back(), Op::QMatMul);
    if (gi < 0 || ui < 0 || gi == ui) continue;
    const Node &gate = g.nodes[size_t(gi)], &up = g.nodes[size_t(ui)];
    if (!isProjection(gate) || !isProjection(up) || gate.inputs[0] != up.inputs[0]) continue;
    if (inputOr(gate, 3) != inputOr(up, 3) || gate.attrs.count("rms_eps") != up.attrs.count("rms_eps") ||
        (gate.has("rms_eps") && gate.f("rms_eps") != up.f("rms_eps")))
      continue;
    const int64_t format = d.i("format", 0), group = d.i("group", 0);
    if (gate.i("format", 0) != format || up.i("format", 0) != format || gate.i("group", 0) != group ||
        up.i("group", 0) != group)
      continue;
    const ValueId x = gate.inputs[0];
    const int64_t K = g.type(x).shape.back(), I = g.type(gate.outputs[0]).shape.back(),
                  N = g.type(d.outputs[0]).shape.back();
    if (K <= 0 || g.type(x).numel() != K) continue;
    if (!qgatedMlpProblem(WeightFormat(format), K, I, group).empty()) continue;
    if (N * (I / kGatedMlpRows) > kMaxGatedMlpAdds) continue;
    Attrs a{{"format", format}, {"group", group}};
    if (gate.has("rms_eps")) a["norm_eps"] = gate.f("rms_eps");
    d.inputs = {x,
                gate.inputs[1],
                up.inputs[1],
                d.inputs[1],
                inputOr(gate, 2),
                inputOr(up, 2),
                inputOr(d, 2),
                inputOr(gate, 3),
                residual ? d.inputs[3] : kNoValue};
    d.op = Op::QGatedMlp;
    d.attrs = std::move(a);
    splice.drop(gi);
    splice.drop(ui);
  }
  splice.finish();
}

}  // namespace mgc
