// Private to compiler/onnx/: the importer's state and the per-node context
// that op converters (ops_*.cpp) work through.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/builder.h"
#include "ir/graph.h"

namespace mgc::onnximport {

// A node the importer cannot convert. `unsupported` separates "mgc cannot
// express this" from "the model is invalid"; both carry the bare reason so
// that several can be listed in one error.
struct NodeProblem : Error {
  NodeProblem(const std::string& full, std::string why, bool isUnsupported)
      : Error(full), reason(std::move(why)), unsupported(isUnsupported) {}
  std::string reason;
  bool unsupported;
};

// The importer's state: the graph being built (GraphBuilder: naming,
// folding while importing, composites) plus the ONNX-side bookkeeping.
// GraphBuilder::reserved holds every ONNX value name (bound later, so fresh
// names avoid them); with keepParameters, the parameters are in
// GraphBuilder::keepUnfolded.
class Importer : public GraphBuilder {
 public:
  explicit Importer(std::string sourceName) : source(std::move(sourceName)) {}

  std::string source;
  std::map<std::string, ValueId> values;  // ONNX value name → IR value
  std::set<std::string> graphOutputs;     // ONNX names of graph outputs
  std::map<std::string, int> uses;        // ONNX name → consumers (+1 if a graph output)
  bool keepParameters = false;            // ImportOptions::keepParameters
  // ONNX name → elements of a sequence whose length is known while
  // importing (ops_sequence.cpp); sequences exist only during import.
  std::map<std::string, std::vector<ValueId>> sequences;
};

// One ONNX node while it is being converted.
class NodeContext {
 public:
  NodeContext(Importer& importer, const onnx::NodeProto& proto, int opset);

  Importer& im;
  const onnx::NodeProto& proto;
  const int opset;  // of the node's domain
  std::string name;  // the node's name, or its first output's when unnamed

  const std::string& opType() const { return proto.op_type(); }
  // "node 'name' (OpType, ai.onnx opset 13)"
  std::string describe() const;

  // ---- inputs ----
  int numInputs() const { return proto.input_size(); }
  bool hasInput(int k) const { return k < proto.input_size() && !proto.input(k).empty(); }
  ValueId input(int k) const;     // fails when absent
  ValueId optInput(int k) const;  // kNoValue when absent
  // By value: references into the graph die when a node adds values.
  TensorType type(ValueId v) const { return im.g.type(v); }
  // The value of input k, which must be a constant (unsupported otherwise);
  // nullptr when the input is absent.
  const HostTensor* constInput(int k, const char* what) const;
  // An integer constant input (shape, axes, pads ...) as a list.
  std::optional<std::vector<int64_t>> intsInput(int k, const char* what) const;

  // ---- attributes ----
  bool hasAttr(const std::string& n) const { return attrs_.count(n) != 0; }
  int64_t attrInt(const std::string& n, std::optional<int64_t> def = std::nullopt) const;
  double attrFloat(const std::string& n, std::optional<double> def = std::nullopt) const;
  std::string attrString(const std::string& n, std::optional<std::string> def = std::nullopt) const;
  std::vector<int64_t> attrInts(const std::string& n, std::optional<std::vector<int64_t>> def = std::nullopt) const;
  std::vector<double> attrFloats(const std::string& n) const;
  const onnx::TensorProto& attrTensor(const std::string& n) const;
  // Fails when the node sets an attribute outside `known` (an unknown
  // attribute could change the meaning; refusing it is the safe choice).
  void onlyAttrs(std::initializer_list<const char*> known) const;

  // ---- outputs ----
  int numOutputs() const { return proto.output_size(); }
  bool outputUsed(int k) const;  // present and consumed by a node or as a graph output
  // Fails (unsupported) when any output from k on is used.
  void requireUnused(int fromOutput, const char* why) const;
  // An intermediate node (named after the node, value with a fresh name).
  ValueId emit(Op op, std::vector<ValueId> inputs, Attrs attrs = {});
  // The node producing ONNX output k; its value keeps the ONNX name.
  void emitOutput(int k, Op op, std::vector<ValueId> inputs, Attrs attrs = {});
  // Output k is `v` (identity-like ops). A graph output gets an Identity
  // node so that it keeps its ONNX name.
  void setOutput(int k, ValueId v);
  void setOutputConstant(int k, HostTensor t);
  ValueId constant(HostTensor t);  // a fresh-named constant
  ValueId scalar(DType t, double v);  // rank-0 constant

  // Node-level errors: both throw NodeProblem.
  [[noreturn]] void fail(const std::string& why) const;
  [[noreturn]] void unsupported(const std::string& why) const;
  // Normalizes axis into [0, rank) or fails naming it.
  int64_t normAxis(int64_t axis, int64_t rank, const char* what = "axis") const;

 private:
  void bind(int k, ValueId v);
  std::map<std::string, const onnx::AttributeProto*> attrs_;
};

using Converter = void (*)(NodeContext&);
// (domain, op_type) → converter; domain "" is the default ONNX domain.
using ConverterTable = std::map<std::pair<std::string, std::string>, Converter>;

void addElementwiseConverters(ConverterTable& t);
void addNnConverters(ConverterTable& t);
void addShapeConverters(ConverterTable& t);
void addReduceConverters(ConverterTable& t);
void addSourceConverters(ConverterTable& t);
const ConverterTable& converters();

// Shared by converters: reshape `v` to `shape` (skipped when equal;
// GraphBuilder::reshapeTo for this node).
ValueId reshapeTo(NodeContext& c, ValueId v, const Shape& shape);

}  // namespace mgc::onnximport
