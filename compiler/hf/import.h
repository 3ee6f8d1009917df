// The checkpoint-folder frontend (compiler/frontends.cpp row "hf"): a
// Hugging Face folder → one IR graph, the forward pass over a fixed number
// of tokens (docs/llm.md):
//
//   input  input_ids  i64 [1, T]
//   output logits      f32 [1, T, vocab]     (causal: token t sees 0..t)
//
// config.json decides the architecture (config.h); the weights come from
// model.safetensors or its shards (checkpoint.h); the decoder is llama.h.
#pragma once

#include <cstdint>
#include <string>

#include "ir/graph.h"
#include "ir/qweights.h"

namespace mgc::hf {

constexpr int64_t kDefaultSeqLen = 128;
constexpr int64_t kMaxSeqLen = int64_t(1) << 20;

// Whether `dir` looks like a checkpoint folder (holds config.json).
bool isCheckpointDir(const std::string& dir);

// Builds the graph; seqLen = T (0: kDefaultSeqLen). Throws mgc::Error
// naming the file and field / tensor on anything it cannot build exactly.
// `linear`: how the linear layers hold their weights (--weights).
Graph importCheckpoint(const std::string& dir, int64_t seqLen, WeightPacking linear = {});

// The generation entry points (generation.cpp, docs/llm.md), sharing the
// weights and a KV cache held as state, kv.<layer>.k / .v f32 [1, kvHeads,
// maxSeq, headDim]:
//
//   prefill  input_ids i64 [1, chunk], position i64 [1]  → logits f32 [1, chunk, vocab]
//   decode   input_ids i64 [1, 1],     position i64 [1]  → logits f32 [1, 1, vocab]
//
// `position` is the first token's position; a run writes its tokens' keys
// and values at [position, position + T) of the cache and attends over the
// cache up to each token. maxSeq must be a multiple of chunk, so chunks at
// multiples of chunk always fit; a position past maxSeq - T writes nothing.
struct GenerationGraphs {
  Graph prefill, decode;
};
GenerationGraphs importCheckpointForGeneration(const std::string& dir, int64_t maxSeq, int64_t chunk,
                                              WeightPacking linear = {});

class Checkpoint;
struct ModelConfig;

// Throws when the checkpoint holds tensors the model did not read
// (config.json and the weights disagree).
void requireAllTensorsUsed(const Checkpoint& weights, const ModelConfig& config);

}  // namespace mgc::hf
