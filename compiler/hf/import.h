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

namespace mgc::hf {

constexpr int64_t kDefaultSeqLen = 128;
constexpr int64_t kMaxSeqLen = int64_t(1) << 20;

// Whether `dir` looks like a checkpoint folder (holds config.json).
bool isCheckpointDir(const std::string& dir);

// Builds the graph; seqLen = T (0: kDefaultSeqLen). Throws mgc::Error
// naming the file and field / tensor on anything it cannot build exactly.
Graph importCheckpoint(const std::string& dir, int64_t seqLen);

}  // namespace mgc::hf
