// Shared by the passes that replace single nodes with a few simpler ones
// (split_long_rows.cpp, conv1x1_grads.cpp): an emitter that appends the
// replacement nodes, and the walk that splices them in where the node was.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"

namespace mgc {

// Appends nodes named `name` to g.nodes (expandNodes splices them in).
struct NodeEmitter {
  Graph& g;
  const std::string& name;
  ValueId op(Op o, std::vector<ValueId> in, Attrs a = {}) {
    return g.nodes[size_t(g.addNode(o, name, std::move(in), std::move(a)))].outputs[0];
  }
  ValueId reshape(ValueId v, Shape s) { return op(Op::Reshape, {v}, {{"shape", std::vector<int64_t>(s)}}); }
  ValueId reduce(Op o, ValueId v, int64_t axis, bool keep) {
    return op(o, {v}, {{"axes", std::vector<int64_t>{axis}}, {"keepdims", int64_t(keep)}});
  }
  // Writes `out` (the replaced node's existing result) as the last node.
  void finish(Op o, std::vector<ValueId> in, ValueId out, Attrs a = {}) {
    g.addNodeWithOutputs(o, name, std::move(in), {out}, std::move(a));
  }
};

// Calls expand(g, n) for every node in order; where it appended nodes to
// g.nodes (ending with one that writes n's results), they replace n.
template <typename Expand>
void expandNodes(Graph& g, Expand&& expand) {
  std::vector<Node> old = std::move(g.nodes);
  g.nodes.clear();
  std::vector<Node> out;
  out.reserve(old.size());
  bool changed = false;
  for (Node& n : old) {
    expand(g, static_cast<const Node&>(n));
    if (g.nodes.empty()) {
      out.push_back(std::move(n));
      continue;
    }
    changed = true;
    for (Node& m : g.nodes) out.push_back(std::move(m));
    g.nodes.clear();
  }
  g.nodes = std::move(out);
  if (changed) g.rebuildProducers();
}

}  // namespace mgc
