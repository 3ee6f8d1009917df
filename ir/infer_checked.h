// Shape inference hardened for graphs from untrusted input (the text IR
// parser, the verifier): the limits a graph may declare and inferTypes()
// behind checks of the preconditions its shape rules assume.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"

namespace mgc {

// inferTypes() hardened for nodes built from untrusted input: first checks
// the preconditions the shape rules assume (valid value ids, `none` only in
// optional input slots, rank >= 1 where an axis indexes the shape, target
// shapes of reshape, expand and fused_reduce whose element count fits in
// int64), then runs the rule; every failure is an mgc::Error naming the
// node. Shared with the verifier.
std::vector<TensorType> inferTypesChecked(const Graph& g, const Node& n);

// Limits on what a text IR file may declare (documented in docs/ir.md).
constexpr int kMaxRank = 32;
constexpr int64_t kMaxDim = (int64_t(1) << 31) - 1;
constexpr int64_t kMaxElements = int64_t(1) << 48;
constexpr int64_t kMaxConstantBytes = int64_t(1) << 31;

// a * b, or -1 when the product exceeds `limit` (both non-negative).
int64_t boundedProduct(int64_t a, int64_t b, int64_t limit);
// Rank, every dimension and the element count within the limits above.
bool validType(const TensorType& t);

}  // namespace mgc
