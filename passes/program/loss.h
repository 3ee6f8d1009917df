// Training losses built from IR ops, so that autodiff (autodiff.h)
// differentiates them with the ordinary rules. PyTorch semantics, mean
// reduction.
#pragma once

#include "ir/graph.h"

namespace mgc {

enum class LossKind { CrossEntropy, MSE, L1, BCEWithLogits };

struct LossOptions {
  LossKind kind;
  double labelSmoothing = 0;  // CrossEntropy only, in [0, 1]
  // CrossEntropy only: the class axis of the logits. 1 is PyTorch's
  // [N, C, d...]; -1 (the last) fits a sequence model's [N, T, vocab].
  int64_t classAxis = 1;
};

// The target type a loss takes for `prediction`: for CrossEntropy, i64
// class indices shaped like the prediction without its class axis; else
// the prediction's own type. Throws mgc::Error when the class axis is out
// of range.
TensorType lossTargetType(const TensorType& prediction, const LossOptions& o);

// Appends the loss to g and returns it: a rank-0 tensor of the prediction's
// float dtype.
//   CrossEntropy: prediction = logits with classes on o.classAxis ([N, C],
//     [N, C, d...] with axis 1; [N, ..., C] with -1, e.g. a sequence
//     model's [N, T, vocab]), target = i64 / i32 class indices shaped like
//     the logits without that axis. log_softmax over the class axis, the
//     one-hot made on the device (Equal against an iota over C), optional
//     label smoothing: q = (1 - s) onehot + s / C.
//   MSE: mean((p - t)^2);  L1: mean(|p - t|);
//   BCEWithLogits: mean(softplus(p) - p t) (= the stable form
//     max(p, 0) - p t + log(1 + e^-|p|)); target broadcastable to p.
// Throws mgc::Error on mismatched shapes or dtypes.
ValueId addLoss(Graph& g, ValueId prediction, ValueId target, const LossOptions& o);

}  // namespace mgc
