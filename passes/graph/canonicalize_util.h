// Shared machinery of the canonicalize rules (canonicalize.cpp): lookups of
// constants, producers and uses, and the two graph edits the rules make.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"

namespace mgc::canon {

struct Rewriter {
  explicit Rewriter(Graph& graph) : g(graph) {}
  Graph& g;

  const HostTensor* constantOf(ValueId v) const;
  // The node producing `v`, or null for graph inputs / constants.
  const Node* producerOf(ValueId v) const;
  // Uses of `v` (node inputs + graph outputs), recomputed after each edit.
  int uses(ValueId v);
  bool isGraphOutput(ValueId v) const;

  // Node `i` computes `from` as a copy of `to`; make every user read `to`
  // and erase node i. When `from` is a graph output its name must survive,
  // so instead `to`'s producer is retargeted to write `from` — possible only
  // when `to` is a node result used solely by node i; otherwise returns
  // false and changes nothing.
  bool forwardValue(size_t i, ValueId from, ValueId to);
  // Node i's single output feeds only node `consumer`, whose effect node i
  // has absorbed: node i now writes the consumer's output value and the
  // consumer is erased.
  void retargetOntoConsumer(size_t i, size_t consumer);
  // Call after any other edit of g.nodes.
  void changed() { usesValid_ = false; }

 private:
  void eraseNode(size_t i);
  std::vector<int> uses_;
  bool usesValid_ = false;
};

// Is every element of `t` equal to `v` (false for an empty tensor)?
bool allElementsEqual(const HostTensor& t, double v);

// `name` + "_folded", not repeated on a second fold.
std::string foldedName(const std::string& name);

// A conv (node i) with constant float weights (and constant or no bias)
// whose output is used only by one `op` node whose other operand is a
// constant broadcasting per output channel (one value, or M values on the
// channel axis), and whose result type equals the conv's.
struct ConvFoldSite {
  size_t consumer = 0;
  std::vector<double> factors;  // one per output channel
};
bool matchConvConsumer(Rewriter& r, size_t i, Op op, ConvFoldSite* site);

}  // namespace mgc::canon
