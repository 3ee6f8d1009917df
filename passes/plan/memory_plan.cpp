#include "passes/plan/memory_plan.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <numeric>

namespace mgc {

namespace {

uint64_t alignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Storage groups: values that share one buffer (aliases and in-place pairs)
// are unioned; each group is then one interval to place. Each group also
// knows the last step any member is read (INT_MAX: a member is an output).
struct UnionFind {
  std::vector<int> parent, groupLast;
  explicit UnionFind(std::vector<int> last) : parent(last.size()), groupLast(std::move(last)) {
    std::iota(parent.begin(), parent.end(), 0);
  }
  int find(int x) {
    while (parent[size_t(x)] != x) x = parent[size_t(x)] = parent[size_t(parent[size_t(x)])];
    return x;
  }
  void unite(int into, int from) {
    int a = find(into), b = find(from);
    if (a == b) return;
    parent[size_t(b)] = a;
    groupLast[size_t(a)] = std::max(groupLast[size_t(a)], groupLast[size_t(b)]);
  }
};

struct Interval {
  int group;
  int begin, end;  // inclusive steps
  uint64_t size;
  uint64_t offset = 0;
  int levelBegin = 0, levelEnd = 0;  // inclusive execution levels
};

// Interval ids by the fixed-size blocks of a range (steps or levels) they
// cover; forEach visits every id whose range may meet [begin, end] (some
// twice: callers deduplicate).
class LiveIndex {
 public:
  explicit LiveIndex(int span) : blocks_(size_t(span / kBlock + 1)) {}
  void add(int begin, int end, size_t id) {
    for (int b = begin / kBlock; b <= end / kBlock; ++b) blocks_[size_t(b)].push_back(id);
  }
  template <class F>
  void forEach(int begin, int end, F&& f) const {
    for (int b = begin / kBlock; b <= end / kBlock; ++b)
      for (size_t id : blocks_[size_t(b)]) f(id);
  }

