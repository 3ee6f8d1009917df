// mgrt_context_set_pipeline_cache on the real device (validation on): the
// first load writes the file, a later context reads it and runs the same,
// and a damaged, foreign or unreadable file is ignored with a note.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

#include "runtime/vulkan/pipeline_cache_file.h"
#include "tests/runtime/test_bundles.h"

namespace fs = std::filesystem;
using namespace rt_test;

namespace {

// A folder of its own per test case, removed afterwards.
struct TempDir {
  fs::path path;
  explicit TempDir(const char* name) {
    path = fs::temp_directory_path() / ("mgrt_pcache_" + std::to_string(getpid()) + "_" + name);
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::vector<uint8_t> readBytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}
void writeBytes(const fs::path& p, const std::vector<uint8_t>& b) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

// A fresh context (validation on), as a new launch of the app would make.
struct Launch {
  mgrt_context* ctx = nullptr;
  explicit Launch(const fs::path& cache) {
    mgrt_context_options opts{-1, 1, 0};
    REQUIRE(mgrt_context_create(&opts, &ctx) == MGRT_OK);
    REQUIRE(mgrt_context_set_pipeline_cache(ctx, cache.c_str()) == MGRT_OK);
  }
  ~Launch() { mgrt_context_destroy(ctx); }
  int state() const { return mgrt_context_pipeline_cache_state(ctx); }
  std::string note() const { return mgrt_context_pipeline_cache_note(ctx); }

  // Loads the two-dispatch add bundle, runs it and checks y2 = a + 2b + 1.5.
  void loadAndRun() {
    const uint32_t n = 300;
    const std::vector<uint8_t> bytes = mgb::writeBundle(addSpec(n));
    mgrt_model* m = nullptr;
    const mgrt_status s = mgrt_model_load(ctx, bytes.data(), bytes.size(), &m);
    INFO(mgrt_last_error());
    REQUIRE(s == MGRT_OK);
    mgrt_session* sess = nullptr;
    REQUIRE(mgrt_session_create(m, "infer", &sess) == MGRT_OK);
    std::vector<float> a(n), y2(n);
    for (uint32_t i = 0; i < n; ++i) a[i] = float(i) * 0.5f - 7.0f;
    REQUIRE(mgrt_session_set_input(sess, "a", a.data(), n * 4) == MGRT_OK);
    REQUIRE(mgrt_session_run(sess) == MGRT_OK);
    REQUIRE(mgrt_session_get_output(sess, "y2", y2.data(), n * 4) == MGRT_OK);
    for (uint32_t i = 0; i < n; ++i) REQUIRE(y2[i] == a[i] + 2 * (0.25f * float(i)) + 1.5f);
    mgrt_session_destroy(sess);
    mgrt_model_destroy(m);
    CHECK(mgrt_context_validation_messages(ctx) == 0);
  }
};

}  // namespace

TEST_CASE("pipeline cache: the first launch writes the file, the next one loads it", "[runtime][pipeline_cache]") {
  TempDir dir("cold_warm");
  const fs::path file = dir.path / "pipelines.mgpc";
  {
    Launch cold(file);
    CHECK(cold.state() == MGRT_PIPELINE_CACHE_EMPTY);
    CHECK(cold.note() == "");
    CHECK(!fs::exists(file));
    cold.loadAndRun();
    REQUIRE(fs::is_regular_file(file));
    CHECK(cold.note() == "");
  }
  const std::vector<uint8_t> written = readBytes(file);
  REQUIRE(written.size() > mgrt::vk::kPipelineCacheHeaderSize + mgrt::vk::kVulkanCacheHeaderSize - 1);
  CHECK(std::string(written.begin(), written.begin() + 4) == "MGPC");
  // No temporary file is left behind.
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);
  {
    Launch warm(file);
    CHECK(warm.state() == MGRT_PIPELINE_CACHE_LOADED);
    CHECK(warm.note() == "");
    warm.loadAndRun();
    CHECK(warm.state() == MGRT_PIPELINE_CACHE_LOADED);
  }
  {
    Launch again(file);  // whatever the warm launch wrote is valid too
    CHECK(again.state() == MGRT_PIPELINE_CACHE_LOADED);
  }
}

