#include "passes/program/optimizer.h"

#include <cmath>

namespace mgc {

namespace {

// Appends IR nodes for the update math (all f32).
class Builder {
 public:
  explicit Builder(Graph& g) : g_(g) {}

  ValueId op(Op op, std::vector<ValueId> ins, const std::string& name, Attrs attrs = {}) {
    NodeId n = g_.addNode(op, name, std::move(ins), std::move(attrs));
    return g_.nodes[size_t(n)].outputs[0];
  }
  ValueId scalar(double v) {
    HostTensor t(TensorType{DType::F32, {}});
    t.setF(0, v);
    return g_.addConstant("opt.const", std::move(t));
  }
  ValueId add(ValueId a, ValueId b, const std::string& n) { return op(Op::Add, {a, b}, n); }
  ValueId sub(ValueId a, ValueId b, const std::string& n) { return op(Op::Sub, {a, b}, n); }
  ValueId mul(ValueId a, ValueId b, const std::string& n) { return op(Op::Mul, {a, b}, n); }
  ValueId div(ValueId a, ValueId b, const std::string& n) { return op(Op::Div, {a, b}, n); }
  ValueId mulK(ValueId a, double k, const std::string& n) { return mul(a, scalar(k), n); }

  // Every optimizer state starts at zero: no bytes held (AdamW's two
  // moments are a model's worth of elements each).
  ValueId zeroState(const std::string& name, const TensorType& t) {
    if (g_.find(name) != kNoValue) throw Error("optimizer: state name '" + name + "' is already taken");
    return g_.addZeroState(name, t);
  }

