// fuse-swiglu-epilogue: a decode step's SwiGLU over a long intermediate
// row moves from the down product's prologue into the up product's
// epilogue (ir/epilogue.h, step mul_silu), so that silu(gate) * up is
// computed once, by the product that writes up, instead of by every
// workgroup of down as it reads its row:
//
//   %g = qmatmul(%x, %gw, %gs, %n) {rms_eps = 1e-05, ...}          : f32[1,1,11008]
//   %u = qmatmul(%x, %uw, %us, %n) {rms_eps = 1e-05, ...}          : f32[1,1,11008]
//   %d = qmatmul(%g, %dw, %ds, %h, %u) {swiglu = 1, epilogue = [7], ...}
//     →
//   %u = qmatmul(%x, %uw, %us, %g, %n) {rms_eps = 1e-05, epilogue = [10], ...}
//   %d = qmatmul(%u, %dw, %ds, %h) {epilogue = [7], ...}
//
// The one-row matvec kernels stage a row of at most 4096 values once per
// workgroup; a longer row (Llama-7B's 11008) is staged chunk by chunk for
// every row group, and with the prologue each workgroup reads gate and up
// and takes a sigmoid per value. The price is one barrier level (up now
// follows gate), so only rows longer than kStagedOnceK (ir/qweights.h). Measured at
// Llama-7B width (H100, int4, docs/performance.md): down_proj 50.2 → 41.4
// µs in a profiled step, up_proj 26.1 → 30.2, a step 0.712 → 0.700 ms.
//
// Conditions: down a MatMul / QMatMul with the swiglu prologue; up (its
// prologue operand) a product of the same op without epilogue, read only
// by down, defined after gate. Runs after fuse-gated-mlp, which takes the
// MLPs it can into one node.
#include "ir/epilogue.h"
#include "ir/qweights.h"
#include "passes/graph/passes.h"
#include "passes/graph/pattern_util.h"

namespace mgc {

void fuseSwigluEpilogue(Graph& g) {
  g.removeDeadNodes();  // fuse-prologue leaves silu(gate) * up unread
  const Uses uses(g);
  for (Node& d : g.nodes) {
    if ((d.op != Op::MatMul && d.op != Op::QMatMul) || prologueOf(d) != Prologue::SwiGlu) continue;
    const ValueId gate = d.inputs[0], upValue = d.inputs.back();
    if (g.type(gate).shape.empty() || g.type(gate).shape.back() <= kStagedOnceK) continue;
    const NodeId ui = uses.soleProducer(upValue, d.op);
    const NodeId gi = g.value(gate).producer;
    if (ui < 0 || (gi >= 0 && gi > ui)) continue;  // gate must be computed before up reads it
    Node& up = g.nodes[size_t(ui)];
    if (up.has("epilogue") || up.has("epilogue_args") || g.type(up.outputs[0]) != g.type(gate)) continue;
    // up's epilogue operand goes before its prologue operand (the last input).
    const size_t at = size_t(epilogueFirstInput(up.op));
    if (up.inputs.size() < at) up.inputs.resize(at, kNoValue);  // a MatMul / QMatMul without scales slot
    up.inputs.insert(up.inputs.begin() + std::ptrdiff_t(hasPrologue(up) ? up.inputs.size() - 1 : up.inputs.size()),
                     gate);
    up.attrs["epilogue"] = std::vector<int64_t>{int64_t(EpilogueStep::MulSilu)};
    up.attrs["epilogue_args"] = std::vector<double>{0.0, 0.0};
    d.inputs[0] = upValue;
    d.inputs.pop_back();
    d.attrs.erase("swiglu");
  }
}

}  // namespace mgc
