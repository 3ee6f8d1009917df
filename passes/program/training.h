// Training program construction: from an imported forward graph to the two
// entry points of a training bundle over shared state.
//
//   1. Parameters: the float constants the model computes with (rank >= 1,
//      not helper constants the importer made, not BatchNorm running
//      statistics) become state values under their own names, except those
//      matching a --freeze pattern, which stay constants. BatchNorm running
//      mean/var become (untrained) state too.
//   2. train_step: BatchNorm in training mode is rewritten into primitive ops
//      (batch mean and biased variance via ReduceMean, normalization); the
//      running statistics are updated as state, PyTorch style:
//      r = (1 - m) r + m batch_stat with m = 0.1 and the unbiased batch
//      variance for the running variance. A loss is added on the prediction
//      output unless the graph already ends in a scalar loss; the gradient
//      of the loss w.r.t. every parameter (autodiff.h) feeds the optimizer
//      step (optimizer.h). Outputs: the loss, then the prediction.
//      Dropout (the importer's Identity{dropout_ratio} markers) becomes
//      x * dropout_mask{ratio, seed}(opt.step): a counter-based mask, one
//      seed per node (hash of its name, moved by TrainOptions::seed).
//      A parameter with every element equal (a fresh zero bias, a unit
//      LayerNorm scale) that feeds several nodes gets a warning: an
//      EVAL-mode torch.onnx.export merges equal-valued initializers, which
//      ties parameters PyTorch trains separately (docs/training.md).
//   3. infer: the forward graph with the same state (BatchNorm in inference
//      form, reading the running statistics; Dropout is the identity).
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "passes/program/loss.h"
#include "passes/program/optimizer.h"

namespace mgc {

struct TrainOptions {
  LossOptions loss{LossKind::CrossEntropy};
  std::string labels = "labels";  // name of the target input train_step gets
  std::string prediction;         // forward output the loss is put on ("": the first)
  OptimizerOptions optimizer;
  std::vector<std::string> freeze;  // glob patterns (fnmatch) over parameter names
  double batchNormMomentum = 0.1;
  uint64_t seed = 0;  // --seed: moves every dropout node's mask seed
};

struct TrainingProgram {
  Graph trainStep;
  Graph infer;
  std::vector<std::string> parameters;  // trained state, in graph value order
  std::vector<std::string> frozen;      // parameters kept constant by --freeze
  std::vector<std::string> buffers;     // untrained state: BatchNorm running stats
  std::string loss;                     // train_step output names
  std::string prediction;
  bool addedLoss = false;               // false: the model's own scalar output
  int dropouts = 0;                     // Dropout nodes trained with a random mask
  // Things the user should know (e.g. parameters that look tied by an
  // EVAL-mode export); the CLI prints them, the build goes on.
  std::vector<std::string> warnings;
};

// Throws mgc::Error naming the problem (no parameters, unknown prediction,
// a freeze pattern that matches nothing, an op without a gradient, ...).
TrainingProgram buildTrainingProgram(const Graph& forward, const TrainOptions& o);

LossKind parseLossKind(const std::string& s);  // cross_entropy, mse, l1, bce_with_logits

}  // namespace mgc
