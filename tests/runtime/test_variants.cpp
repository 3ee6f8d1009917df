// Kernel variants: the runtime runs the first variant of each kernel that
// the device supports and the portable one elsewhere, with the same results.
// The bundle holds tests/runtime/kernels/widen_f16.comp twice: "f16s" reads
// halves through 16-bit storage, "portable" unpacks them from uints.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <string>

#include "runtime/core/limits.h"
#include "runtime/core/verify.h"
#include "tests/runtime/test_bundles.h"

using namespace rt_test;

namespace {

const uint32_t kWidenF16s[] = {
#include "widen_f16.f16s.spv.inc"
};
const uint32_t kWidenPortable[] = {
#include "widen_f16.portable.spv.inc"
};

constexpr uint32_t kN = 1000;  // halves in the weights; not a multiple of 64

mgb::KernelVariantEntry variant(const char* tag, const uint32_t* b, const uint32_t* e, uint32_t features) {
  mgb::KernelVariantEntry v;
  v.tag = tag;
  v.spirv.assign(b, e);
  v.localSize[0] = 64;
  v.features = features;
  return v;
}

// y[i] = float(half i), halves = i / 8 - 40 (exact in fp16).
mgb::BundleSpec widenSpec(bool withFast = true) {
  mgb::BundleSpec s;
  s.producer = "mgrt tests";
  mgb::KernelEntry k;
  k.name = "widen_f16";
  k.numBindings = 2;
  if (withFast)
    k.variants.push_back(variant("f16s", std::begin(kWidenF16s), std::end(kWidenF16s), MGRT_FEATURE_STORAGE16));
  k.variants.push_back(variant("portable", std::begin(kWidenPortable), std::end(kWidenPortable), 0));
  s.kernels.push_back(k);
  s.arenas.push_back({0, kN * 2});
  s.arenas.push_back({1, (kN * 4 + 255) / 256 * 256});
  for (uint32_t i = 0; i < kN; ++i) {
    // float(i) / 8 - 40 as an IEEE half, built by hand: |v| <= 85, step 1/8.
    const float v = float(i) / 8.0f - 40.0f;
    uint16_t h = 0;
    if (v != 0.0f) {
      int e;
      const float m = std::frexp(std::fabs(v), &e);  // v = m * 2^e, m in [0.5, 1)
      const uint32_t mant = uint32_t(std::lround((m * 2.0f - 1.0f) * 1024.0f));
      h = uint16_t((v < 0 ? 0x8000 : 0) | (uint32_t(e - 1 + 15) << 10) | mant);
    }
    s.weights.push_back(uint8_t(h));
    s.weights.push_back(uint8_t(h >> 8));
  }
  mgb::TensorEntry y;
  y.name = "y";
  y.shape = {int64_t(kN)};
  y.arena = 1;
  y.size = kN * 4;
  s.tensors.push_back(y);
  mgb::DispatchEntry d;
  d.params = {kN};
  d.bindings = {{0, 0, kN * 2}, {1, 0, kN * 4}};
  d.items = kN;  // the grid comes from the chosen variant's local size
  d.groups[0] = (kN + 63) / 64;
  d.node = "widen";
  mgb::EntryPointEntry e;
  e.name = "infer";
  e.outputs = {0};
  e.dispatches.push_back(d);
  s.entryPoints.push_back(e);
  return s;
}

// Runs the bundle on `ctx`; returns the variant tag it ran and checks y.
std::string runWiden(mgrt_context* ctx) {
  const std::vector<uint8_t> bytes = mgb::writeBundle(widenSpec());
  mgrt_model* m = nullptr;
  const mgrt_status ls = mgrt_model_load(ctx, bytes.data(), bytes.size(), &m);
  INFO(mgrt_last_error());
  REQUIRE(ls == MGRT_OK);
  REQUIRE(mgrt_model_kernel_count(m) == 1);
  CHECK(std::string(mgrt_model_kernel_name(m, 0)) == "widen_f16");
  CHECK(mgrt_model_kernel_variant(m, 1) == nullptr);
  const std::string tag = mgrt_model_kernel_variant(m, 0);
  mgrt_session* s = nullptr;
  REQUIRE(mgrt_session_create(m, "infer", &s) == MGRT_OK);
  REQUIRE(mgrt_session_run(s) == MGRT_OK);
  std::vector<float> y(kN);
  REQUIRE(mgrt_session_get_output(s, "y", y.data(), kN * 4) == MGRT_OK);
  int wrong = 0;
  for (uint32_t i = 0; i < kN; ++i) wrong += y[i] != float(i) / 8.0f - 40.0f;
  CHECK(wrong == 0);
  mgrt_session_destroy(s);
  mgrt_model_destroy(m);
  return tag;
}

mgrt_status verifyWith(const mgb::BundleSpec& spec, const mgrt::DeviceLimits& lim, mgrt::VerifiedBundle* vb) {
  static std::vector<uint8_t> bytes;  // the verified bundle points into it
  bytes = mgb::writeBundle(spec);
  return mgrt::verifyBundle(bytes.data(), bytes.size(), lim, vb);
}

}  // namespace

TEST_CASE("the device runs the 16-bit-storage variant when it has the feature", "[runtime][variants]") {
  mgrt_context* ctx = context();
  // lavapipe (CI) and every desktop GPU have 16-bit storage: the fast
  // variant must be chosen there, not silently the fallback.
  REQUIRE((mgrt_context_features(ctx) & MGRT_FEATURE_STORAGE16) != 0);
  CHECK(runWiden(ctx) == "f16s");
  CHECK(mgrt_context_validation_messages(ctx) == 0);
}