 private:
  Graph& g_;
};

// lr at step t (f32 scalar value), per the schedule.
ValueId learningRate(Builder& b, ValueId t, const OptimizerOptions& o) {
  switch (o.schedule) {
    case LrSchedule::Constant:
      return b.scalar(o.lr);
    case LrSchedule::Step: {
      ValueId e = b.sub(t, b.scalar(1.0), "opt.lr.e");
      ValueId k = b.op(Op::Floor, {b.mulK(e, 1.0 / double(o.stepSize), "opt.lr.e_over")}, "opt.lr.k");
      ValueId f = b.op(Op::Pow, {b.scalar(o.gamma), k}, "opt.lr.decay");
      return b.mulK(f, o.lr, "opt.lr");
    }
    case LrSchedule::Cosine: {
      ValueId e = b.sub(t, b.scalar(1.0), "opt.lr.e");
      const double warm = double(std::max<int64_t>(o.warmup, 0));
      const double span = std::max(1.0, double(o.totalSteps) - warm);
      ValueId progress = b.mulK(b.sub(e, b.scalar(warm), "opt.lr.after_warmup"), 1.0 / span, "opt.lr.progress");
      progress = b.op(Op::Min, {progress, b.scalar(1.0)}, "opt.lr.progress_clamped");
      ValueId cosv = b.op(Op::Cos, {b.mulK(progress, M_PI, "opt.lr.angle")}, "opt.lr.cos");
      ValueId cosLr = b.mulK(b.add(cosv, b.scalar(1.0), "opt.lr.cos1"), 0.5 * o.lr, "opt.lr.cosine");
      if (warm <= 0) return cosLr;
      ValueId warmLr = b.mulK(t, o.lr / warm, "opt.lr.warmup");  // (e + 1) / warmup * lr
      ValueId inWarmup = b.op(Op::Less, {e, b.scalar(warm)}, "opt.lr.in_warmup");
      return b.op(Op::Where, {inWarmup, warmLr, cosLr}, "opt.lr");
    }
  }
  throw Error("optimizer: unknown schedule");
}

// The sum of every element of x, as a scalar.
ValueId sumAll(Builder& b, Graph& g, ValueId x, const std::string& name) {
  const int rank = g.type(x).rank();
  if (rank == 0) return x;
  std::vector<int64_t> axes(static_cast<size_t>(rank), 0);
  for (int i = 0; i < rank; ++i) axes[size_t(i)] = i;
  return b.op(Op::ReduceSum, {x}, name, {{"axes", axes}, {"keepdims", int64_t(0)}});
}

// min(1, clip / (||g||_2 + 1e-6)) over all gradients; `unscale` (or
// kNoValue) multiplies the norm first (the gradients of a scaled loss).
ValueId clipCoefficient(Builder& b, Graph& g, const std::vector<std::pair<ValueId, ValueId>>& pg, double clip,
                        ValueId unscale) {
  ValueId total = kNoValue;
  for (const auto& [p, grad] : pg) {
    const std::string base = "opt." + g.value(p).name + ".sq";
    ValueId sq = sumAll(b, g, b.mul(grad, grad, base), base + "_sum");
    total = total == kNoValue ? sq : b.add(total, sq, "opt.clip.sumsq");
  }
  ValueId norm = b.op(Op::Sqrt, {total}, "opt.clip.norm");
  if (unscale != kNoValue) norm = b.mul(norm, unscale, "opt.clip.norm_unscaled");
  ValueId coef = b.div(b.scalar(clip), b.add(norm, b.scalar(1e-6), "opt.clip.norm_eps"), "opt.clip.ratio");
  return b.op(Op::Min, {coef, b.scalar(1.0)}, "opt.clip.coef");
}

// Dynamic loss scaling's per-step values (OptimizerOptions::lossScale).
struct LossScaling {
  ValueId ok = kNoValue;       // bool scalar: every gradient element finite
  ValueId unscale = kNoValue;  // 1 / scale
};

// Whether the gradients are finite (their total sum is finite iff no
// element is inf or NaN, or the sum overflows, which is an overflow too),
// the inverse scale, and the scale's update: halved after an overflow,
// doubled after `interval` finite steps in a row.
LossScaling lossScaling(Builder& b, Graph& g, const std::vector<std::pair<ValueId, ValueId>>& pg, ValueId scale,
                        const OptimizerOptions& o) {
  ValueId total = kNoValue;
  for (const auto& [p, grad] : pg) {
    ValueId s = sumAll(b, g, grad, "opt." + g.value(p).name + ".grad_sum");
    total = total == kNoValue ? s : b.add(total, s, "opt.loss_scale.grad_sum");
  }
  LossScaling ls;
  ValueId magnitude = b.op(Op::Abs, {total}, "opt.loss_scale.grad_sum_abs");
  ls.ok = b.op(Op::Less, {magnitude, b.scalar(3.0e38)}, "opt.loss_scale.finite");  // false for inf and NaN
  ls.unscale = b.div(b.scalar(1.0), scale, "opt.loss_scale.inverse");
  ValueId good = b.zeroState("opt.loss_scale.good_steps", TensorType{DType::F32, {}});
  ValueId counted = b.op(Op::Where, {ls.ok, b.add(good, b.scalar(1.0), "opt.loss_scale.good_plus"), b.scalar(0.0)},
                         "opt.loss_scale.counted");
  ValueId grow = b.op(Op::GreaterOrEqual, {counted, b.scalar(double(o.lossScaleInterval))}, "opt.loss_scale.grow");
  ValueId kept = b.op(Op::Where, {grow, b.mulK(scale, 2.0, "opt.loss_scale.doubled"), scale}, "opt.loss_scale.kept");
  ValueId next = b.op(Op::Where, {ls.ok, kept, b.mulK(scale, 0.5, "opt.loss_scale.halved")}, "opt.loss_scale.next");
  ValueId goodNext = b.op(Op::Where, {grow, b.scalar(0.0), counted}, "opt.loss_scale.good_next");
  g.stateUpdates.push_back({scale, next});
  g.stateUpdates.push_back({good, goodNext});
  return ls;
}

}  // namespace

ValueId addLossScaleState(Graph& g, const OptimizerOptions& o) {
  if (!(o.lossScale > 0)) throw Error("optimizer: a loss-scale state needs a loss scale > 0");
  if (g.find("opt.loss_scale") != kNoValue) throw Error("optimizer: state name 'opt.loss_scale' is already taken");
  HostTensor init(TensorType{DType::F32, {}});
  init.setF(0, o.lossScale);
  return g.addState("opt.loss_scale", std::move(init));
}

OptimizerKind parseOptimizerKind(const std::string& s) {
  if (s == "sgd") return OptimizerKind::Sgd;
  if (s == "adam") return OptimizerKind::Adam;
  if (s == "adamw") return OptimizerKind::AdamW;
  throw Error("unknown optimizer '" + s + "' (choose sgd, adam or adamw)");
}

LrSchedule parseLrSchedule(const std::string& s) {
  if (s == "constant") return LrSchedule::Constant;
  if (s == "step") return LrSchedule::Step;
  if (s == "cosine") return LrSchedule::Cosine;
  throw Error("unknown learning-rate schedule '" + s + "' (choose constant, step or cosine)");
}

void checkOptimizerOptions(const OptimizerOptions& o) {
  auto bad = [](const std::string& why) { throw Error("optimizer: " + why); };
  if (!(o.lr >= 0) || !std::isfinite(o.lr)) bad("learning rate must be a finite number >= 0");
  if (!(o.momentum >= 0 && o.momentum < 1)) bad("momentum must be in [0, 1)");
  if (o.nesterov && (o.kind != OptimizerKind::Sgd || o.momentum == 0)) bad("nesterov needs sgd with momentum > 0");
  if (!(o.weightDecay >= 0) || !std::isfinite(o.weightDecay)) bad("weight decay must be >= 0");
  if (!(o.beta1 >= 0 && o.beta1 < 1) || !(o.beta2 >= 0 && o.beta2 < 1)) bad("betas must be in [0, 1)");
  if (!(o.eps > 0)) bad("eps must be > 0");
  if (o.clipNorm < 0 || !std::isfinite(o.clipNorm)) bad("clip norm must be >= 0 (0: off)");
  if (o.schedule == LrSchedule::Step && (o.stepSize <= 0 || !(o.gamma > 0))) bad("step schedule needs step size > 0 and gamma > 0");
  if (o.schedule == LrSchedule::Cosine && o.totalSteps <= o.warmup)
    bad("cosine schedule needs --total-steps greater than --warmup");
  if (o.warmup < 0) bad("warmup must be >= 0");
  if (o.lossScale < 0 || !std::isfinite(o.lossScale)) bad("loss scale must be a finite number >= 0 (0: off)");
  if (o.lossScale > 0 && o.lossScaleInterval < 1) bad("the loss-scale growth interval must be >= 1 step");
}

void appendOptimizerStep(Graph& g, const std::vector<std::pair<ValueId, ValueId>>& paramGrads,
                         const OptimizerOptions& o, ValueId lossScale) {
  checkOptimizerOptions(o);
  if ((o.lossScale > 0) != (lossScale != kNoValue))
    throw Error("optimizer: loss scaling needs both the option and the opt.loss_scale state");
  Builder b(g);
  const LossScaling ls = lossScale != kNoValue ? lossScaling(b, g, paramGrads, lossScale, o) : LossScaling{};
  // The counter may exist already: dropout masks read it (training.cpp).
  ValueId step = g.find("opt.step");
  if (step == kNoValue) step = b.zeroState("opt.step", TensorType{DType::F32, {}});
  else if (!g.value(step).isState || g.type(step) != TensorType{DType::F32, {}})
    throw Error("optimizer: state name 'opt.step' is already taken");
  ValueId t = b.add(step, b.scalar(1.0), "opt.t");
  // A skipped step (loss scaling's overflow) leaves the counter as it was.
  g.stateUpdates.push_back({step, ls.ok != kNoValue ? b.op(Op::Where, {ls.ok, t, step}, "opt.step_next") : t});
  ValueId lr = learningRate(b, t, o);
  ValueId clip = o.clipNorm > 0 ? clipCoefficient(b, g, paramGrads, o.clipNorm, ls.unscale) : kNoValue;
  // What multiplies each gradient: the clip coefficient and the inverse
  // loss scale (kNoValue: neither).
  ValueId gradScale = clip;
  if (ls.unscale != kNoValue)
    gradScale = clip != kNoValue ? b.mul(clip, ls.unscale, "opt.grad_scale") : ls.unscale;

  // Adam's run-time scalars, shared by every parameter's adam_step:
  // [keep, step_size, bc2_sqrt, grad_scale] (ir/ops.def).
  ValueId coef = kNoValue;
  if (o.kind != OptimizerKind::Sgd) {
    ValueId bc1 = b.sub(b.scalar(1.0), b.op(Op::Pow, {b.scalar(o.beta1), t}, "opt.beta1_t"), "opt.bc1");
    ValueId bc2 = b.sub(b.scalar(1.0), b.op(Op::Pow, {b.scalar(o.beta2), t}, "opt.beta2_t"), "opt.bc2");
    ValueId stepSize = b.div(lr, bc1, "opt.step_size");
    ValueId bc2Sqrt = b.op(Op::Sqrt, {bc2}, "opt.bc2_sqrt");
    ValueId keep = o.kind == OptimizerKind::AdamW && o.weightDecay != 0
                       ? b.sub(b.scalar(1.0), b.mulK(lr, o.weightDecay, "opt.lr_wd"), "opt.keep")
                       : b.scalar(1.0);
    std::vector<ValueId> parts;
    // grad_scale 0 skips the step (AdamStep, ir/ops.def).
    ValueId scale = gradScale != kNoValue ? gradScale : b.scalar(1.0);
    if (ls.ok != kNoValue) scale = b.op(Op::Where, {ls.ok, scale, b.scalar(0.0)}, "opt.grad_scale_or_skip");
    for (ValueId s : {keep, stepSize, bc2Sqrt, scale})
      parts.push_back(b.op(Op::Reshape, {s}, "opt.coef", {{"shape", std::vector<int64_t>{1}}}));
    coef = b.op(Op::Concat, parts, "opt.coef", {{"axis", int64_t(0)}});
  }

  for (const auto& [p, grad0] : paramGrads) {
    const std::string name = g.value(p).name;
    const std::string base = "opt." + name;
    const TensorType type = g.type(p);
    if (o.kind != OptimizerKind::Sgd) {
      // One adam_step: the update of the parameter and both moments.
      ValueId m = b.zeroState(base + ".exp_avg", type);
      ValueId v = b.zeroState(base + ".exp_avg_sq", type);
      const double l2 = o.kind == OptimizerKind::Adam ? o.weightDecay : 0.0;
      NodeId n = g.addNode(Op::AdamStep, base + ".adam", {p, grad0, m, v, coef},
                           {{"beta1", o.beta1}, {"beta2", o.beta2}, {"eps", o.eps}, {"weight_decay", l2}});
      const std::vector<ValueId> outs = g.nodes[size_t(n)].outputs;
      g.stateUpdates.push_back({m, outs[1]});
      g.stateUpdates.push_back({v, outs[2]});
      g.stateUpdates.push_back({p, outs[0]});
      continue;
    }
    // SGD (weight decay as L2), with optional (Nesterov) momentum.
    ValueId grad = grad0;
    if (gradScale != kNoValue) grad = b.mul(grad, gradScale, base + ".scaled");
    if (o.weightDecay != 0) grad = b.add(grad, b.mulK(p, o.weightDecay, base + ".decay"), base + ".grad_wd");
    ValueId update = grad;
    if (o.momentum != 0) {
      ValueId buf = b.zeroState(base + ".momentum", type);
      ValueId bufNext = b.add(b.mulK(buf, o.momentum, base + ".buf_scaled"), grad, base + ".buf");
      g.stateUpdates.push_back(
          {buf, ls.ok != kNoValue ? b.op(Op::Where, {ls.ok, bufNext, buf}, base + ".buf_or_skip") : bufNext});
      update = o.nesterov ? b.add(grad, b.mulK(bufNext, o.momentum, base + ".nesterov_m"), base + ".nesterov")
                          : bufNext;
    }
    ValueId next = b.sub(p, b.mul(update, lr, base + ".delta"), base + ".next");
    if (ls.ok != kNoValue) next = b.op(Op::Where, {ls.ok, next, p}, base + ".next_or_skip");
    g.stateUpdates.push_back({p, next});
  }
}

}  // namespace mgc
