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

// min(1, clip / (||g||_2 + 1e-6)) over all gradients.
ValueId clipCoefficient(Builder& b, Graph& g, const std::vector<std::pair<ValueId, ValueId>>& pg, double clip) {
  ValueId total = kNoValue;
  for (const auto& [p, grad] : pg) {
    const std::string base = "opt." + g.value(p).name + ".sq";
    ValueId sq = b.mul(grad, grad, base);
    const int rank = g.type(grad).rank();
    if (rank > 0) {
      std::vector<int64_t> axes(static_cast<size_t>(rank), 0);
      for (int i = 0; i < rank; ++i) axes[size_t(i)] = i;
      sq = b.op(Op::ReduceSum, {sq}, base + "_sum", {{"axes", axes}, {"keepdims", int64_t(0)}});
    }
    total = total == kNoValue ? sq : b.add(total, sq, "opt.clip.sumsq");
  }
  ValueId norm = b.op(Op::Sqrt, {total}, "opt.clip.norm");
  ValueId coef = b.div(b.scalar(clip), b.add(norm, b.scalar(1e-6), "opt.clip.norm_eps"), "opt.clip.ratio");
  return b.op(Op::Min, {coef, b.scalar(1.0)}, "opt.clip.coef");
}

}  // namespace

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
}

void appendOptimizerStep(Graph& g, const std::vector<std::pair<ValueId, ValueId>>& paramGrads,
                         const OptimizerOptions& o) {
  checkOptimizerOptions(o);
  Builder b(g);
  // The counter may exist already: dropout masks read it (training.cpp).
  ValueId step = g.find("opt.step");
  if (step == kNoValue) step = b.zeroState("opt.step", TensorType{DType::F32, {}});
  else if (!g.value(step).isState || g.type(step) != TensorType{DType::F32, {}})
    throw Error("optimizer: state name 'opt.step' is already taken");
  ValueId t = b.add(step, b.scalar(1.0), "opt.t");
  g.stateUpdates.push_back({step, t});
  ValueId lr = learningRate(b, t, o);
  ValueId clip = o.clipNorm > 0 ? clipCoefficient(b, g, paramGrads, o.clipNorm) : kNoValue;

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
    for (ValueId s : {keep, stepSize, bc2Sqrt, clip != kNoValue ? clip : b.scalar(1.0)})
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
    if (clip != kNoValue) grad = b.mul(grad, clip, base + ".clipped");
    if (o.weightDecay != 0) grad = b.add(grad, b.mulK(p, o.weightDecay, base + ".decay"), base + ".grad_wd");
    ValueId update = grad;
    if (o.momentum != 0) {
      ValueId buf = b.zeroState(base + ".momentum", type);
      ValueId bufNext = b.add(b.mulK(buf, o.momentum, base + ".buf_scaled"), grad, base + ".buf");
      g.stateUpdates.push_back({buf, bufNext});
      update = o.nesterov ? b.add(grad, b.mulK(bufNext, o.momentum, base + ".nesterov_m"), base + ".nesterov")
                          : bufNext;
    }
    ValueId next = b.sub(p, b.mul(update, lr, base + ".delta"), base + ".next");
    g.stateUpdates.push_back({p, next});
  }
}

}  // namespace mgc
