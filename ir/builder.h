// GraphBuilder: what every frontend needs to turn a foreign model into one
// IR graph, independent of the source format (it depends on the IR and its
// evaluator only). The ONNX importer and the checkpoint-folder frontend
// (compiler/hf: a Llama graph from config.json + safetensors) build
// through it.
//
//   naming     fresh value names that neither the graph nor the source
//              model (`reserved`, names bound later) uses: base, base.1, ...
//   folding    a node whose inputs are all constants is evaluated while
//              building (evalNode) and becomes a constant, within a size
//              budget, so that shape arithmetic never reaches the passes;
//              nodes reading a value in `keepUnfolded` (training
//              parameters) stay nodes
//   composites short subgraphs of primitives that several frontend ops
//              share (reshape-if-needed, one-axis slices, normalization,
//              RMSNorm, attention, rotary embedding, causal mask);
//              passes/canonicalize may fuse them back
//
// Every helper takes the name of the source node it builds for: new nodes
// carry it, new values are named "<node>/<op>" or "<node>/const" (fresh).
// Errors (shape rules, the evaluator) are mgc::Error, thrown as they are.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace mgc {

// Element count of `s`; throws Error("<what>: ...") on a negative dim or a
// count past GraphBuilder::kMaxElements (checked before any multiplication
// overflows). For sizes read from an untrusted model.
int64_t checkedNumel(const Shape& s, const std::string& what);

class GraphBuilder {
 public:
  // No tensor a frontend builds may have more elements than this (2^36
  // elements = 256 GiB of f32: far beyond any model, far below overflow).
  static constexpr int64_t kMaxElements = int64_t(1) << 36;
  // A constant folded while building may be at most this large; past the
  // total budget, all-constant nodes stay nodes (the const-fold pass may
  // still fold them) rather than exhausting memory on a hostile model.
  static constexpr size_t kMaxFoldBytes = size_t(64) << 20;
  static constexpr size_t kFoldBudgetBytes = size_t(1) << 30;

  Graph g;
  std::set<std::string> reserved;  // source-model names freshName must avoid
  std::set<ValueId> keepUnfolded;  // nodes reading these are never folded

  // ---- naming and constants ----
  std::string freshName(const std::string& base) const;
  // A constant named `name` (counted against the fold budget).
  ValueId addConstant(const std::string& name, HostTensor t);
  // A fresh-named constant "<nodeName>/const".
  ValueId constant(const std::string& nodeName, HostTensor t);
  // A rank-0 constant of dtype t.
  ValueId scalar(const std::string& nodeName, DType t, double v);

  // Appends one node and returns its single output, named `outName` (or a
  // fresh "<nodeName>/<op>" when empty); folds it when its inputs are all
  // constants (see above).
  ValueId emit(Op op, std::vector<ValueId> inputs, Attrs attrs, const std::string& nodeName,
               const std::string& outName = "");

  // ---- composites ----
  // v reshaped to `shape`; v itself when it already has that shape.
  ValueId reshapeTo(const std::string& nodeName, ValueId v, const Shape& shape);
  // One axis [start, end) by step (negative steps walk backwards), the
  // other axes whole: the IR's normalized Slice.
  ValueId sliceAxis(const std::string& nodeName, ValueId x, int64_t axis, int64_t start, int64_t end, int64_t step);
  // x reversed along `axis`.
  ValueId reverseAxis(const std::string& nodeName, ValueId x, int64_t axis);

  // Normalization over `axes` (kept as size-1 axes):
  //   mean = E[x], var = E[(x - mean)²] (population),
  //   invStd = 1/sqrt(var + epsilon), normalized = (x - mean) · invStd
  // in x's dtype. The building block of BatchNorm in training mode and
  // InstanceNorm; scale and bias are left to the caller (their layout
  // differs per op). Unused results are removed by dce.
  struct Normalized {
    ValueId mean, variance, invStd, normalized;
  };
  Normalized normalize(const std::string& nodeName, ValueId x, const std::vector<int64_t>& axes, double epsilon);

  // RMSNorm over the last axis (Llama-style): x · 1/sqrt(E[x²] + epsilon) ·
  // weight, weight of shape [last dim].
  ValueId rmsNorm(const std::string& nodeName, ValueId x, ValueId weight, double epsilon);

  // Scaled dot-product attention over the last two axes:
  //   softmax(q · kᵀ · scale + mask) · v
  // q [..., Sq, D], k [..., Sk, D], v [..., Sk, Dv]; leading axes broadcast
  // (MatMul's rules); mask (kNoValue: none) is added before the softmax and
  // broadcasts to [..., Sq, Sk] (0 to keep, a large negative to drop).
  // One fused Attention node (ir/ops.def) where its kernel takes the shapes
  // (attentionFuses), else the MatMul / Softmax chain.
  ValueId attention(const std::string& nodeName, ValueId q, ValueId k, ValueId v, ValueId mask, double scale);

  static bool attentionFuses(const TensorType& q, const TensorType& k, const TensorType& v, const TensorType* mask);
  // The fused kernel's limits (kernels/src/attention.comp).
  static constexpr int64_t kAttentionMaxHeadDim = 512;
  static constexpr size_t kAttentionMaxLeading = 6;

  // Rotary position embedding in the rotate-half layout (GPT-NeoX, Hugging
  // Face Llama): x · cos + rotate_half(x) · sin, where rotate_half(x) =
  // concat(-x[..., D/2:], x[..., :D/2]) over the last axis (D even); cos
  // and sin broadcast to x (e.g. [T, D] against [..., T, D]).
  ValueId rotaryHalf(const std::string& nodeName, ValueId x, ValueId cos, ValueId sin);
  // The same with sin's first half negated beforehand (signedSin[..., i] =
  // -sin[..., i] for i < D/2): x · cos + swap_halves(x) · signedSin, one
  // gather and one fused multiply-add (one Rotary node when x is f32 and
  // cos and sin are [T, D] for x [..., T, D]). A model that keeps a signed
  // sine table saves the negation at every layer.
  ValueId rotaryHalfSigned(const std::string& nodeName, ValueId x, ValueId cos, ValueId signedSin);

  // An additive causal mask [Tq, Tk] of `dtype`: 0 where key position <=
  // query position, elsewhere the lowest finite f32 (as transformers:
  // finite, so no inf reaches a kernel or a constant). Positions are integer vectors [Tq] and
  // [Tk]; constants fold to a constant mask, run-time positions (a decode
  // step) give a mask computed on the device.
  ValueId causalMask(const std::string& nodeName, ValueId queryPositions, ValueId keyPositions, DType dtype);

 private:
  size_t foldedBytes_ = 0;
};

}  // namespace mgc
