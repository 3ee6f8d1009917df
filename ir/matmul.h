// MatMul's operand layouts. `trans_a` / `trans_b` (0 or 1, default 0) say
// the operand is stored with its last two axes swapped: the product is
// op(a) @ op(b), op = swap of the last two axes when the flag is set. The
// canonicalize pass folds Transpose nodes into these flags (no transposed
// copy is ever made), and the matmul kernel reads either layout directly.
// A flagged operand has rank >= 2 (a vector has no second axis to swap).
#pragma once

#include <utility>

#include "ir/graph.h"

namespace mgc {

struct MatMulLayout {
  bool transA = false, transB = false;
};

inline MatMulLayout matmulLayout(const Node& n) {
  return {n.i("trans_a", 0) != 0, n.i("trans_b", 0) != 0};
}

// The shape an operand stored as `stored` has as a matrix operand.
inline Shape logicalOperand(Shape stored, bool trans) {
  if (trans && stored.size() >= 2) std::swap(stored[stored.size() - 1], stored[stored.size() - 2]);
  return stored;
}

}  // namespace mgc
