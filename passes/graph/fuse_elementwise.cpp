// fuse-elementwise: a tree of single-use f32 elementwise nodes (Unary,
// Binary, Where, and comparisons feeding a Where) becomes one fused_eltwise
// node (ir/fused_eltwise.h) that lowers to one eltwise dispatch: one kernel
// launch and one barrier instead of one per node, and no intermediate
// tensors.
//
//   %q = div(%x, 1.5) : f32[4,8]
//   %e = exp(%q) : f32[4,8]                →   %y = fused_eltwise(%x, %b) {ops = "div,exp,add", ...}
//   %y = add(%e, %b) : f32[4,8]
//
// Elementwise ops commute with broadcasting, so inner values may be smaller
// than the result (each step runs per output element). A group grows from
// its last node (the root) backwards through producers whose only use is
// the group, and through producers with other uses too when recomputing
// them costs no memory traffic (recomputable()): they stay for their other
// users and the group computes them again from their inputs, so it no
// longer waits for them — a barrier level less on the GPU. That is what
// shortens a training step's chains of per-channel statistics (BatchNorm's
// rsqrt(var + eps) · gamma, used forward and backward). A group stays
// within the kernel's limits: ≤ 8 distinct tensor inputs, ≤ 16
// instructions, ≤ 15 registers (+1 scratch). Scalar f32 constants become
// inline immediates. The fused node takes the root's place (every input is
// defined by then) and writes the root's value; a recomputed producer left
// without users is removed. Runs after fuse-conv-epilogue, so activations
// go into Conv/MatMul first.
//
// A reduction (sum / mean / max / min of f32) roots a group too, through
// reshapes between them: the group's value becomes a fused_reduce node
// (ir/fused_reduce.h) whose kernel computes it as it reads it, never
// storing it (sum(dy · x) and (x - mean)² in the norms' statistics and
// gradients). The group's root joins when the reduction alone reads its
// value (the reshapes between go with it) or when it may be recomputed.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "ir/fused_eltwise.h"
#include "ir/fused_reduce.h"
#include "passes/graph/passes.h"
#include "passes/graph/pattern_util.h"

