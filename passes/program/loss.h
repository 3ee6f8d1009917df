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
};

// Appends the loss to g and returns it: a rank-0 tensor of the prediction's
// float dtype.
//   CrossEntropy: prediction = logits [N, C] or [N, C, d...], target = class
//     indices [N] or [N, d...] (i64 / i32); log_softmax over axis 1, the
//     one-hot made on the device (Equal against an iota over C), optional
//     label smoothing: q = (1 - s) onehot + s / C.
//   MSE: mean((p - t)^2);  L1: mean(|p - t|);
//   BCEWithLogits: mean(softplus(p) - p t) (= the stable form
//     max(p, 0) - p t + log(1 + e^-|p|)); target broadcastable to p.
// Throws mgc::Error on mismatched shapes or dtypes.
ValueId addLoss(Graph& g, ValueId prediction, ValueId target, const LossOptions& o);

}  // namespace mgc
