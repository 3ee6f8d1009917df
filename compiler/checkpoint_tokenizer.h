// The tokenizer a checkpoint folder's bundle carries (mgb.fbs
// Bundle.tokenizer / tokenizer_model / eos_token_ids, docs/llm.md
// "Tokenizer"): FOLDER/tokenizer.json byte for byte, else FOLDER's
// SentencePiece tokenizer.model byte for byte, checked at compile time by
// loading it (compiler/tokenizer), and the ids that end a generation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mgc {

struct CheckpointTokenizer {
  std::string json;                  // empty: the folder has no tokenizer.json
  std::string model;                 // tokenizer.model's bytes, when there is no tokenizer.json
  std::vector<int64_t> eosTokenIds;  // with a tokenizer only
};

// tokenizer.json wins when the folder has both (as transformers' fast
// tokenizers). Throws mgc::Error naming the file and the reason: a
// tokenizer.json or tokenizer.model mgc cannot load, one with ids past
// config.json's vocab_size (the model could not embed them), an
// eos_token_id that is not an id or a list of ids.
// The eos ids come from generation_config.json's eos_token_id when it has
// one, else from config.json's (as transformers' generate).
CheckpointTokenizer readCheckpointTokenizer(const std::string& dir);

}  // namespace mgc
