// mark-precision: the accelerated mode's one graph change (`mgc compile
// --precision fp16|bf16`). Every MatMul whose product a tiled kernel
// computes (ir/matmul.h: lowPrecisionRefusal) gets `precision = "fp16"` or
// `"bf16"`, and in fp16 every implicit-GEMM Conv (convLowPrecisionRefusal):
// its operands are rounded to that type and multiplied on the GPU's matrix
// units where it has them, summed in f32. Matrix-vector
// products, which are bound by memory and not by math, stay f32, as do
// every other op and every tensor in memory (f32 master weights, optimizer
// state and activations). Runs after the pipeline, on fused nodes.
#include "ir/attention_layout.h"
#include "passes/graph/passes.h"

namespace mgc {

namespace {

// attention_f16 gives each workgroup kAttentionF16BlockRows query rows: on
// grids of fewer workgroups than this the f32 kernel's smaller ones
// (attention_tiled24) measured faster (docs/performance.md).
constexpr int64_t kAttentionF16MinGroups = 64;

bool attentionTakesF16(const Graph& g, const Node& n, MatMulPrecision p) {
  const TensorType &q = g.type(n.inputs[0]), &k = g.type(n.inputs[1]), &v = g.type(n.inputs[2]);
  if (!attentionLowPrecisionRefusal(n, q, k, v, p).empty()) return false;
  const Shape lq = attentionLogical(n, kAttnQ, q.shape);
  const int64_t T = lq[lq.size() - 2], batches = numel(lq) / (T * lq.back());
  return (T + kAttentionF16BlockRows - 1) / kAttentionF16BlockRows * batches >= kAttentionF16MinGroups;
}

}  // namespace

void markPrecision(Graph& g, MatMulPrecision p) {
  if (p == MatMulPrecision::F32) return;
  for (Node& n : g.nodes) {
    if (n.has("precision")) continue;
    const bool can = n.op == Op::MatMul ? lowPrecisionRefusal(n, g.type(n.inputs[0]), g.type(n.inputs[1])).empty()
                     : n.op == Op::Conv ? convLowPrecisionRefusal(n, g.type(n.inputs[0]), g.type(n.inputs[1]), p).empty()
                     : n.op == Op::Attention ? attentionTakesF16(g, n, p)
                                             : false;
    if (can) n.attrs["precision"] = std::string(precisionName(p));
  }
}

}  // namespace mgc
