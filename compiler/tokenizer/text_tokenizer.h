// What mgc generate, mgc tokenize and the stream decoder need of a
// tokenizer, whichever file it came from: a tokenizer.json (Tokenizer,
// tokenizer.h) or a SentencePiece tokenizer.model (SentencePieceModel,
// sentencepiece_model.h). Errors are mgc::Error (ir/types.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mgc::tok {

class TextTokenizer {
 public:
  virtual ~TextTokenizer() = default;
  // `text` must be valid UTF-8. addSpecialTokens: add what the tokenizer's
  // own rule adds (BOS for the Llama family).
  virtual std::vector<int64_t> encode(const std::string& text, bool addSpecialTokens) const = 0;
  // Ids no token has are dropped (a model's embedding table is often padded
  // past the vocabulary). skipSpecialTokens: special tokens give no text.
  // An incomplete UTF-8 character at the end comes out as U+FFFD (the
  // stream decoder relies on it).
  virtual std::string decode(const std::vector<int64_t>& ids, bool skipSpecialTokens) const = 0;
  // One past the largest token id.
  virtual int64_t vocabSize() const = 0;
  // The token string of an id, null if none.
  virtual const std::string* idToToken(int64_t id) const = 0;
};

}  // namespace mgc::tok
