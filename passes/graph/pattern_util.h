// Shared machinery of the pattern passes (fuse-attention, fuse-rotary,
// fold-repeat-kv, fuse-attention-cache, fold-causal-mask, fuse-elementwise):
// one-element constants, who produces a value and how
// often it is read, and the splice that puts a rewrite's new nodes just
// before the node it rewrites in place.
#pragma once

#include <optional>
#include <vector>

#include "ir/graph.h"

namespace mgc {

// v's value when it is a one-element f32 constant holding its bytes (an
// inline scalar: fuse-elementwise's program constants, fold-causal-mask's
// mask values, fuse-attention's scale and fill), else none.
inline std::optional<double> scalarF32(const Graph& g, ValueId v) {
  const Value& val = g.value(v);
  if (!val.isConstant() || val.type.dtype != DType::F32 || val.type.numel() != 1 ||
      val.constant->data.size() != val.type.bytes())
    return std::nullopt;
  return val.constant->getF(0);
}

class Uses {
 public:
  explicit Uses(const Graph& g) : g_(g), uses_(g.useCounts()), isOutput_(g.values.size(), false) {
    for (ValueId v : g.outputs) isOutput_[size_t(v)] = true;
  }
  // v's producer if it is `op` and v is no graph output and is read exactly
  // 1 + extraUses times (extra: e.g. a state's update), else -1.
  NodeId soleProducer(ValueId v, Op op, int extraUses = 0) const {
    const NodeId p = g_.value(v).producer;
    if (p < 0 || g_.nodes[size_t(p)].op != op || isOutput_[size_t(v)] || uses_[size_t(v)] != 1 + extraUses) return -1;
    return p;
  }
  int count(ValueId v) const { return uses_[size_t(v)]; }
  bool isOutput(ValueId v) const { return isOutput_[size_t(v)]; }

 private:
  const Graph& g_;
  std::vector<int> uses_;
  std::vector<bool> isOutput_;
};

// Rewrites of nodes in place that add nodes (views, constants' users) for
// them: g.addNode appends; placeNewBefore(at) moves what was appended since
// the last call to just before node `at`; finish() rebuilds the node order
// without the nodes drop() named.
class Splice {
 public:
  explicit Splice(Graph& g) : g_(g), oldCount_(g.nodes.size()), before_(oldCount_), dropped_(oldCount_, false) {}
  void placeNewBefore(NodeId at) {
    for (size_t k = oldCount_; k < g_.nodes.size(); ++k) before_[size_t(at)].push_back(std::move(g_.nodes[k]));
    g_.nodes.resize(oldCount_);
  }
  void drop(NodeId n) { dropped_[size_t(n)] = true; }
  void finish() {
    std::vector<Node> nodes;
    for (size_t k = 0; k < oldCount_; ++k) {
      for (Node& n : before_[k]) nodes.push_back(std::move(n));
      if (!dropped_[k]) nodes.push_back(std::move(g_.nodes[k]));
    }
    g_.nodes = std::move(nodes);
    g_.rebuildProducers();
  }

 private:
  Graph& g_;
  size_t oldCount_;
  std::vector<std::vector<Node>> before_;
  std::vector<bool> dropped_;
};

}  // namespace mgc
