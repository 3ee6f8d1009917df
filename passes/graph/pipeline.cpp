#include "passes/graph/pipeline.h"

#include "passes/graph/passes.h"

namespace mgc {

// Const-fold runs twice: first so canonicalize sees folded constants (e.g.
// BatchNorm parameters computed from other constants), then to fold what
// canonicalize exposed (e.g. a Mul of two constants). Multi-node patterns
// (exported LayerNorm / Gelu) fold after the one-node rules have removed
// x*1 / x+0, as does fuse-rotary (exported RoPE; its signed sine a constant
// or a mul that const-fold folds); fuse-attention takes exported attention
// (its scale folded, its mask add not yet taken into the scores' product)
// and fold-repeat-kv then drops the K/V head copies of grouped-query
// attention before it; epilogue fusion runs before elementwise fusion so that
// activations still land in Conv/MatMul first, and before prologue fusion,
// which puts its operand after the epilogue operands and must see silu *
// up before elementwise fusion does; fold-relu-input then hands a conv's
// closing ReLU to the conv that reads it. split-long-rows comes after both: an
// RMSNorm over a long row (a 7B model's 4096) that a decode product takes
// as its prologue costs nothing, where split it would be three dispatches.
// fuse-gated-mlp then takes the prologues of a decode step's MLP into one
// node; fuse-swiglu-epilogue moves the SwiGLU prologues left over long
// rows into their up product's epilogue.
// fuse-attention-cache follows fuse-state-write, which puts the keys'
// rotary into their state_write; fold-causal-mask then drops the causal
// masks of their offsets, and fuse-attention-proj takes a decode step's
// o_proj into them; fold-attention-layout then takes the head
// transposes of the attention nodes left. dce cleans up last.
const std::vector<Pass>& graphPipeline() {
  static const std::vector<Pass> kPipeline = {
      {"verify", verifyGraph},
      {"const-fold", constFold},
      {"canonicalize", canonicalize},
      {"canonicalize-patterns", canonicalizePatterns},
      {"fuse-rotary", fuseRotary},
      {"const-fold", constFold},
      {"fuse-attention", fuseAttention},
      {"fold-repeat-kv", foldRepeatKv},
      {"conv1x1-grads", conv1x1Grads},
      {"fuse-conv-epilogue", fuseConvEpilogue},
      {"fold-relu-input", foldReluInput},
      {"fuse-prologue", fusePrologue},
      {"split-long-rows", splitLongRows},
      {"fuse-gated-mlp", fuseGatedMlp},
      {"fuse-swiglu-epilogue", fuseSwigluEpilogue},
      {"fuse-state-write", fuseStateWrite},
      {"fuse-attention-cache", fuseAttentionCache},
      {"fold-causal-mask", foldCausalMask},
      {"fuse-attention-proj", fuseAttentionProj},
      {"fold-attention-layout", foldAttentionLayout},
      {"fuse-elementwise", fuseElementwise},
      {"dce", deadCodeElim},
  };
  return kPipeline;
}

// mark-precision-fp16 / -bf16 run after the pipeline when the compile asks
// for the accelerated mode (CompileOptions::precision, precisionPass).
const std::vector<Pass>& optionalPasses() {
  static const std::vector<Pass> kOptional = {
      {"mark-precision-fp16", [](Graph& g) { markPrecision(g, MatMulPrecision::F16); }},
      {"mark-precision-bf16", [](Graph& g) { markPrecision(g, MatMulPrecision::BF16); }},
  };
  return kOptional;
}

const Pass* findPass(const std::string& name) {
  for (const std::vector<Pass>* list : {&graphPipeline(), &optionalPasses()})
    for (const Pass& p : *list)
      if (name == p.name) return &p;
  return nullptr;
}

const Pass* precisionPass(MatMulPrecision p) {
  if (p == MatMulPrecision::F32) return nullptr;
  return findPass(std::string("mark-precision-") + precisionName(p));
}

}  // namespace mgc
