// tokenizer.json "added_tokens": tokens matched in the text before the
// normalizer and pre-tokenizer see it (<|begin_of_text|>, <|im_start|>,
// <think>, ...). As in tokenizers' AddedVocabulary: leftmost-longest
// matching, first of the tokens with "normalized": false on the raw text,
// then of those with "normalized": true on each normalized segment;
// lstrip / rstrip swallow the whitespace beside a match, single_word
// refuses a match inside a word.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/tokenizer/json_fields.h"

namespace mgc::tok {

struct AddedToken {
  int32_t id = 0;
  std::string content;
  bool special = false, lstrip = false, rstrip = false, singleWord = false, normalized = false;
};

// A stretch of text: an added token (id >= 0) or plain text (id < 0).
struct Segment {
  std::string text;
  int32_t id = -1;
  bool atStart = false;  // begins at offset 0 of the encoded text
};

class AddedVocabulary {
 public:
  AddedVocabulary() = default;
  AddedVocabulary(const Json& tokens, const std::string& where);

  // Cuts `text` at the matches of the tokens whose `normalized` flag is
  // `normalized`; `atStart` says whether `text` begins the encoded text.
  std::vector<Segment> split(const std::string& text, bool normalized, bool atStart) const;

  const AddedToken* byId(int32_t id) const;
  const std::vector<AddedToken>& tokens() const { return tokens_; }
  int32_t maxId() const { return maxId_; }

 private:
  std::vector<AddedToken> tokens_;
  std::vector<int> byFirstByte_[256];  // indices into tokens_
  std::unordered_map<int32_t, size_t> byId_;
  int32_t maxId_ = -1;
};

}  // namespace mgc::tok
