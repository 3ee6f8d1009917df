// mark-precision: the accelerated mode's one graph change (`mgc compile
// --precision fp16|bf16`). Every MatMul whose product a tiled kernel
// computes (ir/matmul.h: lowPrecisionRefusal) gets `precision = "fp16"` or
// `"bf16"`, and in fp16 every implicit-GEMM Conv (convLowPrecisionRefusal):
// its operands are rounded to that type and multiplied on the GPU's matrix
// units where it has them, summed in f32. Matrix-vector
// products, which are bound by memory and not by math, stay f32, as do
// every other op and every tensor in memory (f32 master weights, optimizer
// state and activations). Runs after the pipeline, on fused nodes.
#include "passes/graph/passes.h"

namespace mgc {

void markPrecision(Graph& g, MatMulPrecision p) {
  if (p == MatMulPrecision::F32) return;
  for (Node& n : g.nodes) {
    if (n.has("precision")) continue;
    const bool can = n.op == Op::MatMul ? lowPrecisionRefusal(n, g.type(n.inputs[0]), g.type(n.inputs[1])).empty()
                     : n.op == Op::Conv ? convLowPrecisionRefusal(n, g.type(n.inputs[0]), g.type(n.inputs[1]), p).empty()
                                        : false;
    if (can) n.attrs["precision"] = std::string(precisionName(p));
  }
}

}  // namespace mgc
