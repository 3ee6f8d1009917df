// Optimizer steps as IR: the update of every parameter, its moments and the
// step counter, appended to a training graph as ordinary elementwise nodes
// (so they run as GPU kernels in the same submission as the step) plus
// Graph::stateUpdates.
//
// Semantics follow PyTorch 1.13 (torch.optim.SGD / Adam / AdamW with
// foreach=False, torch.nn.utils.clip_grad_norm_, the schedules below), so
// that a step matches PyTorch's within fp32 rounding:
//   SGD     g += wd*p;  buf = momentum*buf + g;  g = nesterov ? g + momentum*buf : buf
//           p -= lr*g          (dampening 0; buf starts at 0, which equals
//                               PyTorch's "buf = g" on the first step)
//   Adam    g += wd*p;  m = b1*m + (1-b1)*g;  v = b2*v + (1-b2)*g*g
//           p -= lr/(1-b1^t) * m / (sqrt(v)/sqrt(1-b2^t) + eps)
//   AdamW   p *= 1 - lr*wd, then Adam without the g += wd*p
// The step counter `t` is an f32 state scalar (exact up to 2^24 steps),
// incremented at the start of every step (t = 1 on the first).
// Learning-rate schedules, with e = t - 1 the number of earlier steps (what
// a PyTorch scheduler stepped once per optimizer step sees):
//   constant  lr
//   step      lr * gamma^floor(e / step_size)                  (StepLR)
//   cosine    e < warmup: lr * (e + 1) / warmup
//             else lr * 0.5 * (1 + cos(pi * min(1, (e - warmup) / (total - warmup))))
// Clipping by global norm (clip_norm > 0): every gradient is multiplied by
// min(1, clip_norm / (sqrt(sum of squares of all gradients) + 1e-6)).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"

namespace mgc {

enum class OptimizerKind { Sgd, Adam, AdamW };
enum class LrSchedule { Constant, Step, Cosine };

struct OptimizerOptions {
  OptimizerKind kind = OptimizerKind::Sgd;
  double lr = 0.01;
  double momentum = 0.0;  // SGD
  bool nesterov = false;  // SGD
  double weightDecay = 0.0;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;  // Adam, AdamW
  LrSchedule schedule = LrSchedule::Constant;
  int64_t stepSize = 1000;  // Step
  double gamma = 0.1;       // Step
  int64_t warmup = 0, totalSteps = 0;  // Cosine
  double clipNorm = 0.0;    // 0: no clipping
  // Dynamic loss scaling (fp16 training, docs/precision.md). > 0: the
  // initial scale (PyTorch's GradScaler: 65536). The loss is multiplied by
  // the scale (state "opt.loss_scale") before it is differentiated, and the
  // gradients by its inverse before the update; a step whose gradients
  // hold an inf or a NaN is skipped (parameters, moments and the step
  // counter unchanged) and halves the scale, and lossScaleInterval finite
  // steps in a row double it. 0: off.
  double lossScale = 0.0;
  int64_t lossScaleInterval = 2000;
};

// Parses "sgd" / "adam" / "adamw", "constant" / "step" / "cosine"; throws
// mgc::Error listing the choices.
OptimizerKind parseOptimizerKind(const std::string& s);
LrSchedule parseLrSchedule(const std::string& s);
// Throws mgc::Error on an invalid combination (negative lr, nesterov
// without momentum, cosine without total steps, ...).
void checkOptimizerOptions(const OptimizerOptions& o);

// Appends the optimizer step for every (parameter state value, gradient)
// pair: creates the step counter ("opt.step"; reused when the graph already
// has it as an f32 scalar state: dropout masks read it) and moment states
// ("opt.<param>.momentum", ".exp_avg", ".exp_avg_sq"), the update nodes, and
// a state update for each parameter, moment and the counter. With loss
// scaling the gradients are of the loss times `lossScale` (the state
// "opt.loss_scale", which the caller made); the step unscales them, skips
// on overflow and updates the scale.
void appendOptimizerStep(Graph& g, const std::vector<std::pair<ValueId, ValueId>>& paramGrads,
                         const OptimizerOptions& o, ValueId lossScale = kNoValue);

// The loss-scale state for o.lossScale > 0 (f32 scalar "opt.loss_scale").
ValueId addLossScaleState(Graph& g, const OptimizerOptions& o);

}  // namespace mgc
