// Profiling through the C API (mgrt_session_set_profiling & co.): one
// record per dispatch, ordered GPU times, the bundle's names and estimates,
// results unchanged, and nothing recorded while profiling is off.
#include <catch2/catch.hpp>
#include <string>

#include "tests/runtime/test_bundles.h"

using namespace rt_test;

namespace {

// addSpec with profiling metadata on its two dispatches.
mgb::BundleSpec annotatedSpec(uint32_t n) {
  mgb::BundleSpec spec = addSpec(n);
  for (size_t i = 0; i < 2; ++i) {
    mgb::DispatchEntry& d = spec.entryPoints[0].dispatches[i];
    d.shape = "f32[" + std::to_string(n) + "]";
    d.flops = 2ull * n + i;  // distinct per dispatch, to check the order
    d.bytes = 12ull * n;
  }
  return spec;
}

void runOnce(mgrt_session* s, uint32_t n, std::vector<float>* y2) {
  std::vector<float> a(n, 1.0f);
  REQUIRE(mgrt_session_set_input(s, "a", a.data(), a.size() * 4) == MGRT_OK);
  REQUIRE(mgrt_session_run(s) == MGRT_OK);
  y2->resize(n);
  REQUIRE(mgrt_session_get_output(s, "y2", y2->data(), y2->size() * 4) == MGRT_OK);
}

}  // namespace

TEST_CASE("a profiled run gives one record per dispatch, in order", "[runtime][profile]") {
  const uint32_t n = 1000;
  mgrt_model* m = load(mgb::writeBundle(annotatedSpec(n)));
  mgrt_session* s = nullptr;
  REQUIRE(mgrt_session_create(m, "infer", &s) == MGRT_OK);
  std::vector<float> plain, profiled;
  runOnce(s, n, &plain);
  CHECK(mgrt_session_profile_count(s) == 0);  // off by default: no records

  const mgrt_status st = mgrt_session_set_profiling(s, 1);
  INFO(mgrt_last_error());
  REQUIRE(st == MGRT_OK);                     // lavapipe and every GPU we run on have timestamps
  CHECK(mgrt_session_profile_count(s) == 0);  // nothing ran since
  for (int run = 0; run < 2; ++run) {         // each run replaces the records
    runOnce(s, n, &profiled);
    CHECK(profiled == plain);
    REQUIRE(mgrt_session_profile_count(s) == 2);
    uint64_t previousEnd = 0;
    for (int i = 0; i < 2; ++i) {
      mgrt_dispatch_profile p;
      REQUIRE(mgrt_session_profile_get(s, i, &p) == MGRT_OK);
      CHECK(std::string(p.kernel) == mgrt_model_kernel_name(m, 0));
      CHECK(std::string(p.variant) == mgrt_model_kernel_variant(m, 0));
      CHECK(std::string(p.node) == (i == 0 ? "add1" : "add2"));
      CHECK(std::string(p.shape) == "f32[1000]");
      CHECK(p.flops == 2ull * n + uint64_t(i));
      CHECK(p.bytes == 12ull * n);
      CHECK(p.end_ns >= p.start_ns);
      CHECK(p.start_ns >= previousEnd);  // one timeline, dispatches in order
      CHECK(p.barrier == (i == 1));      // the first waits on the input copies, not a barrier of its own
      previousEnd = p.end_ns;
    }
    CHECK(mgrt_session_last_gpu_ms(s) >= 0);
  }
  mgrt_dispatch_profile p;
  CHECK(mgrt_session_profile_get(s, 2, &p) == MGRT_INVALID_ARGUMENT);
  CHECK(std::string(mgrt_last_error()).find("out of range") != std::string::npos);
  CHECK(mgrt_session_profile_get(s, -1, &p) == MGRT_INVALID_ARGUMENT);
  CHECK(mgrt_session_profile_get(s, 0, nullptr) == MGRT_INVALID_ARGUMENT);

  REQUIRE(mgrt_session_set_profiling(s, 0) == MGRT_OK);
  runOnce(s, n, &profiled);
  CHECK(profiled == plain);
  CHECK(mgrt_session_profile_count(s) == 0);
  mgrt_session_destroy(s);
  mgrt_model_destroy(m);
  CHECK(mgrt_context_validation_messages(context()) == 0);
}

TEST_CASE("a bundle without profiling metadata profiles with empty estimates", "[runtime][profile]") {
  mgrt_model* m = load(mgb::writeBundle(addSpec(64, false)));
  mgrt_session* s = nullptr;
  REQUIRE(mgrt_session_create(m, "infer", &s) == MGRT_OK);
  REQUIRE(mgrt_session_set_profiling(s, 1) == MGRT_OK);
  std::vector<float> a(64, 2.0f);
  REQUIRE(mgrt_session_set_input(s, "a", a.data(), a.size() * 4) == MGRT_OK);
  REQUIRE(mgrt_session_run(s) == MGRT_OK);
  REQUIRE(mgrt_session_profile_count(s) == 1);
  mgrt_dispatch_profile p;
  REQUIRE(mgrt_session_profile_get(s, 0, &p) == MGRT_OK);
  CHECK(std::string(p.node) == "add1");
  CHECK(std::string(p.shape).empty());
  CHECK(p.flops == 0);
  CHECK(p.bytes == 0);
  CHECK(mgrt_session_set_profiling(nullptr, 1) == MGRT_INVALID_ARGUMENT);
  CHECK(mgrt_session_profile_count(nullptr) == 0);
  mgrt_session_destroy(s);
  mgrt_model_destroy(m);
}
