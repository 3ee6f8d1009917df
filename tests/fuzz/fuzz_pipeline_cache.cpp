// libFuzzer target for the pipeline cache file check (see fuzz_entries.h).
#include "tests/fuzz/fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mgc_fuzz::pipelineCache(data, size);
  return 0;
}
