// The NodeContext helpers every converter uses (the graph building itself
// is GraphBuilder's, ir/builder.h).
#include <algorithm>

#include "compiler/onnx/importer.h"
#include "compiler/onnx/tensor_proto.h"

namespace mgc::onnximport {

// ---- NodeContext: identity and errors ---------------------------------------

NodeContext::NodeContext(Importer& importer, const onnx::NodeProto& p, int opsetVersion)
    : im(importer), proto(p), opset(opsetVersion) {
  name = !p.name().empty() ? p.name() : p.output_size() > 0 ? p.output(0) : std::string();
  for (const onnx::AttributeProto& a : p.attribute()) attrs_[a.name()] = &a;
}

std::string NodeContext::describe() const {
  std::string domain = proto.domain().empty() ? "ai.onnx" : proto.domain();
  return "node '" + name + "' (" + opType() + ", " + domain + " opset " + std::to_string(opset) + ")";
}

void NodeContext::fail(const std::string& why) const {
  throw NodeProblem(im.source + ": " + describe() + ": " + why, why, false);
}

void NodeContext::unsupported(const std::string& why) const {
  throw NodeProblem(im.source + ": " + describe() + ": " + why, why, true);
}

int64_t NodeContext::normAxis(int64_t axis, int64_t rank, const char* what) const {
  if (axis < -rank || axis >= rank)
    fail(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

// ---- inputs -------------------------------------------------------------------

ValueId NodeContext::input(int k) const {
  if (!hasInput(k)) fail("input " + std::to_string(k) + " is missing");
  return im.values.at(proto.input(k));  // the import loop bound every present input
}

ValueId NodeContext::optInput(int k) const { return hasInput(k) ? input(k) : kNoValue; }

const HostTensor* NodeContext::constInput(int k, const char* what) const {
  if (!hasInput(k)) return nullptr;
  const Value& v = im.g.value(input(k));
  if (!v.isConstant()) unsupported(std::string(what) + " (input '" + proto.input(k) + "') must be a constant");
  return v.constant.get();
}

std::optional<std::vector<int64_t>> NodeContext::intsInput(int k, const char* what) const {
  const HostTensor* t = constInput(k, what);
  if (!t) return std::nullopt;
  if (t->type.dtype != DType::I64 && t->type.dtype != DType::I32)
    fail(std::string(what) + " must be an integer tensor, got " + t->type.str());
  if (t->type.rank() > 1) fail(std::string(what) + " must be 1-D, got " + t->type.str());
  std::vector<int64_t> r(size_t(t->numel()));
  for (int64_t i = 0; i < t->numel(); ++i) r[size_t(i)] = t->getI(i);
  return r;
}

// ---- attributes ---------------------------------------------------------------

namespace {

// The attribute's type, inferred from its fields for old files that leave
// `type` unset.
onnx::AttributeProto::AttributeType attrType(const onnx::AttributeProto& a) {
  if (a.type() != onnx::AttributeProto::UNDEFINED) return a.type();
  if (a.has_f()) return onnx::AttributeProto::FLOAT;
  if (a.has_i()) return onnx::AttributeProto::INT;
  if (a.has_s()) return onnx::AttributeProto::STRING;
  if (a.has_t()) return onnx::AttributeProto::TENSOR;
  if (a.floats_size()) return onnx::AttributeProto::FLOATS;
  if (a.ints_size()) return onnx::AttributeProto::INTS;
  return onnx::AttributeProto::UNDEFINED;
}

}  // namespace

int64_t NodeContext::attrInt(const std::string& n, std::optional<int64_t> def) const {
  auto it = attrs_.find(n);
  if (it == attrs_.end()) {
    if (def) return *def;
    fail("attribute '" + n + "' is missing");
  }
  if (attrType(*it->second) != onnx::AttributeProto::INT) fail("attribute '" + n + "' is not an integer");
  return it->second->i();
}

double NodeContext::attrFloat(const std::string& n, std::optional<double> def) const {
  auto it = attrs_.find(n);
  if (it == attrs_.end()) {
    if (def) return *def;
    fail("attribute '" + n + "' is missing");
  }
  auto t = attrType(*it->second);
  if (t == onnx::AttributeProto::INT) return double(it->second->i());
  if (t != onnx::AttributeProto::FLOAT) fail("attribute '" + n + "' is not a float");
  return it->second->f();
}

std::string NodeContext::attrString(const std::string& n, std::optional<std::string> def) const {
  auto it = attrs_.find(n);
  if (it == attrs_.end()) {
    if (def) return *def;
    fail("attribute '" + n + "' is missing");
  }
  if (attrType(*it->second) != onnx::AttributeProto::STRING) fail("attribute '" + n + "' is not a string");
  return it->second->s();
}

std::vector<int64_t> NodeContext::attrInts(const std::string& n, std::optional<std::vector<int64_t>> def) const {
  auto it = attrs_.find(n);
  if (it == attrs_.end()) {
    if (def) return *def;
    fail("attribute '" + n + "' is missing");
  }
  auto t = attrType(*it->second);
  if (t != onnx::AttributeProto::INTS && t != onnx::AttributeProto::UNDEFINED)
    fail("attribute '" + n + "' is not an integer list");
  return std::vector<int64_t>(it->second->ints().begin(), it->second->ints().end());
}

std::vector<double> NodeContext::attrFloats(const std::string& n) const {
  auto it = attrs_.find(n);
  if (it == attrs_.end()) fail("attribute '" + n + "' is missing");
  auto t = attrType(*it->second);
  if (t != onnx::AttributeProto::FLOATS && t != onnx::AttributeProto::UNDEFINED)
    fail("attribute '" + n + "' is not a float list");
  return std::vector<double>(it->second->floats().begin(), it->second->floats().end());
}

const onnx::TensorProto& NodeContext::attrTensor(const std::string& n) const {
  auto it = attrs_.find(n);
  if (it == attrs_.end()) fail("attribute '" + n + "' is missing");
  if (attrType(*it->second) != onnx::AttributeProto::TENSOR) fail("attribute '" + n + "' is not a tensor");
  return it->second->t();
}

void NodeContext::onlyAttrs(std::initializer_list<const char*> known) const {
  for (const auto& entry : attrs_) {
    const std::string& n = entry.first;  // not a structured binding: clang 14 cannot capture those
    // Opsets 1..5: an in-place buffer-reuse hint without meaning for the result.
    if (n == "consumed_inputs" && opset < 6 && (proto.domain().empty() || proto.domain() == "ai.onnx")) continue;
    bool ok = std::any_of(known.begin(), known.end(), [&](const char* k) { return n == k; });
    if (!ok) unsupported("attribute '" + n + "' is not supported");
  }
}

// ---- outputs ------------------------------------------------------------------

bool NodeContext::outputUsed(int k) const {
  if (k >= proto.output_size() || proto.output(k).empty()) return false;
  auto it = im.uses.find(proto.output(k));
  return it != im.uses.end() && it->second > 0;
}

void NodeContext::requireUnused(int fromOutput, const char* why) const {
  for (int k = fromOutput; k < proto.output_size(); ++k)
    if (outputUsed(k)) unsupported("output " + std::to_string(k) + " ('" + proto.output(k) + "') is used: " + why);
}

ValueId NodeContext::emit(Op op, std::vector<ValueId> inputs, Attrs attrs) {
  try {
    return im.emit(op, std::move(inputs), std::move(attrs), name, "");
  } catch (const NodeProblem&) {
    throw;
  } catch (const Error& e) {
    fail(e.what());
  }
}

void NodeContext::emitOutput(int k, Op op, std::vector<ValueId> inputs, Attrs attrs) {
  if (k >= proto.output_size()) fail("output " + std::to_string(k) + " is missing");
  const std::string& out = proto.output(k);
  if (im.values.count(out)) fail("value '" + out + "' is defined twice");
  ValueId v;
  try {
    v = im.emit(op, std::move(inputs), std::move(attrs), name, out.empty() ? "" : out);
  } catch (const NodeProblem&) {
    throw;
  } catch (const Error& e) {
    fail(e.what());
  }
  bind(k, v);
}

void NodeContext::setOutput(int k, ValueId v) {
  if (k < proto.output_size() && im.graphOutputs.count(proto.output(k))) {
    emitOutput(k, Op::Identity, {v});
    return;
  }
  bind(k, v);
}

void NodeContext::setOutputConstant(int k, HostTensor t) {
  if (k >= proto.output_size()) fail("output " + std::to_string(k) + " is missing");
  const std::string& out = proto.output(k);
  if (out.empty()) return;
  if (im.values.count(out)) fail("value '" + out + "' is defined twice");
  bind(k, im.addConstant(out, std::move(t)));
}

ValueId NodeContext::constant(HostTensor t) { return im.constant(name, std::move(t)); }

ValueId NodeContext::scalar(DType t, double v) { return im.scalar(name, t, v); }

void NodeContext::bind(int k, ValueId v) {
  if (k >= proto.output_size()) fail("output " + std::to_string(k) + " is missing");
  const std::string& out = proto.output(k);
  if (out.empty()) return;
  if (im.values.count(out)) fail("value '" + out + "' is defined twice");
  im.values[out] = v;
}

// GraphBuilder's errors reach GraphImport::convertNode as mgc::Error, which
// names the node exactly as NodeContext::fail does.
ValueId reshapeTo(NodeContext& c, ValueId v, const Shape& shape) { return c.im.reshapeTo(c.name, v, shape); }

}  // namespace mgc::onnximport
