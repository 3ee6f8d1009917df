// Replays every saved fuzz input through the same entry points the fuzz
// targets use: tests/fuzz/regressions/<target>/ (inputs that once crashed a
// reader) and tests/fuzz/corpus/<target>/ (the seed corpus). Runs in the
// normal build, without libFuzzer; a regression crashes or aborts this test.
#include <catch2/catch.hpp>

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

// Runs `entry` on every file under tests/fuzz/<kind>/<target>/; returns the count.
size_t replay(const char* kind, const char* target, void (*entry)(const uint8_t*, size_t)) {
  const fs::path dir = fs::path("tests/fuzz") / kind / target;
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
                           {"safetensors", mgc_fuzz::safetensors}};

}  // namespace

TEST_CASE("every seed corpus file passes through its reader", "[fuzz]") {
  for (const Target& t : kTargets) {
    INFO("target " << t.name);
    CHECK(replay("corpus", t.name, t.entry) > 0);  // the corpus is committed
  }
}

TEST_CASE("every saved crash input is now handled", "[fuzz]") {
  for (const Target& t : kTargets) replay("regressions", t.name, t.entry);
}

TEST_CASE("empty and tiny inputs are handled by every reader", "[fuzz]") {
  const uint8_t bytes[3] = {0, 0xff, 0x7f};
  for (const Target& t : kTargets)
    for (size_t n = 0; n <= sizeof bytes; ++n) t.entry(bytes, n);
}
