// Runs real bundles through the C API with validation on: results must be
// right and the validation layer silent.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/runtime/test_bundles.h"

using namespace rt_test;

namespace {

std::vector<float> inputA(uint32_t n, float scale) {
  std::vector<float> a(n);
  for (uint32_t i = 0; i < n; ++i) a[i] = scale * float(i) - 3.0f;
  return a;
}

}  // namespace

TEST_CASE("context reports its device and starts with no validation messages", "[runtime]") {
  mgrt_context* ctx = context();
  const std::string name = mgrt_context_device_name(ctx);
  INFO(name);
  CHECK(name.find("(Vulkan ") != std::string::npos);
  CHECK(mgrt_context_validation_messages(ctx) == 0);
}

TEST_CASE("two chained dispatches give a + b + 0.5 and then + b + 1", "[runtime]") {
  const uint32_t n = 1000;  // not a multiple of the 64-wide workgroup
  mgrt_model* m = load(mgb::writeBundle(addSpec(n)));
  mgrt_session* s = nullptr;
  REQUIRE(mgrt_session_create(m, "infer", &s) == MGRT_OK);

  REQUIRE(mgrt_session_input_count(s) == 1);
  REQUIRE(mgrt_session_output_count(s) == 2);
  mgrt_tensor_info info;
  REQUIRE(mgrt_session_input_info(s, 0, &info) == MGRT_OK);
  CHECK(std::string(info.name) == "a");
  CHECK(info.dtype == MGRT_F32);
  CHECK(info.rank == 1);
  CHECK(info.shape[0] == n);
  CHECK(info.bytes == n * 4);
  REQUIRE(mgrt_session_output_info(s, 0, &info) == MGRT_OK);
  CHECK(std::string(info.name) == "y2");
  CHECK(mgrt_session_output_info(s, 2, &info) == MGRT_INVALID_ARGUMENT);

  // Two runs with different inputs replay the same command buffer.
  for (float scale : {1.0f, -2.5f}) {
    const std::vector<float> a = inputA(n, scale);
    REQUIRE(mgrt_session_set_input(s, "a", a.data(), a.size() * 4) == MGRT_OK);
    const mgrt_status run = mgrt_session_run(s);
    INFO(mgrt_last_error());
    REQUIRE(run == MGRT_OK);
    std::vector<float> y1(n), y2(n);
    REQUIRE(mgrt_session_get_output(s, "y1", y1.data(), n * 4) == MGRT_OK);
    REQUIRE(mgrt_session_get_output(s, "y2", y2.data(), n * 4) == MGRT_OK);
    for (uint32_t i = 0; i < n; ++i) {
      const float b = 0.25f * float(i);
      REQUIRE(y1[i] == a[i] + b + 0.5f);
      REQUIRE(y2[i] == (a[i] + b + 0.5f) + b + 1.0f);
    }
  }
  const double ms = mgrt_session_last_gpu_ms(s);
  INFO("gpu ms " << ms);
  CHECK((ms >= 0.0 || ms == -1.0));
  mgrt_session_destroy(s);
  mgrt_model_destroy(m);
  CHECK(mgrt_context_validation_messages(context()) == 0);
}

TEST_CASE("two sessions of one model keep separate activations", "[runtime]") {
  const uint32_t n = 100;
  mgrt_model* m = load(mgb::writeBundle(addSpec(n)));
  mgrt_session *s1 = nullptr, *s2 = nullptr;
  REQUIRE(mgrt_session_create(m, "infer", &s1) == MGRT_OK);
  REQUIRE(mgrt_session_create(m, "infer", &s2) == MGRT_OK);
  const std::vector<float> a1 = inputA(n, 1.0f), a2 = inputA(n, 3.0f);
  REQUIRE(mgrt_session_set_input(s1, "a", a1.data(), n * 4) == MGRT_OK);
  REQUIRE(mgrt_session_set_input(s2, "a", a2.data(), n * 4) == MGRT_OK);
  REQUIRE(mgrt_session_run(s1) == MGRT_OK);
  REQUIRE(mgrt_session_run(s2) == MGRT_OK);
  std::vector<float> y1(n), y2(n);
  REQUIRE(mgrt_session_get_output(s1, "y1", y1.data(), n * 4) == MGRT_OK);
  REQUIRE(mgrt_session_get_output(s2, "y1", y2.data(), n * 4) == MGRT_OK);
  for (uint32_t i = 0; i < n; ++i) {
    REQUIRE(y1[i] == a1[i] + 0.25f * float(i) + 0.5f);
    REQUIRE(y2[i] == a2[i] + 0.25f * float(i) + 0.5f);
  }
  mgrt_session_destroy(s1);
  mgrt_session_destroy(s2);
  mgrt_model_destroy(m);
  CHECK(mgrt_context_validation_messages(context()) == 0);
}

TEST_CASE("a bundle loads from a file", "[runtime]") {
  const std::vector<uint8_t> bytes = mgb::writeBundle(addSpec(64, false));
  const char* dir = std::getenv("TMPDIR");
  const std::string tmp = std::string(dir ? dir : "/tmp") + "/mgrt-test-add.mgb";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  REQUIRE(f);
  REQUIRE(std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size());
  std::fclose(f);
  mgrt_model* m = nullptr;
  REQUIRE(mgrt_model_load_file(context(), tmp.c_str(), &m) == MGRT_OK);
  mgrt_model_destroy(m);
  std::remove(tmp.c_str());

  CHECK(mgrt_model_load_file(context(), "/nonexistent/x.mgb", &m) == MGRT_IO_ERROR);
  CHECK(m == nullptr);
  CHECK(std::string(mgrt_last_error()).find("/nonexistent/x.mgb") != std::string::npos);
}

TEST_CASE("no Vulkan driver gives MGRT_NO_DEVICE, not a crash", "[runtime]") {
  context();  // the shared context exists before the loader is pointed elsewhere
  setenv("VK_ICD_FILENAMES", "/nonexistent/icd.json", 1);
  mgrt_context* ctx = nullptr;
  mgrt_context_options opts{-1, 0, 0};
  const mgrt_status s = mgrt_context_create(&opts, &ctx);
  unsetenv("VK_ICD_FILENAMES");
  INFO(mgrt_last_error());
  CHECK(s == MGRT_NO_DEVICE);
  CHECK(ctx == nullptr);
}

TEST_CASE("an out-of-range device index is refused", "[runtime]") {
  mgrt_context* ctx = nullptr;
  mgrt_context_options opts{1000, 0, 0};
  CHECK(mgrt_context_create(&opts, &ctx) == MGRT_NO_DEVICE);
  CHECK(std::string(mgrt_last_error()).find("device 1000") != std::string::npos);
  CHECK(ctx == nullptr);
}

TEST_CASE("status strings", "[runtime]") {
  CHECK(std::string(mgrt_status_string(MGRT_OK)) == "ok");
  CHECK(std::string(mgrt_status_string(MGRT_INVALID_BUNDLE)) == "invalid bundle");
  CHECK(std::string(mgrt_status_string(mgrt_status(99))) == "unknown status");
}
