// Single-node graphs covering every op on odd shapes, shared by the
// lowering tests and the GPU differential test.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"

namespace mgc::test {

// How to fill one graph input with test data.
struct Fill {
  enum Kind { Normal, Positive, Index, Bool, SmallInt, Fixed, Words, Scales, CausalMask, Absent } kind = Normal;
  // Index: values in [-range, range); Fixed: every element is `range`;
  // Words: packed QMatMul weights of format `range` (ir/qweights.h): random
  // fields, or two halves in [-2, 2) for f16; Scales: floats in [1/128, 1/32)
  // (a group's max |w| / 127 for weights of magnitude ~1); CausalMask: an
  // additive attention mask [T, S]: 0 for key j <= t + range (visible), -FLT_MAX
  // (hidden) after; Absent: no input at all (`none`, an optional slot
  // skipped; no graph input, no fill)
  int64_t range = 0;
};

struct OpCase {
  std::string label;  // "conv depthwise stride 2"
  Graph graph;        // inputs, one node, one output
  std::vector<Fill> fills;  // one per graph input
  // Largest |got - expected| / max(1, |expected|) accepted for f32 outputs
  // (f16 outputs: 1e-3): summation order only, unless a case's semantics
  // round values that a last-bit difference can move to the next fp16.
  double tolerance = 1e-4;
};

std::vector<OpCase> opCases();

// Deterministic test data for input k of a case.
HostTensor makeInput(const OpCase& c, size_t k, uint32_t seed);

}  // namespace mgc::test
