// The IR: one SSA graph of typed, statically shaped tensor ops.
//
// Values are tensors (graph inputs, constants, node results); nodes are ops
// from the op table (ops.def) in topological order. Every value has a
// static TensorType. Constants carry their data (HostTensor).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "ir/types.h"

namespace mgc {

enum class Op : uint16_t {
#define OP(id, name, mi, ma, no, cls) id,
#include "ir/ops.def"
#undef OP
};
constexpr int kNumOps = 0
#define OP(id, name, mi, ma, no, cls) +1
#include "ir/ops.def"
#undef OP
    ;

enum class OpClass : uint8_t { Unary, Binary, Other };

struct OpInfo {
  const char* name;
  int minInputs, maxInputs, numOutputs;
  OpClass cls;
};
const OpInfo& opInfo(Op op);
const char* opName(Op op);
bool parseOp(std::string_view name, Op* out);

using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>>;
using Attrs = std::map<std::string, AttrValue>;

using ValueId = int32_t;
using NodeId = int32_t;
constexpr ValueId kNoValue = -1;

struct Value {
  std::string name;   // unique within the graph
  TensorType type;
  std::shared_ptr<const HostTensor> constant;  // set for constants
  NodeId producer = -1;                        // -1: graph input or constant
  // State (training): a tensor that persists across runs of the bundle's
  // entry points (weights, optimizer moments, running stats, step counter).
  // Like a graph input it is defined before the first node and is never
  // folded; `initial` is its value when the bundle is loaded, or null when
  // that value is all zeros (Graph::addZeroState: optimizer moments, KV
  // caches; no host bytes are held, and the bundle stores none).
  bool isState = false;
  std::shared_ptr<const HostTensor> initial;
  bool isConstant() const { return constant != nullptr; }
  bool isZeroState() const { return isState && !initial; }
  // A state's initial value as bytes: `initial`, or a fresh zero tensor.
  std::shared_ptr<const HostTensor> initialValue() const;
};

struct Node {
  Op op;
  std::string name;  // from the source model where known (for error messages)
  std::vector<ValueId> inputs;  // kNoValue for an absent optional input
  std::vector<ValueId> outputs;
  Attrs attrs;

  bool has(const std::string& k) const { return attrs.count(k) != 0; }
  int64_t i(const std::string& k, std::optional<int64_t> def = std::nullopt) const;
  double f(const std::string& k, std::optional<double> def = std::nullopt) const;
  const std::string& s(const std::string& k) const;
  std::vector<int64_t> ints(const std::string& k, std::optional<std::vector<int64_t>> def = std::nullopt) const;
  std::vector<double> floats(const std::string& k) const;
};

// Ops that write a state in place (StateWrite, AttentionCache): the input
// whose state output `output` of n is the new value of, or -1 when that
// output is an ordinary value. The verifier and the memory planner apply
// StateWrite's in-place rules (ir/ops.def) to every such pair.
int inPlaceStateInput(const Node& n, size_t output);

class Graph {
 public:
  std::string name = "main";
  std::vector<Value> values;
  std::vector<Node> nodes;      // topological order
  std::vector<ValueId> inputs;  // runtime inputs (not constants)
  std::vector<ValueId> outputs;
  // (state value, its new value at the end of the run). The new values count
  // as uses (useCounts) and live to the end of the run (memory planning).
  std::vector<std::pair<ValueId, ValueId>> stateUpdates;
  // Training imports: the names of the constants that are the model's
  // parameters (ONNX initializers), as opposed to constants the model
  // computes with (Constant nodes, folded tables such as RoPE or positional
  // encodings). Empty: every float constant of rank >= 1 may be one (text IR).
  std::set<std::string> parameterCandidates;

  ValueId addInput(const std::string& name, TensorType t);
  ValueId addConstant(const std::string& name, HostTensor t);
  ValueId addState(const std::string& name, HostTensor initial);
  // A state whose initial value is all zeros, without its bytes.
  ValueId addZeroState(const std::string& name, TensorType t);
  // Appends a node, creates its output values, and infers their types with
  // the op's shape rule (throws mgc::Error naming the node on bad input).
  NodeId addNode(Op op, const std::string& name, std::vector<ValueId> inputs, Attrs attrs = {},
                 int numOutputs = -1);
  // Appends a node whose output values already exist.
  NodeId addNodeWithOutputs(Op op, const std::string& name, std::vector<ValueId> inputs,
                            std::vector<ValueId> outputs, Attrs attrs);
  ValueId addValue(const std::string& name, TensorType t);  // an unattached value

  Value& value(ValueId v) { return values.at(size_t(v)); }
  const Value& value(ValueId v) const { return values.at(size_t(v)); }
  const TensorType& type(ValueId v) const { return value(v).type; }
  // Value by name, or kNoValue.
  ValueId find(const std::string& name) const;
  // A fresh value name starting with `base`.
  std::string uniqueName(const std::string& base);

  // Replace every use of `from` (node inputs, graph outputs, new values of
  // state updates) with `to`.
  void replaceAllUses(ValueId from, ValueId to);
  // Drop nodes whose outputs are unused (and unused constants), renumber
  // nothing: value ids stay stable; removed nodes disappear from `nodes`.
  // With `removable`, only the unused nodes it accepts go (and, through
  // them, their inputs' producers it accepts).
  void removeDeadNodes(const std::function<bool(const Node&)>& removable = nullptr);
  // Recompute Value::producer from `nodes`.
  void rebuildProducers();
  // Number of uses of each value (node inputs + graph outputs).
  std::vector<int> useCounts() const;

 private:
  std::map<std::string, ValueId> byName_;
  int nameCounter_ = 0;
};

// Shape rule of every op: the types of the node's outputs, computed from its
// inputs and attributes. Throws mgc::Error naming the node on invalid input.
std::vector<TensorType> inferTypes(const Graph& g, const Node& n);

// Numpy broadcasting of two shapes; throws mgc::Error on mismatch.
Shape broadcastShapes(const Shape& a, const Shape& b);

}  // namespace mgc
