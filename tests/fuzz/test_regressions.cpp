// Replays every saved fuzz input through the same entry points the fuzz
// targets use: tests/fuzz/regressions/<target>/ (inputs that once crashed a
// reader) and tests/fuzz/corpus/<target>/ (the seed corpus). Runs in the
// normal build, without libFuzzer; a regression crashes or aborts this test.
// A missing or misnamed folder fails the test: an empty replay would pass
// while replaying nothing.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_entries.h"

namespace fs = std::filesystem;

namespace {

std::vector<uint8_t> readAll(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// tests/fuzz/ of the source tree (CMake passes it: the test does not depend
// on its working directory).
const fs::path kFuzzDir = MGC_FUZZ_DIR;

// Runs `entry` on every file under tests/fuzz/<kind>/<target>/ (none when
// that folder does not exist); returns the count.
size_t replay(const char* kind, const char* target, void (*entry)(const uint8_t*, size_t)) {
  const fs::path dir = kFuzzDir / kind / target;
  size_t n = 0;
  if (!fs::is_directory(dir)) return 0;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().filename() == "README.md") continue;
    INFO(e.path().string());
    const std::vector<uint8_t> bytes = readAll(e.path());
    entry(bytes.data(), bytes.size());
    ++n;
  }
  return n;
}

struct Target {
  const char* name;
  void (*entry)(const uint8_t*, size_t);
};
const Target kTargets[] = {{"bundle", mgc_fuzz::bundle},
                           {"onnx", mgc_fuzz::onnx},
                           {"ir", mgc_fuzz::ir},
                           {"npy", mgc_fuzz::npy},
                           {"safetensors", mgc_fuzz::safetensors},
                           {"pipeline_cache", mgc_fuzz::pipelineCache},
                           {"hf_json", mgc_fuzz::hfJson},
                           {"tokenizer", mgc_fuzz::tokenizer},
                           {"sentencepiece", mgc_fuzz::sentencepiece},
                           {"idx", mgc_fuzz::idx},
                           {"cli", mgc_fuzz::cli}};

}  // namespace

TEST_CASE("every seed corpus file passes through its reader", "[fuzz]") {
  for (const Target& t : kTargets) {
    INFO("target " << t.name);
    CHECK(replay("corpus", t.name, t.entry) > 0);  // the corpus is committed
  }
}

TEST_CASE("every saved crash input is now handled", "[fuzz]") {
  const fs::path dir = kFuzzDir / "regressions";
  REQUIRE(fs::is_directory(dir));
  // Inputs live in a folder named after their target: anything else here
  // (a misnamed folder, a loose file) would never be replayed.
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name == "README.md") continue;
    INFO("regressions/" << name << " is not a folder named after a fuzz target");
    CHECK((e.is_directory() &&
           std::any_of(std::begin(kTargets), std::end(kTargets), [&](const Target& t) { return name == t.name; })));
  }
  size_t n = 0;
  for (const Target& t : kTargets) n += replay("regressions", t.name, t.entry);
  CHECK(n > 0);  // crash inputs are committed (tests/fuzz/regressions/bundle/)
}

TEST_CASE("empty and tiny inputs are handled by every reader", "[fuzz]") {
  const uint8_t bytes[3] = {0, 0xff, 0x7f};
  for (const Target& t : kTargets)
    for (size_t n = 0; n <= sizeof bytes; ++n) t.entry(bytes, n);
}
