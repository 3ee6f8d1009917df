// libFuzzer target for the CLI argument surface (see fuzz_entries.h).
#include "tests/fuzz/fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mgc_fuzz::cli(data, size);
  return 0;
}
