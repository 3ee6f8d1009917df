// A SentencePiece tokenizer.model (Llama 2 style checkpoints without a
// tokenizer.json): text ↔ token ids as libsentencepiece computes them,
// through libmgc_sentencepiece.so (sentencepiece/mgc_sentencepiece.h says
// why it is loaded apart). Any model type sentencepiece runs (BPE with byte
// fallback, unigram, ...) with the normalizer the file carries.
//
//   encode: sentencepiece's Encode; with addSpecialTokens, BOS first when
//           the model has one (transformers' LlamaTokenizer: add_bos_token
//           true, add_eos_token false)
//   decode: sentencepiece's Decode. skipSpecialTokens drops control pieces
//           (<s>, </s>) and <unk>, as transformers' skip_special_tokens;
//           without it each control piece is its text (`<s>`) between the
//           decodes of the ids around it, and <unk> is sentencepiece's " ⁇ ".
#pragma once

#include <cstdint>
#include <memory>

#include "compiler/tokenizer/sentencepiece_library.h"
#include "compiler/tokenizer/text_tokenizer.h"

namespace mgc::tok {

// The largest tokenizer.model file mgc reads (real ones: 0.5 MB for Llama 2,
// 4 MB for Gemma).
constexpr uint64_t kMaxSentencePieceModelBytes = uint64_t(256) << 20;

class SentencePieceModel : public TextTokenizer {
 public:
  // `bytes`: the file's contents (a serialized ModelProto); `name` starts
  // every error message (the file's path, or "BUNDLE.mgb: tokenizer.model").
  SentencePieceModel(const std::string& bytes, const std::string& name);

  std::vector<int64_t> encode(const std::string& text, bool addSpecialTokens) const override;
  std::string decode(const std::vector<int64_t>& ids, bool skipSpecialTokens) const override;
  int64_t vocabSize() const override { return int64_t(pieces_.size()); }
  const std::string* idToToken(int64_t id) const override;
  int64_t bosId() const { return bos_; }

 private:
  struct Free {
    const SentencePieceApi* api;
    void operator()(mgc_spm* m) const { api->free(m); }
  };
  std::string decodeRun(const std::vector<int32_t>& ids) const;

  std::string name_;
  const SentencePieceApi& api_;
  std::unique_ptr<mgc_spm, Free> model_;
  std::vector<std::string> pieces_;
  std::vector<uint32_t> kinds_;  // MGC_SPM_* bits per id
  int64_t bos_ = -1;
};

}  // namespace mgc::tok
