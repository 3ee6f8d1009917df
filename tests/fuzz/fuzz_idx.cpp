// libFuzzer target for the IDX (MNIST-format) reader (see fuzz_entries.h).
#include "tests/fuzz/fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mgc_fuzz::idx(data, size);
  return 0;
}