 private:
  static constexpr int kBlock = 32;
  std::vector<std::vector<size_t>> blocks_;
};

// Views (alias-op outputs) of values that live in a state inherit its home.
void propagateViews(const Graph& g, const MemoryPlanInput& in, std::vector<ValueId>& home) {
  for (size_t s = 0; s < g.nodes.size(); ++s) {
    const Node& n = g.nodes[s];
    if (in.isAlias[s] && !n.inputs.empty() && n.inputs[0] >= 0 && home[size_t(n.inputs[0])] != kNoValue &&
        home[size_t(n.outputs[0])] == kNoValue)
      home[size_t(n.outputs[0])] = home[size_t(n.inputs[0])];
  }
}

// Which values live in a state's bytes (memory_plan.h gives the rules).
std::vector<ValueId> planStateHomes(const Graph& g, const MemoryPlanInput& in, int* inPlaceUpdates) {
  const size_t nv = g.values.size();
  const int steps = int(g.nodes.size());
  std::vector<ValueId> home(nv, kNoValue);
  for (size_t v = 0; v < nv; ++v)
    if (g.values[v].isState) home[v] = ValueId(v);
  propagateViews(g, in, home);  // views of the old values
  // Last step reading each state's old value; `steps` = read at the end.
  std::vector<int> lastOld(nv, -1);
  for (int s = 0; s < steps; ++s)
    for (ValueId v : g.nodes[size_t(s)].inputs)
      if (v >= 0 && home[size_t(v)] != kNoValue) lastOld[size_t(home[size_t(v)])] = s;
  std::vector<int> updatesOf(nv, 0);
  for (const auto& u : g.stateUpdates) ++updatesOf[size_t(u.second)];
  std::vector<bool> isOutput(nv, false);
  for (ValueId v : g.outputs) {
    isOutput[size_t(v)] = true;
    if (home[size_t(v)] != kNoValue) lastOld[size_t(home[size_t(v)])] = steps;
  }
  for (const auto& u : g.stateUpdates)
    if (home[size_t(u.second)] != kNoValue) lastOld[size_t(home[size_t(u.second)])] = steps;

  for (const auto& [state, next] : g.stateUpdates) {
    const NodeId p = g.value(next).producer;
    if (state == next || p < 0) continue;
    const Node& n = g.nodes[size_t(p)];
    // Several results: in place by definition (attention_cache) or from one
    // elementwise dispatch (adam_step).
    const bool elementwise = size_t(p) < in.elementwise.size() && in.elementwise[size_t(p)];
    const size_t output = size_t(std::find(n.outputs.begin(), n.outputs.end(), next) - n.outputs.begin());
    const int writes = inPlaceStateInput(n, output);  // StateWrite, AttentionCache: in place by definition
    bool ok = !in.isAlias[size_t(p)] && (writes >= 0 || n.outputs.size() == 1 || elementwise) &&
              !isOutput[size_t(next)] &&
              updatesOf[size_t(next)] == 1 && home[size_t(next)] == kNoValue;
    if (ok && writes >= 0) {
      // Writes rows at other indices than it reads: no other operand may be
      // the old bytes (the state operand itself is not bound).
      ok = n.inputs[size_t(writes)] == state && lastOld[size_t(state)] <= p;
      for (size_t i = 0; i < n.inputs.size(); ++i)
        if (ok && int(i) != writes && n.inputs[i] >= 0) ok = home[size_t(n.inputs[i])] != state;
      if (!ok)
        throw Error("memory plan: " + std::string(opName(n.op)) + " '" + n.name + "' cannot write '" +
                    g.value(state).name + "' in place (the verifier's rules are broken)");
    } else if (ok && lastOld[size_t(state)] == p) {
      // P reads the old value: only index i for output i, whole-shaped.
      ok = elementwise;
      for (ValueId v : n.inputs)
        if (ok && v >= 0 && home[size_t(v)] == state) ok = g.type(v).shape == g.type(next).shape;
    } else if (ok) {
      ok = lastOld[size_t(state)] < p;
    }
    if (!ok) continue;
    home[size_t(next)] = state;
    ++*inPlaceUpdates;
  }
  for (const Node& n : g.nodes)
    for (size_t o = 0; o < n.outputs.size(); ++o)
      if (inPlaceStateInput(n, o) >= 0 && home[size_t(n.outputs[o])] == kNoValue)
        throw Error("memory plan: " + std::string(opName(n.op)) + " '" + n.name + "' result '" +
                    g.value(n.outputs[o]).name + "' is not the update of its state");
  propagateViews(g, in, home);  // views of the new values
  for (size_t v = 0; v < nv; ++v)
    if (g.values[v].isState) home[v] = kNoValue;  // states are placed by the driver as themselves
  return home;
}

}  // namespace

uint64_t deviceBytes(const TensorType& t) {
  return std::max<uint64_t>(uint64_t(t.numel()) * deviceElementSize(t.dtype), 4);
}

MemoryPlan planMemory(const Graph& g, const MemoryPlanInput& in) {
  const size_t nv = g.values.size();
  const int steps = int(g.nodes.size());
  MemoryPlan plan;
  plan.slots.assign(nv, TensorSlot{});

  std::vector<int> uses = g.useCounts();
  std::vector<int> def(nv, -1), last(nv, -1);
  std::vector<bool> isOutput(nv, false), isInput(nv, false);
  plan.stateHome = planStateHomes(g, in, &plan.inPlaceUpdates);
  auto inState = [&](ValueId v) { return g.value(v).isState || plan.stateHome[size_t(v)] != kNoValue; };
  for (ValueId v : g.outputs) isOutput[size_t(v)] = true;
  // New values of the other state updates are copied into the state at the
  // end of the run: they live to the end like outputs.
  for (const auto& u : g.stateUpdates) isOutput[size_t(u.second)] = true;
  for (ValueId v : g.inputs) isInput[size_t(v)] = true;
  for (int s = 0; s < steps; ++s) {
    for (ValueId v : g.nodes[size_t(s)].inputs)
      if (v >= 0) last[size_t(v)] = s;
    for (ValueId v : g.nodes[size_t(s)].outputs) def[size_t(v)] = s;
  }

  // Weights: constants in order of first use.
  uint64_t woff = 0;
  auto placeConstant = [&](ValueId v) {
    TensorSlot& slot = plan.slots[size_t(v)];
    if (slot.arena >= 0 || !g.value(v).isConstant()) return;
    slot = {0, woff, deviceBytes(g.type(v))};
    woff = alignUp(woff + slot.size, kArenaAlign);
  };
  for (const Node& n : g.nodes)
    for (ValueId v : n.inputs)
      if (v >= 0) placeConstant(v);
  for (ValueId v : g.outputs) placeConstant(v);
  plan.weightsBytes = woff;

  // Groups: alias outputs join their input; in-place outputs join the dying input.
  std::vector<int> readUntil(nv);
  for (size_t v = 0; v < nv; ++v) readUntil[v] = isOutput[v] ? INT_MAX : last[v];
  UnionFind uf(std::move(readUntil));
  for (int s = 0; s < steps; ++s) {
    const Node& n = g.nodes[size_t(s)];
    if (n.outputs.size() != 1 || n.inputs.empty()) continue;
    ValueId out = n.outputs[0];
    if (inState(out)) continue;  // lives in a state's bytes (a view of one, or written in place)
    if (in.isAlias[size_t(s)]) {
      // An alias of a constant shares its (non-activation) slot; the driver
      // copies that slot over.
      if (!g.value(n.inputs[0]).isConstant()) uf.unite(n.inputs[0], out);
      continue;
    }
    if (!in.mayRunInPlace[size_t(s)]) continue;
    for (ValueId v : n.inputs) {
      if (v < 0) continue;
      const Value& val = g.value(v);
      bool dies = last[size_t(v)] == s && std::count(n.inputs.begin(), n.inputs.end(), v) == 1;
      if (val.isConstant() || inState(v) || isInput[size_t(v)] || isOutput[size_t(v)] || !dies) continue;
      if (g.type(v).shape != g.type(out).shape) continue;
      // Only when v's storage group ends here too (an alias of v may live on).
      if (uf.groupLast[size_t(uf.find(v))] > s) continue;
      uf.unite(v, out);
      ++plan.inPlaceCount;
      break;
    }
  }

  // Execution levels (the scheduler's, passes/plan/schedule.h, from the
  // data alone): a node's dispatches run one after another, the first one
  // level after the latest producer of its inputs (an early output's
  // initializing pass a level before that); alias ops run nowhere. Two
  // values whose step lifetimes do not overlap may share bytes, but then
  // the later writer waits for the earlier value's readers (a barrier),
  // even where the data would let both run between the same two barriers.
  // Sharing also between values whose level lifetimes do not overlap adds
  // no such wait; it is planned both ways and the level-aware plan is taken
  // unless it needs much more memory.
  // level: a node's first level (its outputs' first write), levelEnd: its
  // last (where its outputs are complete and its inputs last read).
  auto early = [&](int s) { return size_t(s) < in.earlyOutput.size() && in.earlyOutput[size_t(s)]; };
  std::vector<int> level(size_t(steps), 0), levelEnd(size_t(steps), 0), valueLevel(nv, 0);
  int maxLevel = 0;
  for (int s = 0; s < steps; ++s) {
    const Node& n = g.nodes[size_t(s)];
    int l = 0;
    for (ValueId v : n.inputs)
      if (v >= 0) l = std::max(l, valueLevel[size_t(v)]);
    const bool alias = in.isAlias[size_t(s)];
    const int dispatches =
        alias ? 0 : size_t(s) < in.dispatches.size() ? std::max(in.dispatches[size_t(s)], 1) : 1;
    // An early output's initializing pass runs beside the inputs' producers.
    level[size_t(s)] = alias || early(s) ? l : l + 1;
    levelEnd[size_t(s)] = l + (early(s) ? dispatches - 1 : dispatches);
    maxLevel = std::max(maxLevel, levelEnd[size_t(s)]);
    for (ValueId v : n.outputs) valueLevel[size_t(v)] = levelEnd[size_t(s)];
  }
  std::vector<int> lastLevel(nv, -1);
  for (int s = 0; s < steps; ++s)
    for (ValueId v : g.nodes[size_t(s)].inputs)
      if (v >= 0) lastLevel[size_t(v)] = std::max(lastLevel[size_t(v)], levelEnd[size_t(s)]);

  // One interval per group of non-constant values that are used or produced.
  std::vector<Interval> intervals;
  std::vector<int> groupIndex(nv, -1);
  for (size_t v = 0; v < nv; ++v) {
    const Value& val = g.values[v];
    if (val.isConstant() || inState(ValueId(v))) continue;  // state: placed by the driver (shared arena)
    bool live = isInput[v] || isOutput[v] || def[v] >= 0;
    if (!live) continue;
    int begin = isInput[v] ? 0 : def[v];
    int end = isOutput[v] ? steps : std::max(last[v], begin);
    int levelBegin = isInput[v] ? 0 : level[size_t(def[v])];
    int levelEnd = isOutput[v] ? maxLevel + 1 : std::max(lastLevel[v], levelBegin);
    int root = uf.find(int(v));
    uint64_t size = deviceBytes(val.type);
    plan.naiveActivationBytes += alignUp(size, kArenaAlign);
    int& gi = groupIndex[size_t(root)];
    if (gi < 0) {
      gi = int(intervals.size());
      intervals.push_back({root, begin, end, size, 0, levelBegin, levelEnd});
    } else {
      Interval& iv = intervals[size_t(gi)];
      iv.begin = std::min(iv.begin, begin);
      iv.end = std::max(iv.end, end);
      iv.levelBegin = std::min(iv.levelBegin, levelBegin);
      iv.levelEnd = std::max(iv.levelEnd, levelEnd);
      iv.size = std::max(iv.size, size);
    }
  }
  (void)uses;

  // Greedy by size (largest first, ties by begin for determinism): lowest
  // offset that overlaps no placed interval live at the same time.
  std::vector<size_t> order(intervals.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (intervals[a].size != intervals[b].size) return intervals[a].size > intervals[b].size;
    return intervals[a].begin < intervals[b].begin;
  });
  auto place = [&](bool byLevel) {
    // Placed intervals by the blocks of steps (and of levels) they span:
    // placing one looks only at those live near it, not at every one.
    LiveIndex bySteps(steps + 1), byLevels(maxLevel + 2);
    std::vector<size_t> seen(intervals.size(), SIZE_MAX);
    std::vector<std::pair<uint64_t, uint64_t>> busy;
    uint64_t peak = 0;
    for (size_t i : order) {
      Interval& iv = intervals[i];
      busy.clear();
      auto consider = [&](size_t j) {
        if (seen[j] == i) return;
        seen[j] = i;
        const Interval& o = intervals[j];
        bool overlap = o.begin <= iv.end && iv.begin <= o.end;
        if (byLevel) overlap = overlap || (o.levelBegin <= iv.levelEnd && iv.levelBegin <= o.levelEnd);
        if (overlap) busy.push_back({o.offset, o.offset + o.size});
      };
      bySteps.forEach(iv.begin, iv.end, consider);
      if (byLevel) byLevels.forEach(iv.levelBegin, iv.levelEnd, consider);
      std::sort(busy.begin(), busy.end());
      uint64_t off = 0;
      for (auto [b, e] : busy) {
        if (off + iv.size <= b) break;
        off = std::max(off, alignUp(e, kArenaAlign));
      }
      iv.offset = off;
      peak = std::max(peak, alignUp(off + iv.size, kArenaAlign));
      bySteps.add(iv.begin, iv.end, i);
      if (byLevel) byLevels.add(iv.levelBegin, iv.levelEnd, i);
    }
    return peak;
  };
  plan.stepPeakBytes = place(false);
  const std::vector<Interval> stepPlaced = intervals;
  plan.activationBytes = place(true);
  plan.byLevel = true;
  // "Much more": over a quarter more, and over 1 MiB more.
  if (plan.activationBytes > plan.stepPeakBytes + std::max<uint64_t>(plan.stepPeakBytes / 4, uint64_t(1) << 20)) {
    intervals = stepPlaced;
    plan.activationBytes = plan.stepPeakBytes;
    plan.byLevel = false;
  }

  for (size_t v = 0; v < nv; ++v) {
    if (g.values[v].isConstant() || inState(ValueId(v))) continue;
    int gi = groupIndex[size_t(uf.find(int(v)))];
    if (gi < 0) continue;
    plan.slots[v] = {1, intervals[size_t(gi)].offset, deviceBytes(g.values[v].type)};
  }
  return plan;
}

}  // namespace mgc
