// Text from ids one at a time, for printing while generating: push() returns
// the text the ids so far add to what was returned before, holding back an
// incomplete UTF-8 character (a byte-level or <0xXX> token cut mid-character)
// until the tokens that complete it arrive. As tokenizers' DecodeStream:
// it decodes a short window of recent ids, so context-dependent decoders
// (Metaspace's first-token rule, Strip, sentencepiece's leading space)
// behave as in a full decode. Works with either tokenizer (text_tokenizer.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/tokenizer/text_tokenizer.h"

namespace mgc::tok {

class StreamDecoder {
 public:
  StreamDecoder(const TextTokenizer& t, bool skipSpecialTokens) : t_(t), skip_(skipSpecialTokens) {}
  std::string push(int64_t id);

 private:
  const TextTokenizer& t_;
  bool skip_;
  std::vector<int64_t> ids_;
  std::string prefix_;  // decode of ids_[0..prefixIndex_)
  size_t prefixIndex_ = 0;
};

}  // namespace mgc::tok
