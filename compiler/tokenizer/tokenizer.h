// A Hugging Face tokenizer.json: text ↔ token ids, as the Rust tokenizers
// crate (what transformers' fast tokenizers run) computes them, for the
// BPE vocabularies of the Llama family (Llama 2 sentencepiece-style BPE,
// Llama 3 and Qwen byte-level BPE). The pipeline:
//
//   text → added tokens cut out → normalizer → pre-tokenizer → BPE per piece
//        → post-processor (BOS, when adding special tokens)
//   ids  → token strings (special ones skipped on request) → decoder → text
//
// Every component type mgc does not implement is an error naming the file
// and the component, never a silently different tokenization.
// Errors are mgc::Error (ir/types.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/tokenizer/added_tokens.h"
#include "compiler/tokenizer/bpe.h"
#include "compiler/tokenizer/decoder.h"
#include "compiler/tokenizer/normalizer.h"
#include "compiler/tokenizer/post_processor.h"
#include "compiler/tokenizer/pre_tokenizer.h"
#include "compiler/tokenizer/text_tokenizer.h"

namespace mgc::tok {

class Tokenizer : public TextTokenizer {
 public:
  // Parses tokenizer.json's text; `name` starts every error message (the
  // file's path, or "BUNDLE.mgb: tokenizer.json").
  Tokenizer(const std::string& jsonText, const std::string& name);

  // `text` must be valid UTF-8. addSpecialTokens: apply the post-processor.
  std::vector<int64_t> encode(const std::string& text, bool addSpecialTokens) const override;
  // Ids no token has are dropped, as tokenizers does (a model's embedding
  // table is often padded past the vocabulary).
  std::string decode(const std::vector<int64_t>& ids, bool skipSpecialTokens) const override;

  // One past the largest id of the model's vocabulary and the added tokens.
  int64_t vocabSize() const override;
  // The token string of an id (added token or model vocabulary), null if none.
  const std::string* idToToken(int64_t id) const override;

 private:
  void checkAddedIds(const std::string& where) const;
  std::string name_;
  AddedVocabulary added_;
  Normalizer normalizer_;
  PreTokenizer preTokenizer_;
  std::unique_ptr<BpeModel> model_;
  PostProcessor postProcessor_;
  Decoder decoder_;
};

}  // namespace mgc::tok
