// libFuzzer target for SentencePiece tokenizer.model files (see fuzz_entries.h).
#include "tests/fuzz/fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mgc_fuzz::sentencepiece(data, size);
  return 0;
}
