// const-fold: a node whose inputs are all constants is evaluated on the host
// (the reference evaluator, mgc::evalNode) and its outputs become constants.
// The output values keep their ids and names, so uses and graph outputs need
// no rewiring; only the node disappears.
//
//   %a = const f32[2] dense<[1.0, 2.0]>          %a = const f32[2] dense<[1.0, 2.0]>
//   %b = const f32[2] dense<3.0>          →      %b = const f32[2] dense<3.0>
//   %c = add(%a, %b) : f32[2]                    %c = const f32[2] dense<[4.0, 5.0]>
//
// Folding must not bloat the bundle: a result larger than 16 MiB is folded
// only when it is smaller than the constants it consumes (e.g. a Slice of a
// big table), never when it grows the data (e.g. an Expand of a scalar).
#include <memory>

#include "ir/eval.h"
#include "passes/graph/passes.h"

namespace mgc {

namespace {

constexpr size_t kMaxGrownConstantBytes = size_t(16) << 20;

bool allInputsConstant(const Graph& g, const Node& n) {
  for (ValueId v : n.inputs)
    if (v != kNoValue && !g.value(v).isConstant()) return false;
  return true;
}

bool worthFolding(const Graph& g, const Node& n) {
  size_t inBytes = 0, outBytes = 0;
  for (ValueId v : n.inputs)
    if (v != kNoValue) inBytes += g.type(v).bytes();
  for (ValueId v : n.outputs) outBytes += g.type(v).bytes();
  return outBytes <= kMaxGrownConstantBytes || outBytes < inBytes;
}

}  // namespace

void constFold(Graph& g) {
  static const HostTensor kAbsent;  // an absent optional input, as evalNode expects
  std::vector<bool> foldedAway(g.nodes.size(), false);
  // In order, so that a chain of constant nodes folds in one sweep: each
  // folded output is a constant by the time its users are visited.
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!allInputsConstant(g, n) || !worthFolding(g, n)) continue;
    std::vector<const HostTensor*> inputs;
    for (ValueId v : n.inputs) inputs.push_back(v == kNoValue ? &kAbsent : g.value(v).constant.get());
    std::vector<HostTensor> results = evalNode(g, n, inputs);
    if (results.size() != n.outputs.size())
      throw Error("const-fold: node '" + n.name + "' (" + opName(n.op) + "): evaluator returned " +
                  std::to_string(results.size()) + " results for " + std::to_string(n.outputs.size()) + " outputs");
    for (size_t k = 0; k < results.size(); ++k) {
      const Value& out = g.value(n.outputs[k]);
      if (results[k].type != out.type || results[k].data.size() != out.type.bytes())
        throw Error("const-fold: node '" + n.name + "' (" + opName(n.op) + "): evaluator returned " +
                    results[k].type.str() + ", expected " + out.type.str());
    }
    for (size_t k = 0; k < results.size(); ++k) {
      Value& out = g.value(n.outputs[k]);
      out.constant = std::make_shared<const HostTensor>(std::move(results[k]));
      out.producer = -1;
    }
    foldedAway[i] = true;
  }
  std::vector<Node> kept;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!foldedAway[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
  g.rebuildProducers();
}

}  // namespace mgc
