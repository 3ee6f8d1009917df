// verify: the structural and type invariants every pass may assume and must
// preserve. Runs first in the pipeline and, in `mgc opt` and tests, after
// every pass. It never changes the graph.
//
//   graph inputs   are distinct, non-constant, produced by no node
//   constants      carry data of exactly type.bytes() bytes, of their type
//   nodes          appear after the values they use (topological order),
//                  have the op table's arity, define fresh values whose
//                  types equal the shape rule's (inferTypes)
//   value names    are unique among live values
//   graph outputs  are defined values
//   state updates  name a state value, once, with a defined new value of
//                  its type
//   state_write    writes a state value in place: its result is that
//                  state's new value (not a graph output), and no later node
//                  reads the old value (directly or through reshape /
//                  identity views of it); attention_cache's two cache
//                  results likewise (inPlaceStateInput, ir/graph.h)
#include <set>
#include <string>

#include "ir/infer_checked.h"
#include "ir/printer.h"
#include "passes/graph/passes.h"

namespace mgc {

namespace {

std::string describeValue(const Graph& g, ValueId v) {
  if (v < 0 || size_t(v) >= g.values.size()) return "value #" + std::to_string(v);
  return printValueName(g.values[size_t(v)].name);
}

[[noreturn]] void failNode(const Node& n, const std::string& why) {
  throw Error("verify: node '" + n.name + "' (" + opName(n.op) + "): " + why);
}

bool validId(const Graph& g, ValueId v) { return v >= 0 && size_t(v) < g.values.size(); }

// state_write (and attention_cache's caches) run in place
// (passes/plan/memory_plan.cpp): the old value must be dead once it is
// written, and the write must be the state's update. `input` is the state
// operand, `output` the result that is its new value.
void verifyInPlaceWrite(const Graph& g, size_t k, size_t input, size_t output) {
  const Node& n = g.nodes[k];
  const ValueId state = n.inputs[input], result = n.outputs[output];
  const std::string in = "input " + std::to_string(input);
  if (!g.value(state).isState) failNode(n, in + " " + describeValue(g, state) + " is not a state value");
  bool isUpdate = false;
  for (const auto& [s, next] : g.stateUpdates) isUpdate = isUpdate || (s == state && next == result);
  if (!isUpdate)
    failNode(n, "its result " + describeValue(g, result) + " must be the new value of " + describeValue(g, state) +
                    " (update " + describeValue(g, state) + " = " + describeValue(g, result) + ")");
  for (ValueId v : g.outputs)
    if (v == result) failNode(n, "its result " + describeValue(g, result) + " is a graph output (read the state instead)");
  // Views share the state's storage: reading one later reads the old value.
  std::set<ValueId> old{state};
  for (size_t j = 0; j < g.nodes.size(); ++j) {
    const Node& m = g.nodes[j];
    bool readsOld = false;
    for (ValueId v : m.inputs) readsOld = readsOld || old.count(v) != 0;
    if (!readsOld) continue;
    if (j > k) failNode(n, "node '" + m.name + "' reads " + describeValue(g, state) + " after it is written");
    if (m.op == Op::Reshape || m.op == Op::Identity) old.insert(m.outputs[0]);
  }
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (i != input && old.count(n.inputs[i]))
      failNode(n, "input " + std::to_string(i) + " " + describeValue(g, n.inputs[i]) + " is the state it writes");
  for (ValueId v : g.outputs)
    if (old.count(v)) failNode(n, "graph output " + describeValue(g, v) + " reads the old value of " + describeValue(g, state));
  for (const auto& [s, next] : g.stateUpdates)
    if (old.count(next))
      failNode(n, "the update of " + describeValue(g, s) + " reads the old value of " + describeValue(g, state));
}

}  // namespace

void verifyGraph(Graph& g) {
  std::vector<bool> defined(g.values.size(), false);
  std::set<std::string> names;
  auto define = [&](ValueId v, const std::string& what) {
    if (!names.insert(g.values[size_t(v)].name).second)
      throw Error("verify: " + what + " " + describeValue(g, v) + ": value name is not unique");
    defined[size_t(v)] = true;
  };

  for (ValueId v : g.inputs) {
    if (!validId(g, v)) throw Error("verify: graph input " + describeValue(g, v) + " does not exist");
    const Value& val = g.value(v);
    if (defined[size_t(v)]) throw Error("verify: graph input " + describeValue(g, v) + " is listed twice");
    if (val.isConstant()) throw Error("verify: graph input " + describeValue(g, v) + " is a constant");
    if (val.producer >= 0) throw Error("verify: graph input " + describeValue(g, v) + " is produced by a node");
    define(v, "graph input");
  }
  for (size_t k = 0; k < g.values.size(); ++k) {
    const Value& val = g.values[k];
    if (!val.isConstant()) continue;
    ValueId v = ValueId(k);
    if (defined[k]) throw Error("verify: constant " + describeValue(g, v) + " is also a graph input");
    if (val.producer >= 0) throw Error("verify: constant " + describeValue(g, v) + " is produced by a node");
    if (val.constant->type != val.type)
      throw Error("verify: constant " + describeValue(g, v) + " holds data of type " + val.constant->type.str() +
                  " but is typed " + val.type.str());
    if (val.constant->data.size() != val.type.bytes())
      throw Error("verify: constant " + describeValue(g, v) + " of type " + val.type.str() + " has " +
                  std::to_string(val.constant->data.size()) + " bytes of data, expected " +
                  std::to_string(val.type.bytes()));
    define(v, "constant");
  }
  // State values (training): defined like inputs, before every node.
  for (size_t k = 0; k < g.values.size(); ++k) {
    const Value& val = g.values[k];
    if (!val.isState) continue;
    ValueId v = ValueId(k);
    if (defined[k]) throw Error("verify: state " + describeValue(g, v) + " is also a graph input or constant");
    if (val.producer >= 0) throw Error("verify: state " + describeValue(g, v) + " is produced by a node");
    // No initial tensor: the state starts as zeros (Graph::addZeroState).
    if (val.initial && (val.initial->type != val.type || val.initial->data.size() != val.type.bytes()))
      throw Error("verify: state " + describeValue(g, v) + " of type " + val.type.str() +
                  " has an initial value of type " + val.initial->type.str() + " (" +
                  std::to_string(val.initial->data.size()) + " bytes)");
    define(v, "state");
  }

  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& n = g.nodes[k];
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      ValueId v = n.inputs[i];
      if (v == kNoValue) continue;  // absent optional input: arity rules below
      if (!validId(g, v)) failNode(n, "input " + std::to_string(i) + " is not a value (#" + std::to_string(v) + ")");
      if (!defined[size_t(v)])
        failNode(n, "input " + std::to_string(i) + " " + describeValue(g, v) + " is used before it is defined");
    }
    const OpInfo& info = opInfo(n.op);
    if (int(n.outputs.size()) != info.numOutputs)
      failNode(n, "has " + std::to_string(n.outputs.size()) + " outputs, op table says " + std::to_string(info.numOutputs));
    std::vector<TensorType> types;
    try {
      types = inferTypesChecked(g, n);  // also checks arity and `none` placement
    } catch (const Error& e) {
      throw Error(std::string("verify: ") + e.what());
    }
    if (types.size() != n.outputs.size())
      failNode(n, "the shape rule gives " + std::to_string(types.size()) + " result types for " +
                      std::to_string(n.outputs.size()) + " outputs");
    for (size_t o = 0; o < n.outputs.size(); ++o) {
      ValueId v = n.outputs[o];
      if (!validId(g, v)) failNode(n, "output " + std::to_string(o) + " is not a value (#" + std::to_string(v) + ")");
      if (defined[size_t(v)]) failNode(n, "output " + describeValue(g, v) + " is already defined");
      const Value& val = g.value(v);
      if (val.isConstant()) failNode(n, "output " + describeValue(g, v) + " is a constant");
      if (val.producer != NodeId(k))
        failNode(n, "output " + describeValue(g, v) + " records producer " + std::to_string(val.producer) +
                        ", expected " + std::to_string(k));
      if (val.type != types[o])
        failNode(n, "output " + describeValue(g, v) + " is typed " + val.type.str() + " but the shape rule gives " +
                        types[o].str());
      define(v, "node output");
    }
  }

  for (size_t k = 0; k < g.outputs.size(); ++k) {
    ValueId v = g.outputs[k];
    if (!validId(g, v) || !defined[size_t(v)])
      throw Error("verify: graph output " + std::to_string(k) + " " + describeValue(g, v) + " is not defined");
  }
  std::set<ValueId> updated;
  for (const auto& [state, next] : g.stateUpdates) {
    if (!validId(g, state) || !g.value(state).isState)
      throw Error("verify: state update of " + describeValue(g, state) + ": not a state value");
    if (!validId(g, next) || !defined[size_t(next)])
      throw Error("verify: state update of " + describeValue(g, state) + ": new value " + describeValue(g, next) +
                  " is not defined");
    if (g.type(next) != g.type(state))
      throw Error("verify: state update of " + describeValue(g, state) + ": new value is " + g.type(next).str() +
                  ", state is " + g.type(state).str());
    if (!updated.insert(state).second)
      throw Error("verify: state " + describeValue(g, state) + " is updated twice");
  }
  for (size_t k = 0; k < g.nodes.size(); ++k)
    for (size_t o = 0; o < g.nodes[k].outputs.size(); ++o) {
      const int input = inPlaceStateInput(g.nodes[k], o);
      if (input >= 0) verifyInPlaceWrite(g, k, size_t(input), o);
    }
}

}  // namespace mgc
