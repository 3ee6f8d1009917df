// The Llama-family decoder (LlamaForCausalLM, Qwen2ForCausalLM,
// Qwen3ForCausalLM) built into IR through GraphBuilder, as transformers'
// modeling_llama / modeling_qwen2 / modeling_qwen3 compute it:
//
//   h = embed_tokens[ids]
//   per layer:  a = rms_norm(h) ; q,k,v = a·Wq (+bq), a·Wk (+bk), a·Wv (+bv)
//               [Qwen3: q,k = rms_norm per head] ; q,k = rope(q,k, positions)
//               h += attention(q, K, V, mask) · Wo (+bo)      (GQA: heads
//               of one group share a K/V head, by broadcasting, no copy)
//               m = rms_norm(h) ; h += (silu(m·Wg) * (m·Wu)) · Wd
//   logits = rms_norm(h) · lm_head      (lm_head = embed_tokensᵀ when tied)
//
// A forward pass is over a chunk of T tokens whose positions and mask are
// inputs to it (ChunkInputs), and whose attention reads keys and values
// through a KvSource: the whole-sequence forward (forward.cpp) passes
// positions 0..T-1, a causal mask and the chunk's own K/V; a prefill/decode
// pair passes run-time positions and a KvSource that writes the chunk into
// a KV-cache state (state_write) and returns the cache. The layers do not
// change between the two.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>

#include "compiler/hf/checkpoint.h"
#include "compiler/hf/config.h"
#include "ir/builder.h"
#include "ir/qweights.h"

namespace mgc::hf {

// Where one layer's attention reads its keys and values from.
class KvSource {
 public:
  virtual ~KvSource() = default;
  // k (RoPE applied) and v of this chunk, [1, kvHeads, T, headDim] each;
  // returns the keys and values the chunk attends over, [1, kvHeads, S,
  // headDim] each, S matching the mask's last axis.
  virtual std::pair<ValueId, ValueId> keysValues(GraphBuilder& b, int64_t layer, ValueId k, ValueId v) = 0;
};

// Attention over the chunk itself (no cache): S = T.
class ChunkOnlyKv : public KvSource {
 public:
  std::pair<ValueId, ValueId> keysValues(GraphBuilder&, int64_t, ValueId k, ValueId v) override { return {k, v}; }
};

struct ChunkInputs {
  ValueId inputIds = kNoValue;   // i64 [1, T]
  ValueId positions = kNoValue;  // integer [T]: each token's position
  ValueId mask = kNoValue;       // f32 [T, S], added to the attention scores
};

class LlamaGraph {
 public:
  // `ropePositions`: rows of the RoPE tables, i.e. one past the largest
  // position the graph may see.
  // `donor`: a graph built from the same checkpoint (another entry point
  // of the bundle) whose weight constants this one shares instead of
  // reading them again.
  LlamaGraph(const ModelConfig& config, Checkpoint& weights, GraphBuilder& builder, int64_t ropePositions,
             const Graph* donor = nullptr, WeightPacking linear = {});

  // logits f32 [1, T, vocab], the value named `logitsName`.
  ValueId forward(const ChunkInputs& in, KvSource& kv, const std::string& logitsName);

 private:
  const ModelConfig& c_;
  Checkpoint& w_;
  GraphBuilder& b_;
  int64_t ropePositions_;
  const Graph* donor_;
  WeightPacking lw_;
  ValueId cos_ = kNoValue, sin_ = kNoValue;                  // [ropePositions, headDim], sin_ signed (rotaryHalfSigned)
  std::map<ValueId, std::pair<ValueId, ValueId>> ropeRows_;  // positions → its cos, sin rows
  std::map<std::string, ValueId> params_;                    // each weight loaded once

  // Every weight enters the graph here (a constant named as in the
  // checkpoint): the one place that decides how weights are held. `load`
  // reads it when neither this graph nor the donor has it yet.
  ValueId param(const std::string& name, const std::function<HostTensor()>& load);
  ValueId vector(const std::string& name, int64_t n);
  // x · Wᵀ (+ b) for a PyTorch Linear stored [out, in].
  ValueId linear(const std::string& prefix, ValueId x, int64_t in, int64_t out, bool bias);
  // x · Wᵀ with W [out, in] (`rows` loads it) packed as lw_ says: QMatMul.
  ValueId packedProduct(const std::string& weight, ValueId x, const std::function<HostTensor()>& rows,
                        const std::string& node, const std::string& outName = "");
  ValueId rmsNorm(const std::string& name, ValueId x, int64_t width);

  // cos, sin rows [T, headDim] of `positions`.
  std::pair<ValueId, ValueId> ropeRows(ValueId positions);
  ValueId attention(int64_t layer, ValueId x, const ChunkInputs& in, KvSource& kv);
  ValueId mlp(int64_t layer, ValueId x);
  ValueId logits(ValueId h, const std::string& name);
};

}  // namespace mgc::hf
