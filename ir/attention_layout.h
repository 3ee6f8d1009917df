// Attention's operand layouts (ir/ops.def). `tokens_major` (default 0) is a
// bit per operand — 1 q, 2 k, 4 v, 8 the output — saying that operand is
// stored with its rows before its heads: logically [L0, L1.., R, W] (R
// query or key rows, W the head dim), stored [L0, R, L1.., W]. That is how
// a model holds q / k / v before it splits them into heads ([B, T, H, D]:
// a projection's output viewed per head) and how it wants the output back,
// so the fused kernel reads and writes them in place instead of through
// head transposes (passes/graph/fold_attention_layout.cpp folds them). A
// flagged operand has rank >= 4 (at least two leading dims: a batch and
// heads).
#pragma once

#include <cstdint>
#include <utility>

#include "ir/graph.h"

namespace mgc {

enum AttentionOperandBit : int64_t { kAttnQ = 1, kAttnK = 2, kAttnV = 4, kAttnOut = 8, kAttnAllOperands = 15 };

inline int64_t attentionTokensMajor(const Node& n) { return n.i("tokens_major", 0); }

// [L0, R, L1.., W] → [L0, L1.., R, W] (as is when not tokens-major).
inline Shape attentionLogical(Shape stored, bool tokensMajor) {
  if (!tokensMajor || stored.size() < 4) return stored;
  const int64_t R = stored[1];
  stored.erase(stored.begin() + 1);
  stored.insert(stored.end() - 1, R);
  return stored;
}

// Operand `bit` of attention node n, stored as `stored`: its logical shape.
inline Shape attentionLogical(const Node& n, AttentionOperandBit bit, Shape stored) {
  return attentionLogical(std::move(stored), (attentionTokensMajor(n) & bit) != 0);
}

// [L0, L1.., R, W] → [L0, R, L1.., W] (as is when not tokens-major).
inline Shape attentionStored(Shape logical, bool tokensMajor) {
  if (!tokensMajor || logical.size() < 4) return logical;
  const int64_t R = logical[logical.size() - 2];
  logical.erase(logical.end() - 2);
  logical.insert(logical.begin() + 1, R);
  return logical;
}

// The heads between an operand's rows in memory: the product of its
// logical dims L1.. when tokens-major, else 1 (rows adjacent). The kernels
// address row r of leading index b at ((b / H) * R * H + r * H + b % H) * W.
inline int64_t attentionRowHeads(const Shape& logical, bool tokensMajor) {
  int64_t h = 1;
  if (tokensMajor)
    for (size_t a = 1; a + 2 < logical.size(); ++a) h *= logical[a];
  return h;
}

}  // namespace mgc
