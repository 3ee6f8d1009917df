// The tokenizer of `mgc generate` and `mgc tokenize`: from a bundle's
// `tokenizer` or `tokenizer_model` field (mgc compile stores the checkpoint
// folder's tokenizer.json, else its SentencePiece tokenizer.model), or from
// a tokenizer.json or tokenizer.model file itself.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/tokenizer/text_tokenizer.h"

namespace mgc {

struct BundleTokenizer {
  std::unique_ptr<tok::TextTokenizer> tokenizer;  // null: the bundle has none
  std::vector<int64_t> eosTokenIds;           // the bundle's, empty for a tokenizer.json
};

// `path` is a .mgb bundle (by its magic bytes), a SentencePiece model (a
// name ending in .model) or a tokenizer.json (anything else). Only
// the bundle's header and manifest are read (the manifest verified as a
// FlatBuffer; libmgrt checks the rest when it loads the bundle). Throws
// mgc::Error naming `path` and the reason.
BundleTokenizer loadTokenizer(const std::string& path);

}  // namespace mgc
