// fuse-attention-proj: a decode step's output projection moves into the
// attention_cache before it (ir/ops.def: AttentionCache with o_proj), so
// that attention and o_proj share one barrier level where they took two:
//
//   %a, %k1, %v1 = attention_cache(%q, %k, %v, %kc, %vc, %pos, %cos, %sin, %mask) {scale = 0.125} : f32[1,9,1,64], ...
//   %r = reshape(%a) {shape = [1, 1, 576]}
//   %o = qmatmul(%r, %ow, none, %h) {epilogue = [7], format = 1, group = 64} : f32[1,1,576]
//     →
//   %o, %k1, %v1 = attention_cache(%q, %k, %v, %kc, %vc, %pos, %cos, %sin, %mask, %ow, none, %h)
//                      {format = 1, group = 64, scale = 0.125} : f32[1,1,576], ...
//
// Conditions: one query row per head (T = 1: the heads' rows side by side
// are the product's row, through reshapes only, each read once), a packed
// QMatMul without prologue whose epilogue is nothing or one residual add of
// its output's shape, heads the kernel reads in whole 16-byte loads
// (attentionProjProblem, ir/qweights.h), and its operands defined before
// the attention. Up to 8 workgroups per query head (attention_cache_proj.
// comp's parts) each stream a part of the head's slice of o (N × Dv
// weights), one row per invocation, and add their outputs atomically, so
// only where a slice is at most kMaxProjBytesPerHead: 8 parts of 128 rows
// of 128 bytes. Measured (SmolLM2-135M's 576 × 64 slices, 5 parts,
// docs/performance.md): on the H200 f16 (72 KiB) 0.895 → 0.786 ms a decode
// step, int4 (18 KiB) 0.868 → 0.753 against one workgroup per head, which
// had made f16 lose 1.5% on the H100.
// Runs after fuse-attention-cache.
#include "ir/epilogue.h"
#include "ir/qweights.h"
#include "passes/graph/passes.h"
#include "passes/graph/pattern_util.h"

namespace mgc {

namespace {

constexpr int64_t kMaxProjBytesPerHead = int64_t(128) << 10;

}  // namespace

void fuseAttentionProj(Graph& g) {
  const Uses uses(g);
  auto definedBefore = [&](ValueId v, NodeId at) { return v == kNoValue || g.value(v).producer < at; };
  Splice splice(g);
  for (size_t pi = 0; pi < g.nodes.size(); ++pi) {
    const Node& p = g.nodes[pi];
    if (p.op != Op::QMatMul || hasPrologue(p)) continue;
    const Epilogue e = readEpilogue(p);
    const bool residual = !e.steps.empty();
    if (residual &&
        (e.steps != std::vector<EpilogueStep>{EpilogueStep::Add} || g.type(p.inputs[3]) != g.type(p.outputs[0])))
      continue;
    // Back from the product's row through reshapes read once.
    std::vector<NodeId> chain;
    ValueId v = p.inputs[0];
    for (NodeId r; (r = uses.soleProducer(v, Op::Reshape)) >= 0; v = g.nodes[size_t(r)].inputs[0]) chain.push_back(r);
    const NodeId at = uses.soleProducer(v, Op::AttentionCache);
    if (at < 0) continue;
    Node& a = g.nodes[size_t(at)];
    if (a.outputs[0] != v || a.inputs.size() > 9) continue;
    const Shape& q = g.type(a.inputs[0]).shape;  // [B, H, T, D]
    const int64_t B = q[0], H = q[1], T = q[2], Dv = g.type(a.inputs[2]).shape[3];
    const int64_t N = g.type(p.outputs[0]).shape.back();
    const WeightFormat format = WeightFormat(p.i("format", 0));
    if (T != 1 || g.type(p.inputs[0]).shape != Shape{B, 1, H * Dv}) continue;
    if (!attentionProjProblem(format, H * Dv, Dv).empty()) continue;
    if (N * Dv * weightFormatInfo(format).bits / 8 > kMaxProjBytesPerHead) continue;
    const ValueId scales = p.inputs.size() > 2 ? p.inputs[2] : kNoValue, res = residual ? p.inputs[3] : kNoValue;
    if (!definedBefore(p.inputs[1], at) || !definedBefore(scales, at) || !definedBefore(res, at)) continue;
    a.inputs.resize(9, kNoValue);  // the mask slot (none when absent)
    a.inputs.insert(a.inputs.end(), {p.inputs[1], scales, res});
    a.attrs["format"] = int64_t(format);
    a.attrs["group"] = p.i("group", 0);
    a.outputs[0] = p.outputs[0];
    splice.drop(NodeId(pi));
    for (NodeId c : chain) splice.drop(c);
  }
  splice.finish();
}

}  // namespace mgc
