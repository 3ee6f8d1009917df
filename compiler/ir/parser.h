// The text IR (.mgir) parser; the syntax is documented in docs/ir.md.
//
// Text IR files are untrusted input: every malformed file ends in an
// mgc::Error "FILE:LINE:COL: message", never a crash, an unbounded
// allocation or another exception type.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/graph.h"

namespace mgc {

// Parses one graph. `filename` is used only in error messages. The shape
// rule runs for every node and must agree with the printed result types.
Graph parseGraph(std::string_view text, const std::string& filename);

// Reads and parses a .mgir file (error if it cannot be read).
Graph parseGraphFile(const std::string& path);

// inferTypes() hardened for nodes built from untrusted input: first checks
// the preconditions the shape rules assume (valid value ids, `none` only in
// optional input slots, rank >= 1 where an axis indexes the shape, target
// shapes whose element count fits in int64), then runs the rule; every
// failure is an mgc::Error naming the node. Shared with the verifier.
std::vector<TensorType> inferTypesChecked(const Graph& g, const Node& n);

// Limits on what a text IR file may declare (documented in docs/ir.md).
constexpr int kMaxRank = 32;
constexpr int64_t kMaxDim = (int64_t(1) << 31) - 1;
constexpr int64_t kMaxElements = int64_t(1) << 48;
constexpr int64_t kMaxConstantBytes = int64_t(1) << 31;

}  // namespace mgc
