// The tokenizer of `mgc generate` and `mgc tokenize`: from a bundle's
// `tokenizer` field (mgc compile stores the checkpoint folder's
// tokenizer.json), or from a tokenizer.json file itself.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/tokenizer/tokenizer.h"

namespace mgc {

struct BundleTokenizer {
  std::unique_ptr<tok::Tokenizer> tokenizer;  // null: the bundle has none
  std::vector<int64_t> eosTokenIds;           // the bundle's, empty for a tokenizer.json
};

// `path` is a .mgb bundle (by its magic bytes) or a tokenizer.json. Only
// the bundle's header and manifest are read (the manifest verified as a
// FlatBuffer; libmgrt checks the rest when it loads the bundle). Throws
// mgc::Error naming `path` and the reason.
BundleTokenizer loadTokenizer(const std::string& path);

}  // namespace mgc