TEST_CASE("pipeline cache: a damaged or foreign file is ignored, then replaced", "[runtime][pipeline_cache]") {
  TempDir dir("damaged");
  const fs::path file = dir.path / "pipelines.mgpc";
  {
    Launch first(file);
    first.loadAndRun();
  }
  const std::vector<uint8_t> good = readBytes(file);
  REQUIRE(good.size() > mgrt::vk::kPipelineCacheHeaderSize);

  std::vector<uint8_t> flipped = good;
  flipped.back() ^= 0xff;
  std::vector<uint8_t> foreign = good;
  foreign[8] ^= 0x01;  // vendorID, checksum repaired below: a file from another GPU
  {
    mgrt::vk::PipelineCacheKey other;
    std::memcpy(&other.vendorId, foreign.data() + 8, 4);
    std::memcpy(&other.deviceId, foreign.data() + 12, 4);
    std::memcpy(&other.driverVersion, foreign.data() + 16, 4);
    std::memcpy(other.uuid, foreign.data() + 20, 16);
    const uint8_t* payload = good.data() + mgrt::vk::kPipelineCacheHeaderSize;
    foreign = mgrt::vk::makePipelineCacheFile(other, payload, good.size() - mgrt::vk::kPipelineCacheHeaderSize);
  }
  struct Case {
    const char* what;
    std::vector<uint8_t> bytes;
    const char* note;
  };
  const Case cases[] = {{"one flipped byte", flipped, "checksum mismatch"},
                        {"another device", foreign, "written for another device"},
                        {"truncated", std::vector<uint8_t>(good.begin(), good.end() - 5), "truncated"},
                        {"empty", {}, "shorter than the 64-byte header"},
                        {"not a cache", std::vector<uint8_t>(500, 'x'), "bad magic"}};
  for (const Case& c : cases) {
    INFO(c.what);
    writeBytes(file, c.bytes);
    {
      Launch l(file);
      CHECK(l.state() == MGRT_PIPELINE_CACHE_IGNORED);
      CHECK_THAT(l.note(), Catch::Contains(c.note) && Catch::Contains(file.string()));
      l.loadAndRun();  // runs, compiling from scratch, and rewrites the file
    }
    Launch next(file);
    CHECK(next.state() == MGRT_PIPELINE_CACHE_LOADED);
  }
}

TEST_CASE("pipeline cache: a folder or an unwritable path is noted, never an error", "[runtime][pipeline_cache]") {
  TempDir dir("paths");
  {
    Launch l(dir.path);  // a folder
    CHECK(l.state() == MGRT_PIPELINE_CACHE_IGNORED);
    CHECK_THAT(l.note(), Catch::Contains("is a folder"));
    l.loadAndRun();
    CHECK_THAT(l.note(), Catch::Contains("not saved"));
  }
  {
    const fs::path missing = dir.path / "no" / "such" / "folder" / "pipelines.mgpc";
    Launch l(missing);
    CHECK(l.state() == MGRT_PIPELINE_CACHE_EMPTY);
    l.loadAndRun();
    CHECK_THAT(l.note(), Catch::Contains("not saved") && Catch::Contains("cannot create"));
    CHECK(!fs::exists(missing));
  }
  {
    mgrt_context* ctx = context();
    CHECK(mgrt_context_pipeline_cache_state(ctx) == MGRT_PIPELINE_CACHE_OFF);
    CHECK(mgrt_context_set_pipeline_cache(nullptr, "x") == MGRT_INVALID_ARGUMENT);
    CHECK(mgrt_context_pipeline_cache_state(nullptr) == MGRT_PIPELINE_CACHE_OFF);
    CHECK(std::string(mgrt_context_pipeline_cache_note(nullptr)) == "");
  }
}

TEST_CASE("pipeline cache: NULL turns it off again", "[runtime][pipeline_cache]") {
  TempDir dir("off");
  const fs::path file = dir.path / "pipelines.mgpc";
  Launch l(file);
  REQUIRE(mgrt_context_set_pipeline_cache(l.ctx, nullptr) == MGRT_OK);
  CHECK(l.state() == MGRT_PIPELINE_CACHE_OFF);
  l.loadAndRun();
  CHECK(!fs::exists(file));
}
