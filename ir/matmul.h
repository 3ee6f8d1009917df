// MatMul's operand layouts. `trans_a` / `trans_b` (0 or 1, default 0) say
// the operand is stored with its last two axes swapped: the product is
// op(a) @ op(b), op = swap of the last two axes when the flag is set. The
// canonicalize pass folds Transpose nodes into these flags (no transposed
// copy is ever made), and the matmul kernel reads either layout directly.
// A flagged operand has rank >= 2 (a vector has no second axis to swap).
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "ir/graph.h"

namespace mgc {

struct MatMulLayout {
  bool transA = false, transB = false;
};

inline MatMulLayout matmulLayout(const Node& n) {
  return {n.i("trans_a", 0) != 0, n.i("trans_b", 0) != 0};
}

// The shape an operand stored as `stored` has as a matrix operand.
inline Shape logicalOperand(Shape stored, bool trans) {
  if (trans && stored.size() >= 2) std::swap(stored[stored.size() - 1], stored[stored.size() - 2]);
  return stored;
}

// Up to this many rows of op(a), a product streams its weights once
// through many small workgroups (kernels/src/matvec.comp, qmatvec.comp)
// instead of 64x64 tiles.
constexpr int64_t kMatVecRows = 4;

// The accelerated mode (`mgc compile --precision fp16|bf16`,
// passes/graph/mark_precision.cpp) marks products `precision = "fp16"` or
// `"bf16"`: each operand element is rounded to that type before it is
// multiplied, the products are summed in f32, the epilogue runs in f32, and
// tensors stay f32 (so training keeps f32 master weights). The evaluator
// rounds the same way; the kernels (matmul_f16 / matmul_bf16) round as they
// read, and multiply on cooperative matrix units where the device has them.
enum class MatMulPrecision { F32, F16, BF16 };

// The node's `precision` (F32 when absent). Throws mgc::Error naming the
// node for any other value than "fp16" / "bf16".
MatMulPrecision matmulPrecision(const Node& n);
const char* precisionName(MatMulPrecision p);  // "fp32", "fp16", "bf16"
// The inverse of precisionName; false for any other name.
bool parsePrecision(std::string_view name, MatMulPrecision* out);

// Why the product of stored operands `a`, `b` (layout applied by the
// kernel) cannot take a reduced precision, or "" when it can: the tiled
// kernels' products only, i.e. f32 operands of rank >= 2, more than
// kMatVecRows rows of op(a) (fewer is a memory-bound matrix-vector
// product, where the math is not the cost), the stored rows of both
// operands whole vec4s, and no prologue.
std::string lowPrecisionRefusal(const Node& n, const TensorType& a, const TensorType& b);

// Output channels per group below which a Conv runs conv2d_direct, not
// the implicit GEMM (kernels/lower_conv.cpp): 64-channel tiles would
// mostly idle.
constexpr int64_t kConvMinGemmChannels = 16;

// The accelerated mode marks convolutions too (`precision = "fp16"`, fp16
// only): x and w rounded to fp16, products summed in f32, bias and
// epilogue in f32 (conv2d_f16_splitk). Why the Conv with
// input `x` and weight `w` cannot take `p`, or "" when it can: the
// implicit-GEMM convs only (kConvMinGemmChannels output channels per
// group or more), f32 operands, a multiple of 4 weights per output channel
// (whole vec4 rows of w), and fp16 (no bf16 conv kernel).
std::string convLowPrecisionRefusal(const Node& n, const TensorType& x, const TensorType& w, MatMulPrecision p);

// And attention (`precision = "fp16"`, fp16 only): q, k and v rounded to
// fp16, the scores q·k summed in f32, then scaled, masked and softmaxed in
// f32 against each row's max over all its keys; each weight is rounded to
// fp16 for the weighted sum of v (summed in f32), while the sum that
// normalizes it adds the unrounded weights (attention_f16; the evaluator
// rounds the same way). Heads of at most kAttentionF16MaxHeadDim (one
// 64-wide fragment row), at least kAttentionF16FromRows query rows (one
// 16-row fragment; fewer are matrix-vector work).
constexpr int64_t kAttentionF16MaxHeadDim = 64;
constexpr int64_t kAttentionF16FromRows = 16;
// attention_f16's query rows per workgroup (16 per subgroup; the kernel's
// 64u): the lowering's grid and mark-precision's speed rule count them.
constexpr int64_t kAttentionF16BlockRows = 64;
// Why Attention node n with stored operands q, k, v cannot take `p`, or ""
// when it can: fp16, f32 operands, head dims of 4 to
// kAttentionF16MaxHeadDim in whole vec4s, at least kAttentionF16FromRows
// query rows.
std::string attentionLowPrecisionRefusal(const Node& n, const TensorType& q, const TensorType& k, const TensorType& v,
                                         MatMulPrecision p);

}  // namespace mgc