namespace mgc {

namespace {

bool isComparison(Op op) {
  return op == Op::Equal || op == Op::Less || op == Op::LessOrEqual || op == Op::Greater || op == Op::GreaterOrEqual;
}

// May node `n` be a step? f32 in and out (Where: bool condition); inside a
// group (not its root), also a comparison of f32 values, whose bool result
// can only be a Where's condition (ReLU's gradient: where(y > 0, dy, 0)).
bool fusable(const Graph& g, const Node& n, bool root) {
  if (!isFusableEltwiseOp(n.op) || n.outputs.size() != 1) return false;
  const DType out = g.type(n.outputs[0]).dtype;
  if (out != DType::F32 && !(out == DType::Bool && !root && isComparison(n.op))) return false;
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    DType want = (n.op == Op::Where && k == 0) ? DType::Bool : DType::F32;
    if (n.inputs[k] == kNoValue || g.type(n.inputs[k]).dtype != want) return false;
  }
  return n.op != Op::Cast;  // f32 → f32 casts are removed elsewhere; keep the rule simple
}

bool isInlineConst(const Graph& g, ValueId v) { return scalarF32(g, v).has_value(); }

// Small values (per-channel statistics) are recomputed freely: their steps
// cost a few instructions per element of a memory-bound kernel.
constexpr int64_t kRecomputeMax = 16384;

// May producer `p`, which has users outside the group, be recomputed
// inside it? When the group then reads no more bytes: p is small, or p
// reads at most one tensor as large as its result (the group reads that
// one instead of p's result). Never when p reads a state the step updates:
// a later read of the old value would keep the update from happening in
// place (optimizer moments, the step counter).
bool recomputable(const Graph& g, const Node& p, const std::vector<bool>& isUpdatedState) {
  for (ValueId v : p.inputs)
    if (v != kNoValue && isUpdatedState[size_t(v)]) return false;
  const int64_t n = g.type(p.outputs[0]).numel();
  if (n <= kRecomputeMax) return true;
  int large = 0;
  for (ValueId v : p.inputs) large += !isInlineConst(g, v) && g.type(v).numel() >= n;
  return large <= 1;
}

// The program of `group` (node indices, ascending), or false when it breaks
// a limit.
bool buildProgram(const Graph& g, const std::vector<size_t>& group, FusedProgram* prog,
                  std::vector<ValueId>* inputs) {
  std::map<ValueId, int> stepOf;  // value → step index
  prog->steps.clear();
  prog->consts.clear();
  inputs->clear();
  for (size_t s = 0; s < group.size(); ++s) stepOf[g.nodes[group[s]].outputs[0]] = int(s);
  // Inputs first (their numbering precedes the steps').
  for (size_t idx : group)
    for (ValueId v : g.nodes[idx].inputs)
      if (!stepOf.count(v) && !isInlineConst(g, v) &&
          std::find(inputs->begin(), inputs->end(), v) == inputs->end())
        inputs->push_back(v);
  if (inputs->empty() || int(inputs->size()) > kFusedMaxInputs) return false;
  const int n = int(inputs->size());
  for (size_t idx : group) {
    const Node& node = g.nodes[idx];
    FusedStep st;
    st.op = node.op;
    st.dtype = g.type(node.outputs[0]).dtype;
    fusedStepFargs(node, &st.farg0, &st.farg1);
    for (size_t a = 0; a < node.inputs.size(); ++a) {
      ValueId v = node.inputs[a];
      if (stepOf.count(v)) {
        st.args[a] = n + stepOf[v];
      } else if (isInlineConst(g, v)) {
        prog->consts.push_back(g.value(v).constant->getF(0));
        st.args[a] = -int(prog->consts.size());
      } else {
        st.args[a] = int(std::find(inputs->begin(), inputs->end(), v) - inputs->begin());
      }
    }
    prog->steps.push_back(st);
  }
  FusedRegisters regs = assignFusedRegisters(*prog, n);
  return int(prog->steps.size()) + regs.constLoads <= kFusedMaxInstrs && regs.regsUsed < kFusedMaxRegs;
}

// A reduction fuse-elementwise may root a group at: sum / mean / max / min
// of f32, reading (through reshapes, latest first in `reshapes`) the
// result of a fusable node that is not taken, whose value the reduction
// alone reads or that may be recomputed.
struct ReduceRoot {
  size_t producer;
  std::vector<size_t> reshapes;  // node indices, from the reduction back
  // The producer has other users and is not recomputable on its own: the
  // group is taken only if, whole, it reads at most one tensor as large
  // as the producer's result (readsLittle()).
  bool wholeGroupMustReadLittle = false;
};

std::optional<ReduceRoot> reduceRoot(const Graph& g, const Node& n, const std::vector<int>& uses,
                                     const std::vector<bool>& isOutput, const std::vector<bool>& isUpdatedState,
                                     const std::vector<bool>& taken) {
  if (fusedReduceKind(n.op).empty() || n.inputs.size() != 1 || g.type(n.inputs[0]).dtype != DType::F32 ||
      g.type(n.inputs[0]).numel() == 0)
    return std::nullopt;
  ReduceRoot root;
  ValueId v = n.inputs[0];
  bool alone = true;  // every value on the way is read once, by the next
  for (;;) {
    alone = alone && uses[size_t(v)] == 1 && !isOutput[size_t(v)];
    const NodeId p = g.value(v).producer;
    if (p < 0 || taken[size_t(p)]) return std::nullopt;
    const Node& pn = g.nodes[size_t(p)];
    if (pn.op == Op::Reshape) {
      root.reshapes.push_back(size_t(p));
      v = pn.inputs[0];
      continue;
    }
    if (!fusable(g, pn, true)) return std::nullopt;
    root.producer = size_t(p);
    root.wholeGroupMustReadLittle = !alone && !recomputable(g, pn, isUpdatedState);
    return root;
  }
}

// Does a group that recomputes `root` (which stays for its other users)
// read no more bytes than reading root's value: at most one tensor as large
// as it, and no state the step updates (recomputable()'s rule, for the
// whole group)? BatchNorm's gradient sums a tree over (x - mean) and
// per-channel values that dx also reads: the sum no longer waits for it.
bool readsLittle(const Graph& g, const std::vector<ValueId>& inputs, const Node& root,
                 const std::vector<bool>& isUpdatedState) {
  const int64_t n = g.type(root.outputs[0]).numel();
  int large = 0;
  for (ValueId v : inputs) {
    if (isUpdatedState[size_t(v)]) return false;
    large += g.type(v).numel() >= n;
  }
  return large <= 1;
}

// Does the fused node compute exactly its root's value (an inline constant
// of higher rank would change the broadcast shape), and, for a reduction,
// can the kernel view every input in the reduced shape?
bool fusedTypeHolds(const Graph& g, const Node& node, const Node& root, bool reduction) {
  try {
    const Graph program = expandFusedEltwise(g, node);
    const TensorType& computed = program.type(program.outputs[0]);
    if (computed != g.type(root.outputs[0])) return false;
    if (!reduction) return true;
    for (ValueId v : node.inputs)
      if (!broadcastViewStrides(g.type(v).shape, computed.shape, node.ints("shape"))) return false;
    return inferTypes(g, node).at(0) == g.type(node.outputs[0]);
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

void fuseElementwise(Graph& g) {
  std::vector<int> uses = g.useCounts();
  std::vector<bool> isOutput(g.values.size(), false);
  for (ValueId v : g.outputs) isOutput[size_t(v)] = true;
  std::vector<bool> isUpdatedState(g.values.size(), false);
  for (const auto& su : g.stateUpdates) {
    isOutput[size_t(su.second)] = true;
    isUpdatedState[size_t(su.first)] = true;
  }
  std::vector<bool> taken(g.nodes.size(), false);
  std::set<ValueId> recomputedOut;  // results of producers a group recomputes
  std::vector<std::pair<size_t, Node>> fused;  // (root index, fused node)

  for (size_t r = g.nodes.size(); r-- > 0;) {
    if (taken[r]) continue;
    // The group's root: node r itself, or the producer of the value a
    // reduction reads (through reshapes), which then stays only for its
    // other users.
    const std::optional<ReduceRoot> red = reduceRoot(g, g.nodes[r], uses, isOutput, isUpdatedState, taken);
    const size_t root = red ? red->producer : r;
    if (!red && !fusable(g, g.nodes[r], true)) continue;
    std::vector<size_t> group = {root};
    FusedProgram prog;
    std::vector<ValueId> inputs;
    // Grow: try each producer of a group input, keep it if the limits hold.
    for (bool grew = true; grew;) {
      grew = false;
      std::set<size_t> candidates;
      for (size_t idx : group)
        for (ValueId v : g.nodes[idx].inputs) {
          NodeId p = g.value(v).producer;
          if (p < 0 || taken[size_t(p)] || std::find(group.begin(), group.end(), size_t(p)) != group.end() ||
              !fusable(g, g.nodes[size_t(p)], false))
            continue;
          if ((uses[size_t(v)] == 1 && !isOutput[size_t(v)]) || recomputable(g, g.nodes[size_t(p)], isUpdatedState))
            candidates.insert(size_t(p));
        }
      for (auto it = candidates.rbegin(); it != candidates.rend(); ++it) {
        std::vector<size_t> trial = group;
        trial.push_back(*it);
        std::sort(trial.begin(), trial.end());
        if (!buildProgram(g, trial, &prog, &inputs)) continue;
        group = trial;
        grew = true;
        break;
      }
    }
    if ((!red && group.size() < 2) || !buildProgram(g, group, &prog, &inputs)) continue;
    if (red && red->wholeGroupMustReadLittle && !readsLittle(g, inputs, g.nodes[root], isUpdatedState)) continue;
    const Node& at = g.nodes[r];
    Node node{red ? Op::FusedReduce : Op::FusedEltwise, at.name, inputs, at.outputs, {}};
    writeFusedEltwise(node, prog);
    if (red) {
      node.attrs["reduce"] = fusedReduceKind(at.op);
      node.attrs["shape"] = g.type(at.inputs[0]).shape;
      node.attrs["axes"] = at.ints("axes", {{}});
      node.attrs["keepdims"] = at.i("keepdims", 1);
    }
    if (!fusedTypeHolds(g, node, g.nodes[root], red.has_value())) continue;
    // A member goes when every use of its result is by a member that goes
    // (latest first: users come after producers); the others stay for
    // their other users. `uses` follows the rewrite: a gone member's uses
    // end, the fused node's begin (a value an earlier group reads stays).
    // A reduction's root goes with the reshapes between them when they
    // are its only users.
    std::map<ValueId, int> usesByGone;
    if (red) {
      taken[r] = true;
      ++usesByGone[at.inputs[0]];
      for (size_t v : red->reshapes)
        if (usesByGone[g.nodes[v].outputs[0]] == uses[size_t(g.nodes[v].outputs[0])] &&
            !isOutput[size_t(g.nodes[v].outputs[0])]) {
          taken[v] = true;
          ++usesByGone[g.nodes[v].inputs[0]];
        }
    }
    for (auto it = group.rbegin(); it != group.rend(); ++it) {
      const Node& m = g.nodes[*it];
      const ValueId out = m.outputs[0];
      if ((*it == r && !red) || (!isOutput[size_t(out)] && usesByGone[out] == uses[size_t(out)])) {
        taken[*it] = true;
        for (ValueId v : m.inputs) ++usesByGone[v];
      } else {
        recomputedOut.insert(out);
      }
    }
    for (const auto& [v, n] : usesByGone)
      if (v != kNoValue) uses[size_t(v)] -= n;
    for (ValueId v : inputs) ++uses[size_t(v)];
    fused.emplace_back(r, std::move(node));
  }
  if (fused.empty()) return;

  std::vector<Node> kept;
  std::map<size_t, Node*> at;
  for (auto& [r, node] : fused) at[r] = &node;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (at.count(i)) kept.push_back(std::move(*at[i]));
    else if (!taken[i]) kept.push_back(std::move(g.nodes[i]));
  }
  g.nodes = std::move(kept);
  g.rebuildProducers();
  // A recomputed producer whose users all fused it is dead (and then maybe
  // a recomputed producer of its own).
  g.removeDeadNodes([&](const Node& n) { return recomputedOut.count(n.outputs[0]) > 0; });
}

}  // namespace mgc
