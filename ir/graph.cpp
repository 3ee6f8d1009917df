#include "ir/graph.h"

#include <algorithm>

namespace mgc {

static const OpInfo kOpInfos[] = {
#define OP(id, name, mi, ma, no, cls) {name, mi, ma, no, OpClass::cls},
#include "ir/ops.def"
#undef OP
};
static_assert(sizeof(kOpInfos) / sizeof(kOpInfos[0]) == size_t(kNumOps), "op table out of sync");

const OpInfo& opInfo(Op op) { return kOpInfos[size_t(op)]; }
const char* opName(Op op) { return kOpInfos[size_t(op)].name; }

bool parseOp(std::string_view name, Op* out) {
  for (int i = 0; i < kNumOps; ++i) {
    if (name == kOpInfos[i].name) {
      *out = Op(i);
      return true;
    }
  }
  return false;
}

static Error attrError(const Node& n, const std::string& k, const char* what) {
  return Error("node '" + n.name + "' (" + opName(n.op) + "): attribute '" + k + "' " + what);
}

int64_t Node::i(const std::string& k, std::optional<int64_t> def) const {
  auto it = attrs.find(k);
  if (it == attrs.end()) {
    if (def) return *def;
    throw attrError(*this, k, "is missing");
  }
  if (auto* v = std::get_if<int64_t>(&it->second)) return *v;
  if (auto* d = std::get_if<double>(&it->second)) {
    if (!(*d >= -9.2e18 && *d <= 9.2e18)) throw attrError(*this, k, "is out of range");
    return int64_t(*d);
  }
  throw attrError(*this, k, "is not an integer");
}

double Node::f(const std::string& k, std::optional<double> def) const {
  auto it = attrs.find(k);
  if (it == attrs.end()) {
    if (def) return *def;
    throw attrError(*this, k, "is missing");
  }
  if (auto* v = std::get_if<double>(&it->second)) return *v;
  if (auto* i = std::get_if<int64_t>(&it->second)) return double(*i);
  throw attrError(*this, k, "is not a number");
}

const std::string& Node::s(const std::string& k) const {
  auto it = attrs.find(k);
  if (it == attrs.end()) throw attrError(*this, k, "is missing");
  if (auto* v = std::get_if<std::string>(&it->second)) return *v;
  throw attrError(*this, k, "is not a string");
}

std::vector<int64_t> Node::ints(const std::string& k, std::optional<std::vector<int64_t>> def) const {
  auto it = attrs.find(k);
  if (it == attrs.end()) {
    if (def) return *def;
    throw attrError(*this, k, "is missing");
  }
  if (auto* v = std::get_if<std::vector<int64_t>>(&it->second)) return *v;
  if (auto* d = std::get_if<std::vector<double>>(&it->second)) {
    if (d->empty()) return {};
  }
  throw attrError(*this, k, "is not an integer list");
}

std::vector<double> Node::floats(const std::string& k) const {
  auto it = attrs.find(k);
  if (it == attrs.end()) throw attrError(*this, k, "is missing");
  if (auto* v = std::get_if<std::vector<double>>(&it->second)) return *v;
  if (auto* i = std::get_if<std::vector<int64_t>>(&it->second)) return std::vector<double>(i->begin(), i->end());
  throw attrError(*this, k, "is not a float list");
}

ValueId Graph::addValue(const std::string& nm, TensorType t) {
  std::string n = nm.empty() || byName_.count(nm) ? uniqueName(nm.empty() ? "v" : nm) : nm;
  ValueId id = ValueId(values.size());
  Value val;
  val.name = n;
  val.type = std::move(t);
  values.push_back(std::move(val));
  byName_[n] = id;
  return id;
}

ValueId Graph::addInput(const std::string& nm, TensorType t) {
  ValueId v = addValue(nm, std::move(t));
  inputs.push_back(v);
  return v;
}

ValueId Graph::addConstant(const std::string& nm, HostTensor t) {
  TensorType ty = t.type;
  ValueId v = addValue(nm, ty);
  values[size_t(v)].constant = std::make_shared<const HostTensor>(std::move(t));
  return v;
}

ValueId Graph::addState(const std::string& nm, HostTensor t) {
  TensorType ty = t.type;
  ValueId v = addValue(nm, ty);
  values[size_t(v)].isState = true;
  values[size_t(v)].initial = std::make_shared<const HostTensor>(std::move(t));
  return v;
}

ValueId Graph::addZeroState(const std::string& nm, TensorType t) {
  ValueId v = addValue(nm, std::move(t));
  values[size_t(v)].isState = true;
  return v;
}

std::shared_ptr<const HostTensor> Value::initialValue() const {
  return initial ? initial : std::make_shared<const HostTensor>(type);
}

int inPlaceStateInput(const Node& n, size_t output) {
  if (n.op == Op::StateWrite && output == 0) return 0;
  if (n.op == Op::AttentionCache && (output == 1 || output == 2)) return int(output) + 2;  // k_cache, v_cache
  return -1;
}

NodeId Graph::addNode(Op op, const std::string& nm, std::vector<ValueId> ins, Attrs attrs, int numOutputs) {
  Node n{op, nm, std::move(ins), {}, std::move(attrs)};
  std::vector<TensorType> types = inferTypes(*this, n);
  int count = numOutputs < 0 ? int(types.size()) : numOutputs;
  for (int i = 0; i < count; ++i) {
    std::string base = nm.empty() ? std::string(opName(op)) : nm;
    n.outputs.push_back(addValue(count == 1 ? base : base + "_" + std::to_string(i), types.at(size_t(i))));
  }
  NodeId id = NodeId(nodes.size());
  for (ValueId o : n.outputs) values[size_t(o)].producer = id;
  nodes.push_back(std::move(n));
  return id;
}

NodeId Graph::addNodeWithOutputs(Op op, const std::string& nm, std::vector<ValueId> ins, std::vector<ValueId> outs,
                                 Attrs attrs) {
  NodeId id = NodeId(nodes.size());
  for (ValueId o : outs) values.at(size_t(o)).producer = id;
  nodes.push_back(Node{op, nm, std::move(ins), std::move(outs), std::move(attrs)});
  return id;
}

ValueId Graph::find(const std::string& nm) const {
  auto it = byName_.find(nm);
  return it == byName_.end() ? kNoValue : it->second;
}

std::string Graph::uniqueName(const std::string& base) {
  for (;;) {
    std::string n = base + "." + std::to_string(nameCounter_++);
    if (!byName_.count(n)) return n;
  }
}

void Graph::replaceAllUses(ValueId from, ValueId to) {
  for (Node& n : nodes)
    for (ValueId& v : n.inputs)
      if (v == from) v = to;
  for (ValueId& v : outputs)
    if (v == from) v = to;
  for (auto& u : stateUpdates)
    if (u.second == from) u.second = to;
}

std::vector<int> Graph::useCounts() const {
  std::vector<int> uses(values.size(), 0);
  for (const Node& n : nodes)
    for (ValueId v : n.inputs)
      if (v >= 0) ++uses[size_t(v)];
  for (ValueId v : outputs) ++uses[size_t(v)];
  for (const auto& u : stateUpdates) ++uses[size_t(u.second)];
  return uses;
}

void Graph::removeDeadNodes(const std::function<bool(const Node&)>& removable) {
  std::vector<int> uses = useCounts();
  std::vector<bool> dead(nodes.size(), false);
  for (size_t k = nodes.size(); k-- > 0;) {
    bool used = false;
    for (ValueId o : nodes[k].outputs) used |= uses[size_t(o)] > 0;
    if (used || (removable && !removable(nodes[k]))) continue;
    dead[k] = true;
    for (ValueId v : nodes[k].inputs)
      if (v >= 0) --uses[size_t(v)];
  }
  std::vector<Node> kept;
  for (size_t k = 0; k < nodes.size(); ++k)
    if (!dead[k]) kept.push_back(std::move(nodes[k]));
  nodes = std::move(kept);
  rebuildProducers();
}

void Graph::rebuildProducers() {
  for (Value& v : values)
    if (v.producer >= 0) v.producer = -1;
  for (size_t k = 0; k < nodes.size(); ++k)
    for (ValueId o : nodes[k].outputs) values[size_t(o)].producer = NodeId(k);
}

}  // namespace mgc
