// tokenizer.json "pre_tokenizer": splits normalized text into the pieces
// the model encodes one by one. Supported: Split (a regex or string with
// any split behavior, invert), ByteLevel (GPT-2 regex optional, bytes to
// the byte-level alphabet), Metaspace, Digits, Sequence, null. Each follows
// the Rust tokenizers crate's rules, which are the reference.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compiler/tokenizer/json_fields.h"

namespace mgc::tok {

struct Piece {
  std::string text;
  bool atStart = false;  // begins at offset 0 of the encoded text (Metaspace "first")
};

// Rewrites the pieces in place. An empty function means no pre-tokenizer.
using PreTokenizer = std::function<void(std::vector<Piece>&)>;

PreTokenizer makePreTokenizer(const Json& j, const std::string& where);

}  // namespace mgc::tok
