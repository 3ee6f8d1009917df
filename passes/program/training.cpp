#include "passes/program/training.h"

#include <fnmatch.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "passes/program/autodiff.h"
#include "passes/graph/passes.h"

namespace mgc {

namespace {

ValueId emit(Graph& g, Op op, std::vector<ValueId> ins, const std::string& name, Attrs attrs = {}) {
  NodeId n = g.addNode(op, g.uniqueName(name), std::move(ins), std::move(attrs));
  return g.nodes[size_t(n)].outputs[0];
}

ValueId scalar(Graph& g, double v, DType t, const std::string& name) {
  HostTensor h(TensorType{t, {}});
  h.setF(0, v);
  return g.addConstant(g.uniqueName(name), std::move(h));
}

// Constants the importer invented (Gemm's alpha, folded shapes) are named
// "<node>/const..." and are not parameters; neither are scalars, nor, when
// the frontend says which constants are the model's parameters (ONNX
// initializers), any other constant (a Constant node's table of RoPE angles).
bool looksLikeParameter(const Graph& g, const Value& v) {
  return v.isConstant() && v.type.dtype == DType::F32 && v.type.rank() >= 1 && v.type.numel() > 0 &&
         v.name.find("/const") == std::string::npos &&
         (g.parameterCandidates.empty() || g.parameterCandidates.count(v.name) != 0);
}

void makeState(Graph& g, const std::set<std::string>& names) {
  for (Value& v : g.values) {
    if (!v.isConstant() || !names.count(v.name)) continue;
    v.isState = true;
    v.initial = std::move(v.constant);
    v.constant.reset();
  }
}

// BatchNorm(x, scale, bias, mean, var) in training mode, as primitive ops;
// running statistics that are state get their PyTorch-style update.
void rewriteBatchNormForTraining(Graph& g, double momentum) {
  std::vector<Node> old = std::move(g.nodes);
  g.nodes.clear();
  for (Node& n : old) {
    if (n.op != Op::BatchNorm) {
      g.nodes.push_back(std::move(n));
      continue;
    }
    const std::string base = n.name;
    const ValueId x = n.inputs[0], scale = n.inputs[1], bias = n.inputs[2], mean = n.inputs[3], var = n.inputs[4];
    const TensorType xt = g.type(x);
    if (xt.rank() < 2) throw Error("training: batch_norm '" + base + "': input must have rank >= 2, got " + xt.str());
    const int64_t channels = xt.shape[1];
    std::vector<int64_t> axes;
    int64_t count = 1;
    Shape perChannel(size_t(xt.rank()), 1);
    perChannel[1] = channels;
    for (int d = 0; d < xt.rank(); ++d)
      if (d != 1) axes.push_back(d), count *= xt.shape[size_t(d)];
    const Attrs reduce{{"axes", axes}, {"keepdims", int64_t(1)}};
    const DType dt = xt.dtype;
    ValueId mu = emit(g, Op::ReduceMean, {x}, base + ".batch_mean", reduce);
    ValueId centered = emit(g, Op::Sub, {x, mu}, base + ".centered");
    ValueId sq = emit(g, Op::Mul, {centered, centered}, base + ".centered_sq");
    ValueId batchVar = emit(g, Op::ReduceMean, {sq}, base + ".batch_var", reduce);
    ValueId varEps = emit(g, Op::Add, {batchVar, scalar(g, n.f("epsilon", 1e-5), dt, base + ".eps")}, base + ".var_eps");
    ValueId invStd = emit(g, Op::Reciprocal, {emit(g, Op::Sqrt, {varEps}, base + ".std")}, base + ".inv_std");
    // y = x * a + shift with per-channel a = scale / std, shift = bias -
    // mean * a: one pass over x, and a gradient with few full-size tensors.
    ValueId s = emit(g, Op::Reshape, {scale}, base + ".scale", {{"shape", perChannel}});
    ValueId b = emit(g, Op::Reshape, {bias}, base + ".bias", {{"shape", perChannel}});
    ValueId a = emit(g, Op::Mul, {s, invStd}, base + ".gain");
    ValueId shift = emit(g, Op::Sub, {b, emit(g, Op::Mul, {mu, a}, base + ".mean_gain")}, base + ".shift");
    ValueId scaled = emit(g, Op::Mul, {x, a}, base + ".scaled");
    g.addNodeWithOutputs(Op::Add, base, {scaled, shift}, n.outputs, {});

    const Shape flat{channels};
    if (g.value(mean).isState && g.type(mean) == TensorType{dt, flat}) {
      ValueId m = emit(g, Op::Reshape, {mu}, base + ".batch_mean_flat", {{"shape", flat}});
      ValueId next = emit(g, Op::Add,
                          {emit(g, Op::Mul, {m, scalar(g, momentum, dt, base + ".momentum")}, base + ".mean_new_part"),
                           emit(g, Op::Mul, {mean, scalar(g, 1 - momentum, dt, base + ".keep")}, base + ".mean_old_part")},
                          base + ".running_mean");
      g.stateUpdates.push_back({mean, next});
    }
    if (g.value(var).isState && g.type(var) == TensorType{dt, flat}) {
      const double unbias = count > 1 ? double(count) / double(count - 1) : 1.0;
      ValueId v = emit(g, Op::Reshape, {batchVar}, base + ".batch_var_flat", {{"shape", flat}});
      ValueId vu = emit(g, Op::Mul, {v, scalar(g, unbias, dt, base + ".unbias")}, base + ".batch_var_unbiased");
      ValueId next = emit(g, Op::Add,
                          {emit(g, Op::Mul, {vu, scalar(g, momentum, dt, base + ".momentum")}, base + ".var_new_part"),
                           emit(g, Op::Mul, {var, scalar(g, 1 - momentum, dt, base + ".keep")}, base + ".var_old_part")},
                          base + ".running_var");
      g.stateUpdates.push_back({var, next});
    }
  }
  g.rebuildProducers();
}

// The importer's Dropout markers (Identity{dropout_ratio}); see ops.def.
bool isDropoutMarker(const Node& n) { return n.op == Op::Identity && n.attrs.count("dropout_ratio") != 0; }

// A node's mask seed: FNV-1a of its name (stable across compiles of the same
// model), moved by the --seed flag.
int64_t dropoutSeed(const std::string& node, uint64_t flag) {
  uint32_t h = 2166136261u;
  for (unsigned char ch : node) h = (h ^ ch) * 16777619u;
  return int64_t(uint32_t(h + uint32_t(flag) * 0x9E3779B9u));
}

// train_step: every marker becomes x * dropout_mask(opt.step). The step
// counter is the optimizer's (created here, reused by appendOptimizerStep),
// read before its increment: step k's mask depends on k only, so a resumed
// run draws the same masks as an uninterrupted one.
void rewriteDropoutForTraining(Graph& g, uint64_t seedFlag) {
  if (std::none_of(g.nodes.begin(), g.nodes.end(), isDropoutMarker)) return;
  if (g.find("opt.step") != kNoValue) throw Error("training: the name 'opt.step' is already used by the model");
  const ValueId step = g.addZeroState("opt.step", TensorType{DType::F32, {}});
  std::vector<Node> old = std::move(g.nodes);
  g.nodes.clear();
  for (Node& n : old) {
    if (!isDropoutMarker(n)) {
      g.nodes.push_back(std::move(n));
      continue;
    }
    const TensorType xt = g.type(n.inputs[0]);
    if (xt.dtype != DType::F32) throw Error("training: dropout '" + n.name + "': input must be f32, got " + xt.str());
    const Attrs maskAttrs{{"ratio", n.f("dropout_ratio")}, {"seed", dropoutSeed(n.name, seedFlag)}, {"shape", xt.shape}};
    ValueId mask = emit(g, Op::DropoutMask, {step}, n.name + ".mask", maskAttrs);
    g.addNodeWithOutputs(Op::Mul, n.name, {n.inputs[0], mask}, n.outputs, {});
  }
  g.rebuildProducers();
}

bool allElementsEqual(const HostTensor& t) {
  for (int64_t i = 1; i < t.numel(); ++i)
    if (t.getF(i) != t.getF(0)) return false;
  return true;
}

// Parameters that look merged by the exporter: several consumer nodes and
// every element equal (see training.h). A real tie (tied embeddings) has
// random values and is not reported.
std::vector<std::string> tiedParameterWarnings(const Graph& g, const std::set<std::string>& params) {
  std::map<ValueId, std::vector<std::string>> consumers;
  for (const Node& n : g.nodes)
    for (ValueId in : n.inputs)
      if (in != kNoValue && params.count(g.value(in).name)) {
        std::vector<std::string>& c = consumers[in];
        if (std::find(c.begin(), c.end(), n.name) == c.end()) c.push_back(n.name);
      }
  std::vector<std::string> out;
  for (const auto& [v, nodes] : consumers) {
    const Value& val = g.value(v);
    if (nodes.size() < 2 || !val.constant || !allElementsEqual(*val.constant)) continue;
    std::string list;
    for (size_t k = 0; k < nodes.size() && k < 4; ++k) list += (k ? ", '" : "'") + nodes[k] + "'";
    if (nodes.size() > 4) list += ", ...";
    char value[32];
    std::snprintf(value, sizeof value, "%g", val.constant->getF(0));
    out.push_back("parameter '" + val.name + "' (" + val.type.str() + ", every element " + value + ") feeds " +
                  std::to_string(nodes.size()) + " nodes (" + list +
                  ") and is trained as ONE tensor; an EVAL-mode torch.onnx.export merges equal-valued "
                  "initializers, so these may be separate parameters in PyTorch: export with "
                  "training=torch.onnx.TrainingMode.TRAINING (docs/training.md)");
  }
  return out;
}

}  // namespace

LossKind parseLossKind(const std::string& s) {
  if (s == "cross_entropy") return LossKind::CrossEntropy;
  if (s == "mse") return LossKind::MSE;
  if (s == "l1") return LossKind::L1;
  if (s == "bce_with_logits") return LossKind::BCEWithLogits;
  throw Error("unknown loss '" + s + "' (choose cross_entropy, mse, l1 or bce_with_logits)");
}

TrainingProgram buildTrainingProgram(const Graph& forward, const TrainOptions& o) {
  checkOptimizerOptions(o.optimizer);
  TrainingProgram prog;
  Graph fwd = forward;
  verifyGraph(fwd);
  if (fwd.outputs.empty()) throw Error("training: the model has no outputs");

  // A running statistic must be a tensor of its own: exporters merge equal
  // initializers (a fresh running_var equals a fresh BatchNorm weight).
  {
    std::vector<int> counts = fwd.useCounts();
    for (size_t k = 0; k < fwd.nodes.size(); ++k) {
      if (fwd.nodes[k].op != Op::BatchNorm) continue;
      for (int slot : {3, 4}) {
        ValueId v = fwd.nodes[k].inputs[size_t(slot)];
        if (!fwd.value(v).isConstant() || counts[size_t(v)] <= 1) continue;
        HostTensor copy = *fwd.value(v).constant;
        ValueId c = fwd.addConstant(fwd.nodes[k].name + (slot == 3 ? ".running_mean" : ".running_var"), std::move(copy));
        fwd.nodes[k].inputs[size_t(slot)] = c;
        --counts[size_t(v)];
      }
    }
  }

  // Which constants are parameters, running statistics, frozen.
  std::set<std::string> buffers, params, stateNames;
  for (const Node& n : fwd.nodes)
    if (n.op == Op::BatchNorm)
      for (int k : {3, 4})
        if (fwd.value(n.inputs[size_t(k)]).isConstant()) buffers.insert(fwd.value(n.inputs[size_t(k)]).name);
  std::vector<int> uses = fwd.useCounts();
  std::set<std::string> matchedPattern;
  for (size_t v = 0; v < fwd.values.size(); ++v) {
    const Value& val = fwd.values[v];
    if (!looksLikeParameter(fwd, val) || uses[v] == 0 || buffers.count(val.name)) continue;
    bool frozen = false;
    for (const std::string& pat : o.freeze)
      if (fnmatch(pat.c_str(), val.name.c_str(), 0) == 0) frozen = true, matchedPattern.insert(pat);
    (frozen ? prog.frozen : prog.parameters).push_back(val.name);
    if (!frozen) params.insert(val.name);
  }
  for (const std::string& pat : o.freeze)
    if (!matchedPattern.count(pat)) throw Error("training: --freeze pattern '" + pat + "' matches no parameter");
  if (params.empty()) throw Error("training: the model has no trainable parameters (float initializers)");
  prog.buffers.assign(buffers.begin(), buffers.end());
  prog.warnings = tiedParameterWarnings(fwd, params);
  stateNames = params;
  stateNames.insert(buffers.begin(), buffers.end());

  // infer: the forward graph over the state.
  prog.infer = fwd;
  makeState(prog.infer, stateNames);
  for (Node& n : prog.infer.nodes)
    if (isDropoutMarker(n)) n.attrs.erase("dropout_ratio"), ++prog.dropouts;

  // train_step.
  Graph& g = prog.trainStep;
  g = fwd;
  g.name = forward.name + "_train_step";
  makeState(g, stateNames);
  rewriteBatchNormForTraining(g, o.batchNormMomentum);
  rewriteDropoutForTraining(g, o.seed);

  ValueId pred = g.outputs[0];
  if (!o.prediction.empty()) {
    pred = kNoValue;
    for (ValueId v : g.outputs)
      if (g.value(v).name == o.prediction) pred = v;
    if (pred == kNoValue) throw Error("training: the model has no output named '" + o.prediction + "'");
  }
  const TensorType pt = g.type(pred);
  ValueId loss;
  if (o.prediction.empty() && isFloat(pt.dtype) && pt.numel() == 1) {
    loss = pred;  // the model computes its own loss
    g.outputs = {loss};
  } else {
    if (g.find(o.labels) != kNoValue)
      throw Error("training: the label input name '" + o.labels + "' is already used by the model");
    ValueId labels = g.addInput(o.labels, lossTargetType(pt, o.loss));
    loss = addLoss(g, pred, labels, o.loss);
    // A stable output name for apps: "loss" (unless the model took it).
    loss = g.nodes[size_t(g.addNode(Op::Identity, "loss", {loss}))].outputs[0];
    g.outputs = {loss, pred};
    prog.addedLoss = true;
    prog.prediction = g.value(pred).name;
  }
  prog.loss = g.value(loss).name;

  std::vector<ValueId> wrt;
  for (const std::string& p : prog.parameters) wrt.push_back(g.find(p));
  // Loss scaling differentiates loss * scale; the loss output stays unscaled.
  ValueId lossScale = kNoValue, differentiated = loss;
  if (o.optimizer.lossScale > 0) {
    lossScale = addLossScaleState(g, o.optimizer);
    differentiated = g.nodes[size_t(g.addNode(Op::Mul, "opt.loss_scaled", {loss, lossScale}))].outputs[0];
  }
  GradResult grads = differentiate(g, differentiated, wrt);
  std::vector<std::pair<ValueId, ValueId>> pairs;
  for (ValueId p : wrt) {
    auto it = grads.grads.find(p);
    if (it == grads.grads.end()) throw Error("training: autodiff returned no gradient for '" + g.value(p).name + "'");
    pairs.push_back({p, it->second});
  }
  appendOptimizerStep(g, pairs, o.optimizer, lossScale);
  verifyGraph(g);
  return prog;
}

}  // namespace mgc
