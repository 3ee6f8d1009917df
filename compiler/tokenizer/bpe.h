// tokenizer.json "model" of type BPE: vocabulary, ranked merges (as "a b"
// strings or ["a", "b"] pairs), byte_fallback (<0xXX> tokens, Llama 2),
// ignore_merges (a piece in the vocabulary is one token, Llama 3),
// unk_token and fuse_unk, continuing_subword_prefix / end_of_word_suffix.
// The merge loop is the tokenizers crate's: lowest rank first, leftmost on
// ties, one priority queue per piece.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/tokenizer/json_fields.h"

namespace mgc::tok {

class BpeModel {
 public:
  // Throws mgc::Error naming `where` ("tokenizer.json: model") and the
  // entry at fault.
  BpeModel(const Json& j, const std::string& where);

  // The ids of one pre-tokenized piece.
  void encode(const std::string& piece, std::vector<int32_t>* ids) const;

  // -1 when the token is not in the vocabulary.
  int32_t tokenToId(const std::string& token) const;
  // Null when no token has the id.
  const std::string* idToToken(int32_t id) const;
  int32_t size() const { return int32_t(idToToken_.size()); }
  // Tokens in the vocabulary (tokenizers' get_vocab_size; < size() when ids have gaps).
  int32_t entries() const { return int32_t(vocab_.size()); }

 private:
  struct Merge {
    int32_t rank, id;
  };
  static uint64_t pairKey(int32_t a, int32_t b) { return (uint64_t(uint32_t(a)) << 32) | uint32_t(b); }
  void mergeAll(std::vector<int32_t>* symbols) const;

  std::unordered_map<std::string, int32_t> vocab_;
  std::vector<std::string> idToToken_;
  std::vector<bool> hasId_;
  std::unordered_map<uint64_t, Merge> merges_;
  std::string prefix_, suffix_;
  int32_t unk_ = -1;
  bool fuseUnk_ = false, byteFallback_ = false, ignoreMerges_ = false;
};

}  // namespace mgc::tok
