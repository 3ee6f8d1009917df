#include "passes/graph/pipeline.h"

#include "passes/graph/passes.h"

namespace mgc {

// Const-fold runs twice: first so canonicalize sees folded constants (e.g.
// BatchNorm parameters computed from other constants), then to fold what
// canonicalize exposed (e.g. a Mul of two constants). Multi-node patterns
// (exported LayerNorm / Gelu) fold after the one-node rules have removed
// x*1 / x+0; epilogue fusion runs before elementwise fusion so that
// activations still land in Conv/MatMul first, and before prologue fusion,
// which puts its operand after the epilogue operands and must see silu *
// up before elementwise fusion does. fuse-attention-cache needs the keys'
// rotary already in their state_write (fuse-state-write). dce cleans up
// last.
const std::vector<Pass>& graphPipeline() {
  static const std::vector<Pass> kPipeline = {
      {"verify", verifyGraph},
      {"const-fold", constFold},
      {"canonicalize", canonicalize},
      {"canonicalize-patterns", canonicalizePatterns},
      {"const-fold", constFold},
      {"split-long-rows", splitLongRows},
      {"fuse-conv-epilogue", fuseConvEpilogue},
      {"fuse-prologue", fusePrologue},
      {"fuse-state-write", fuseStateWrite},
      {"fuse-attention-cache", fuseAttentionCache},
      {"fuse-elementwise", fuseElementwise},
      {"dce", deadCodeElim},
  };
  return kPipeline;
}

const Pass* findPass(const std::string& name) {
  for (const Pass& p : graphPipeline())
    if (name == p.name) return &p;
  return nullptr;
}

}  // namespace mgc