TEST_CASE("without the feature the portable variant runs, with the same results", "[runtime][variants]") {
  mgrt_context_options opts{-1, 1, MGRT_FEATURE_STORAGE16};
  mgrt_context* ctx = nullptr;
  REQUIRE(mgrt_context_create(&opts, &ctx) == MGRT_OK);
  CHECK((mgrt_context_features(ctx) & MGRT_FEATURE_STORAGE16) == 0);
  CHECK(runWiden(ctx) == "portable");
  CHECK(mgrt_context_validation_messages(ctx) == 0);
  mgrt_context_destroy(ctx);
}

TEST_CASE("MGRT_DISABLE_FEATURES keeps named features off, and names the known ones for a typo",
          "[runtime][variants]") {
  setenv("MGRT_DISABLE_FEATURES", "Storage16,AtomicFloat32Add", 1);
  mgrt_context_options opts{-1, 1, 0};
  mgrt_context* ctx = nullptr;
  const mgrt_status st = mgrt_context_create(&opts, &ctx);
  setenv("MGRT_DISABLE_FEATURES", "Storage16,Atomics", 1);
  mgrt_context* bad = nullptr;
  const mgrt_status badSt = mgrt_context_create(&opts, &bad);
  const std::string badMessage = mgrt_last_error();
  unsetenv("MGRT_DISABLE_FEATURES");
  REQUIRE(st == MGRT_OK);
  CHECK((mgrt_context_features(ctx) & (MGRT_FEATURE_STORAGE16 | MGRT_FEATURE_ATOMIC_FLOAT32_ADD)) == 0);
  CHECK(runWiden(ctx) == "portable");
  mgrt_context_destroy(ctx);
  CHECK(badSt == MGRT_INVALID_ARGUMENT);
  CHECK(bad == nullptr);
  CHECK(badMessage.find("unknown feature 'Atomics'") != std::string::npos);
  CHECK(badMessage.find("AtomicFloat32Add") != std::string::npos);
}

TEST_CASE("MGRT_PIPELINE_STATS=1 creates and runs the kernels as without it", "[runtime][variants]") {
  // The statistics go to stderr where the device offers
  // VK_KHR_pipeline_executable_properties (NVIDIA); lavapipe does not, and
  // must run exactly as before.
  mgrt_context_options opts{-1, 1, 0};
  mgrt_context* plain = nullptr;
  REQUIRE(mgrt_context_create(&opts, &plain) == MGRT_OK);
  const std::string expected = runWiden(plain);
  mgrt_context_destroy(plain);
  setenv("MGRT_PIPELINE_STATS", "1", 1);
  mgrt_context* ctx = nullptr;
  const mgrt_status st = mgrt_context_create(&opts, &ctx);
  unsetenv("MGRT_PIPELINE_STATS");
  REQUIRE(st == MGRT_OK);
  CHECK(runWiden(ctx) == expected);
  CHECK(mgrt_context_validation_messages(ctx) == 0);
  mgrt_context_destroy(ctx);
}

TEST_CASE("variant choice follows features, subgroup size and workgroup memory", "[variants]") {
  mgrt::DeviceLimits lim;
  lim.maxWorkGroupSize[0] = 1024;
  lim.maxWorkGroupInvocations = 1024;
  mgrt::VerifiedBundle vb;
  lim.features = MGRT_FEATURE_STORAGE16;
  REQUIRE(verifyWith(widenSpec(), lim, &vb) == MGRT_OK);
  CHECK(vb.variant == std::vector<uint32_t>{0});
  lim.features = 0;
  REQUIRE(verifyWith(widenSpec(), lim, &vb) == MGRT_OK);
  CHECK(vb.variant == std::vector<uint32_t>{1});

  // A subgroup-size-specific variant is skipped on another subgroup size.
  mgb::BundleSpec spec = widenSpec();
  spec.kernels[0].variants[0].subgroupSize = 32;
  lim.features = MGRT_FEATURE_STORAGE16;
  lim.subgroupSize = 8;
  REQUIRE(verifyWith(spec, lim, &vb) == MGRT_OK);
  CHECK(vb.variant == std::vector<uint32_t>{1});
  lim.subgroupSize = 32;
  REQUIRE(verifyWith(spec, lim, &vb) == MGRT_OK);
  CHECK(vb.variant == std::vector<uint32_t>{0});

  // Item dispatches take their grid from the chosen variant's local size;
  // a variant too wide for the device is skipped.
  lim.maxWorkGroupSize[0] = 32;
  lim.maxWorkGroupInvocations = 32;
  CHECK(verifyWith(spec, lim, &vb) == MGRT_UNSUPPORTED);
  const std::string msg = mgrt_last_error();
  CHECK(msg.find("no variant runs on this device") != std::string::npos);
  CHECK(msg.find("variant 1 ('portable') local_size[0] = 64 exceeds the device limit 32") != std::string::npos);
}

TEST_CASE("a variant may use only the capabilities and extensions its features allow", "[variants]") {
  mgrt::DeviceLimits lim;
  lim.features = ~0u;
  mgrt::VerifiedBundle vb;
  // The f16s module declares StorageBuffer16BitAccess and SPV_KHR_16bit_storage.
  mgb::BundleSpec spec = widenSpec();
  spec.kernels[0].variants[0].features = 0;
  CHECK(verifyWith(spec, lim, &vb) == MGRT_UNSUPPORTED);
  CHECK(std::string(mgrt_last_error()).find("variant 0: SPIR-V declares capability 4433") != std::string::npos);
  spec.kernels[0].variants[0].features = MGRT_FEATURE_FLOAT16;  // the wrong feature
  CHECK(verifyWith(spec, lim, &vb) == MGRT_UNSUPPORTED);
  spec.kernels[0].variants[0].features = MGRT_FEATURE_STORAGE16;
  CHECK(verifyWith(spec, lim, &vb) == MGRT_OK);
}
