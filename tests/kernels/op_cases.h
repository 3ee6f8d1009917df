// Single-node graphs covering every op on odd shapes, shared by the
// lowering tests and the GPU differential test.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"

namespace mgc::test {

// How to fill one graph input with test data.
struct Fill {
  enum Kind { Normal, Positive, Index, Bool, SmallInt, Fixed } kind = Normal;
  int64_t range = 0;  // Index: values in [-range, range); Fixed: every element is `range`
};

struct OpCase {
  std::string label;  // "conv depthwise stride 2"
  Graph graph;        // inputs, one node, one output
  std::vector<Fill> fills;  // one per graph input
};

std::vector<OpCase> opCases();

// Deterministic test data for input k of a case.
HostTensor makeInput(const OpCase& c, size_t k, uint32_t seed);

}  // namespace mgc::test
