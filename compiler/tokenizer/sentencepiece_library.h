// libmgc_sentencepiece.so (compiler/tokenizer/sentencepiece/, which says why
// it is a library of its own), loaded on first use with dlmopen into a
// namespace of its own, once per process.
#pragma once

#include <string>

#include "compiler/tokenizer/sentencepiece/mgc_sentencepiece.h"

namespace mgc::tok {

struct SentencePieceApi {
  decltype(&mgc_spm_load) load;
  decltype(&mgc_spm_free) free;
  decltype(&mgc_spm_piece_count) pieceCount;
  decltype(&mgc_spm_bos_id) bosId;
  decltype(&mgc_spm_piece) piece;
  decltype(&mgc_spm_piece_kind) pieceKind;
  decltype(&mgc_spm_encode) encode;
  decltype(&mgc_spm_decode) decode;
};

// The loaded library's entry points. Throws mgc::Error starting with `name`
// when it cannot be loaded (not found next to the executable, in the
// install folder or in the build folder; a missing libsentencepiece.so.0;
// another ABI version); the first failure's reason is kept for later calls.
const SentencePieceApi& sentencePieceApi(const std::string& name);

}  // namespace mgc::tok
