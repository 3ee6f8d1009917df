// Reference inputs and outputs for the bundle's self-check (self_check.h).
#include "compiler/self_check.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/eval.h"

namespace mgc {
namespace {

constexpr int64_t kNoBound = std::numeric_limits<int64_t>::max();
constexpr uint64_t kSeed = 0x6d67632d63686b31ull;  // "mgc-chk1": fixed, so bundles are reproducible

// Ops that pass an integer's values on unchanged (their input 0).
bool forwardsValues(Op op) {
  return op == Op::Identity || op == Op::Reshape || op == Op::Transpose || op == Op::Slice || op == Op::Expand ||
         op == Op::Concat || op == Op::Cast;
}

int64_t axisDim(const Graph& g, const Node& n, ValueId data) {
  const Shape& s = g.type(data).shape;
  int64_t axis = n.i("axis", 0);
  if (axis < 0) axis += int64_t(s.size());
  return axis >= 0 && axis < int64_t(s.size()) ? s[size_t(axis)] : kNoBound;
}

// The exclusive upper bound that use k of value v by node n puts on v's
// values, or kNoBound when n does not index with it.
int64_t indexBound(const Graph& g, const Node& n, size_t k) {
  switch (n.op) {
    case Op::Gather:
    case Op::GatherElements:
    case Op::ScatterElements:
      return k == 1 ? axisDim(g, n, n.inputs[0]) : kNoBound;
    case Op::StateWrite:  // offset: any value writes nothing out of range, but in range is the useful case
      return k == 2 ? axisDim(g, n, n.inputs[0]) - axisDim(g, n, n.inputs[1]) + 1 : kNoBound;
    case Op::AttentionCache:  // offset: as StateWrite's, along the caches' rows
      return k == 5 ? g.type(n.inputs[3]).shape[2] - g.type(n.inputs[0]).shape[2] + 1 : kNoBound;
    default:
      return kNoBound;
  }
}

// The smallest index bound over v's uses, following value-forwarding ops.
int64_t valueBound(const Graph& g, ValueId v, int depth = 0) {
  int64_t bound = kNoBound;
  if (depth > 16) return bound;
  for (const Node& n : g.nodes)
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      if (n.inputs[k] != v) continue;
      bound = std::min(bound, indexBound(g, n, k));
      if (forwardsValues(n.op))
        for (ValueId out : n.outputs) bound = std::min(bound, valueBound(g, out, depth + 1));
    }
  return bound;
}

// splitmix64: a small, well-mixed generator with the same output everywhere.
struct Random {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double unit() { return double(next() >> 11) / 9007199254740992.0; }  // [0, 1)
};

HostTensor makeInput(const Graph& g, ValueId v, uint64_t index) {
  HostTensor t(g.type(v));
  Random r{kSeed ^ (index * 0x100000001b3ull)};
  const DType dt = t.type.dtype;
  const int64_t bound = isFloat(dt) || dt == DType::Bool ? kNoBound : valueBound(g, v);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (isFloat(dt))
      t.setF(i, 2 * r.unit() - 1);
    else if (dt == DType::Bool)
      t.setI(i, int64_t(r.next() >> 63));
    else if (bound != kNoBound)
      t.setI(i, bound > 0 ? int64_t(r.next() % uint64_t(bound)) : 0);
    else
      t.setI(i, 1 + int64_t(r.next() % 7));
  }
  return t;
}

}  // namespace

std::string selfCheckRefusal(const Graph& g) {
  if (!g.stateUpdates.empty()) return "it updates state (a KV cache, a training step)";
  for (const Value& v : g.values)
    if (v.isState) return "it reads state ('" + v.name + "'), whose value changes after load";
  return "";
}

std::map<std::string, HostTensor> referenceInputs(const Graph& g) {
  std::map<std::string, HostTensor> inputs;
  for (size_t k = 0; k < g.inputs.size(); ++k) inputs[g.value(g.inputs[k]).name] = makeInput(g, g.inputs[k], k);
  return inputs;
}

mgb::CheckEntry makeSelfCheck(const Graph& g, const std::string& name, double tolerance, const std::string& source) {
  const std::map<std::string, HostTensor> inputs = referenceInputs(g);
  std::map<std::string, HostTensor> outputs;
  try {
    outputs = evalGraph(g, inputs);
  } catch (const Error& e) {
    throw Error(source + ": --embed-check: the reference evaluator cannot run entry point '" + name + "': " + e.what());
  }
  mgb::CheckEntry c;
  c.entryPoint = name;
  c.tolerance = tolerance;
  for (ValueId v : g.inputs) c.inputs.push_back(inputs.at(g.value(v).name).data);
  for (ValueId v : g.outputs) {
    auto it = outputs.find(g.value(v).name);
    if (it == outputs.end() || it->second.type != g.type(v))
      throw Error(source + ": --embed-check: the reference evaluator gave no " + g.type(v).str() + " output '" +
                  g.value(v).name + "'");
    c.outputs.push_back(it->second.data);
  }
  return c;
}

}  // namespace mgc
