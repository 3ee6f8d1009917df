// conv1x1-grads: the gradients of a 1×1 convolution with stride 1 and no
// padding are plain matrix products, so they run on the matmul kernels'
// register-blocked cores instead of the implicit-GEMM convolution gradient
// (which walks im2col indices per element). Two thirds of ResNet-50's
// convolutions are such.
//
// With x [N, C, H, W], w [M, C, 1, 1], dy [N, M, H, W] and P = H·W:
//
//   %dx = conv_grad_input(%dy, %w) {shape = [N, C, H, W]}
//     →  %w2 = reshape(%w) {shape = [M, C]}
//        %d3 = reshape(%dy) {shape = [N, M, P]}
//        %p = matmul(%w2, %d3) {trans_a = 1} : f32[N, C, P]     (wᵀ · dy[n], w broadcast)
//        %dx = reshape(%p) {shape = [N, C, H, W]}
//
//   %dw = conv_grad_weight(%x, %dy) {shape = [M, C, 1, 1]}
//     →  %d3 = reshape(%dy) {shape = [N, M, P]}
//        %x3 = reshape(%x) {shape = [N, C, P]}
//        %p = matmul(%d3, %x3) {trans_b = 1} : f32[N, M, C]     (dy[n] · x[n]ᵀ)
//        %s = reduce_sum(%p) {axes = [0], keepdims = 0}        (only for N > 1)
//        %dw = reshape(%s) {shape = [M, C, 1, 1]}
//
// The weight gradient of a batch writes N partial products and sums them:
// worth it only when each product's depth P is long enough for the large
// matmul cores (kMinDepth); shorter ones stay convolution gradients. Only
// group 1, f32. Runs before the fusions (the reshapes are views).
#include "passes/graph/expand_nodes.h"
#include "passes/graph/passes.h"

namespace mgc {

namespace {

// The weight gradient's per-image depth from which N products and a sum
// beat one implicit GEMM over N·P (the tile8 cores start at K = 256:
// kernels/lower_matmul.cpp).
constexpr int64_t kMinDepth = 256;

// A 1×1 window that reads every input pixel once: stride 1, no padding,
// one group, f32.
bool pointwise(const Graph& g, const Node& n) {
  if (n.op != Op::ConvGradInput && n.op != Op::ConvGradWeight) return false;
  const bool wantInput = n.op == Op::ConvGradInput;
  const TensorType& w = wantInput ? g.type(n.inputs[1]) : g.type(n.outputs[0]);
  if (w.dtype != DType::F32 || w.rank() != 4 || w.shape[2] != 1 || w.shape[3] != 1) return false;
  if (n.i("group", 1) != 1) return false;
  for (int64_t s : n.ints("strides", {{1, 1}}))
    if (s != 1) return false;
  for (int64_t p : n.ints("pads", {{0, 0, 0, 0}}))
    if (p != 0) return false;
  return true;
}

// Writes `out` as `v` reshaped to out's shape.
void finishReshape(NodeEmitter& e, ValueId v, ValueId out) {
  e.finish(Op::Reshape, {v}, out, {{"shape", std::vector<int64_t>(e.g.type(out).shape)}});
}

void rewriteGradInput(Graph& g, const Node& n) {
  NodeEmitter e{g, n.name};
  const Shape& dy = g.type(n.inputs[0]).shape;
  const Shape& w = g.type(n.inputs[1]).shape;
  const int64_t N = dy[0], M = dy[1], P = dy[2] * dy[3];
  ValueId w2 = e.reshape(n.inputs[1], {M, w[1]});
  ValueId d3 = e.reshape(n.inputs[0], {N, M, P});
  finishReshape(e, e.op(Op::MatMul, {w2, d3}, {{"trans_a", int64_t(1)}}), n.outputs[0]);
}

void rewriteGradWeight(Graph& g, const Node& n) {
  NodeEmitter e{g, n.name};
  const Shape& x = g.type(n.inputs[0]).shape;
  const Shape& dy = g.type(n.inputs[1]).shape;
  const int64_t N = x[0], C = x[1], M = dy[1], P = x[2] * x[3];
  ValueId d3 = e.reshape(n.inputs[1], {N, M, P});
  ValueId x3 = e.reshape(n.inputs[0], {N, C, P});
  ValueId prod = e.op(Op::MatMul, {d3, x3}, {{"trans_b", int64_t(1)}});
  if (N > 1) prod = e.op(Op::ReduceSum, {prod}, {{"axes", std::vector<int64_t>{0}}, {"keepdims", int64_t(0)}});
  finishReshape(e, prod, n.outputs[0]);
}

}  // namespace

void conv1x1Grads(Graph& g) {
  expandNodes(g, [](Graph& g, const Node& n) {
    if (!pointwise(g, n)) return;
    if (n.op == Op::ConvGradInput) rewriteGradInput(g, n);
    else if (const Shape& x = g.type(n.inputs[0]).shape; x[0] == 1 || x[2] * x[3] >= kMinDepth)
      rewriteGradWeight(g, n);
  });
}

}  // namespace mgc
