// Hostile bundles and bad calls: every one must fail with a status and a
// message naming the problem — never crash, never touch the GPU wrongly.
#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "formats/bundle_layout.h"
#include "tests/runtime/test_bundles.h"

using namespace rt_test;

namespace {

// Loads bytes; if that works, runs the model once. Returns the load status.
mgrt_status loadAndRun(const std::vector<uint8_t>& bytes) {
  mgrt_model* m = nullptr;
  const mgrt_status s = mgrt_model_load(context(), bytes.data(), bytes.size(), &m);
  if (s != MGRT_OK) {
    CHECK(m == nullptr);
    CHECK(std::string(mgrt_last_error()).size() > 0);
    return s;
  }
  mgrt_session* session = nullptr;
  if (mgrt_session_create(m, "infer", &session) == MGRT_OK) {
    std::vector<float> a(16, 1.0f), y(16);
    mgrt_session_set_input(session, "a", a.data(), a.size() * 4);
    mgrt_session_run(session);
    mgrt_session_get_output(session, "y1", y.data(), y.size() * 4);
    mgrt_session_destroy(session);
  }
  mgrt_model_destroy(m);
  return s;
}

// Writes addSpec(16, false) after `edit`, expects load to fail with
// `status` and a message containing `needle`.
void expectRejected(const std::function<void(mgb::BundleSpec&)>& edit, mgrt_status status,
                    const std::string& needle) {
  rt_test::expectRejected(addSpec(16, false), edit, status, needle);
}

}  // namespace

TEST_CASE("every truncated prefix of a bundle fails cleanly", "[runtime][hostile]") {
  const std::vector<uint8_t> bytes = mgb::writeBundle(addSpec(16, false));
  for (size_t n = 0; n < bytes.size(); ++n) {
    const std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + long(n));
    mgrt_model* m = nullptr;
    REQUIRE(mgrt_model_load(context(), prefix.data(), prefix.size(), &m) == MGRT_INVALID_BUNDLE);
    REQUIRE(m == nullptr);
  }
  CHECK(mgrt_context_validation_messages(context()) == 0);
}

TEST_CASE("every flipped byte is caught by the checksum", "[runtime][hostile]") {
  const std::vector<uint8_t> bytes = mgb::writeBundle(addSpec(16, false));
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::vector<uint8_t> bad = bytes;
    bad[i] ^= 0xff;
    INFO("byte " << i);
    REQUIRE(loadAndRun(bad) == MGRT_INVALID_BUNDLE);
  }
}

TEST_CASE("flipped bytes with a recomputed checksum never crash", "[runtime][hostile]") {
  const std::vector<uint8_t> bytes = mgb::writeBundle(addSpec(16, false));
  int loaded = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (uint8_t mask : {uint8_t(0x01), uint8_t(0x80)}) {
      std::vector<uint8_t> bad = bytes;
      bad[i] ^= mask;
      fixChecksum(&bad);
      if (loadAndRun(bad) == MGRT_OK) ++loaded;
    }
  }
  INFO("loaded " << loaded << " of " << 2 * bytes.size() << " mutants");
  CHECK(loaded > 0);  // weight and padding flips stay valid bundles
  CHECK(mgrt_context_validation_messages(context()) == 0);
}

TEST_CASE("header damage is named", "[runtime][hostile]") {
  const std::vector<uint8_t> good = mgb::writeBundle(addSpec(16, false));
  auto patched = [&](size_t offset, uint64_t value, bool fix) {
    std::vector<uint8_t> b = good;
    std::memcpy(b.data() + offset, &value, 8);
    if (fix) fixChecksum(&b);
    mgrt_model* m = nullptr;
    const mgrt_status s = mgrt_model_load(context(), b.data(), b.size(), &m);
    CHECK(m == nullptr);
    return std::make_pair(s, std::string(mgrt_last_error()));
  };
  auto r = patched(offsetof(mgb::Header, weights_offset), 1ull << 40, true);
  CHECK(r.first == MGRT_INVALID_BUNDLE);
  CHECK(r.second.find("weights section") != std::string::npos);
  r = patched(offsetof(mgb::Header, weights_size), ~0ull, true);
  CHECK(r.second.find("weights section") != std::string::npos);
  r = patched(offsetof(mgb::Header, manifest_size), good.size(), true);
  CHECK(r.second.find("manifest") != std::string::npos);
  r = patched(offsetof(mgb::Header, manifest_offset), 3, true);
  CHECK(r.second.find("manifest") != std::string::npos);
  r = patched(offsetof(mgb::Header, file_size), good.size() + 1, true);
  CHECK(r.second.find("truncated") != std::string::npos);
  r = patched(offsetof(mgb::Header, checksum), 1234, false);
  CHECK(r.second.find("checksum") != std::string::npos);
  r = patched(0, 0x1234, true);
  CHECK(r.second.find("magic") != std::string::npos);
  std::vector<uint8_t> version = good;
  version[4] = 7;
  fixChecksum(&version);
  mgrt_model* m = nullptr;
  CHECK(mgrt_model_load(context(), version.data(), version.size(), &m) == MGRT_INVALID_BUNDLE);
  CHECK(std::string(mgrt_last_error()).find("version 7") != std::string::npos);
  CHECK(mgrt_model_load(context(), nullptr, 0, &m) == MGRT_INVALID_BUNDLE);
  CHECK(mgrt_model_load(nullptr, good.data(), good.size(), &m) == MGRT_INVALID_ARGUMENT);
}

TEST_CASE("a garbage manifest fails FlatBuffers verification", "[runtime][hostile]") {
  std::vector<uint8_t> b = mgb::writeBundle(addSpec(16, false));
  mgb::Header h;
  std::memcpy(&h, b.data(), sizeof h);
  for (uint64_t i = 8; i < h.manifest_size; ++i) b[h.manifest_offset + i] = uint8_t(i * 7 + 3);
  fixChecksum(&b);
  mgrt_model* m = nullptr;
  CHECK(mgrt_model_load(context(), b.data(), b.size(), &m) == MGRT_INVALID_BUNDLE);
  CHECK(std::string(mgrt_last_error()).find("FlatBuffers") != std::string::npos);
}

TEST_CASE("semantic errors are refused with a message naming the culprit", "[runtime][hostile]") {
  using S = mgb::BundleSpec;
  expectRejected([](S& s) { s.entryPoints[0].dispatches[0].bindings[2].offset = 4096; },
                 MGRT_INVALID_BUNDLE, "dispatch 0 (node 'add1') binding 3: range [4096, 4160) outside arena 1");
  expectRejected([](S& s) { s.entryPoints[0].dispatches[0].bindings[1].arena = 9; },
                 MGRT_INVALID_BUNDLE, "binding 2: arena 9 does not exist");
  expectRejected([](S& s) { s.entryPoints[0].dispatches[0].bindings[0].offset = 2; },
                 MGRT_INVALID_BUNDLE, "storage buffer alignment");
  expectRejected([](S& s) { s.entryPoints[0].dispatches[0].bindings[0].size = 0; },
                 MGRT_INVALID_BUNDLE, "positive multiple of 4");
  expectRejected([](S& s) { s.entryPoints[0].dispatches[0].bindings.pop_back(); },
                 MGRT_INVALID_BUNDLE, "2 bindings but kernel 0 expects 3");
  expectRejected([](S& s) { s.entryPoints[0].dispatches[0].kernel = 5; },
                 MGRT_INVALID_BUNDLE, "kernel 5 does not exist");
  expectRejected([](S& s) { s.entryPoints[0].dispatches[0].groups[1] = 0; },
                 MGRT_INVALID_BUNDLE, "groups[1] is 0");
  expectRejected([](S& s) { s.entryPoints[0].dispatches[0].shape = std::string(257, 'x'); },
                 MGRT_INVALID_BUNDLE, "dispatch 0 (node 'add1'): shape text is 257 bytes, more than 256");
  expectRejected([](S& s) { s.entryPoints[0].dispatches[0].groups[0] = 0xffffffffu; },
                 MGRT_UNSUPPORTED, "groups[0] = 4294967295 exceeds the device limit");
  expectRejected([](S& s) { s.kernels[0].variants[0].localSize[0] = 32; },
                 MGRT_INVALID_BUNDLE, "LocalSize (64, 1, 1) differs");
  expectRejected([](S& s) { s.kernels[0].variants[0].localSize[2] = 0; }, MGRT_INVALID_BUNDLE, "local_size[2] is 0");
  expectRejected([](S& s) { s.kernels[0].variants[0].localSize[0] = 1u << 20; }, MGRT_INVALID_BUNDLE,
                 "LocalSize (64, 1, 1) differs");
  expectRejected([](S& s) { s.kernels[0].variants.clear(); }, MGRT_INVALID_BUNDLE, "kernel 0 ('add'): has no variants");
  expectRejected([](S& s) { s.kernels[0].variants[0].features = 1u << 30; }, MGRT_INVALID_BUNDLE,
                 "needs unknown device features");
  expectRejected([](S& s) { s.kernels[0].variants[0].cooperativeMatrix = {16, 16}; }, MGRT_INVALID_BUNDLE,
                 "cooperative_matrix must be");
  expectRejected([](S& s) { s.entryPoints[0].dispatches[0].items = 1ull << 40; }, MGRT_INVALID_BUNDLE,
                 "exceed the kernels' 32-bit index space");
  expectRejected([](S& s) { s.kernels[0].numBindings = 0xffffffffu; }, MGRT_UNSUPPORTED, "storage buffers per stage");
  expectRejected([](S& s) { s.kernels[0].variants[0].spirv[0] = 0x12345678; }, MGRT_INVALID_BUNDLE, "magic is 0x12345678");
  expectRejected([](S& s) { s.kernels[0].variants[0].spirv.resize(3); }, MGRT_INVALID_BUNDLE, "shorter than its header");
  expectRejected([](S& s) { s.kernels[0].variants[0].spirv[5] = 0; }, MGRT_INVALID_BUNDLE, "word count 0");
  expectRejected([](S& s) { s.kernels[0].variants[0].spirv.back() = 0xffff0001u; }, MGRT_INVALID_BUNDLE, "runs past the end");
  expectRejected([](S& s) { s.tensors[1].size = 60; }, MGRT_INVALID_BUNDLE, "tensor 1 ('a'): size 60 bytes but its 16 elements need 64");
  expectRejected([](S& s) { s.tensors[1].shape = {-1}; }, MGRT_INVALID_BUNDLE, "negative or overflowing");
  expectRejected([](S& s) { s.tensors[1].shape = {1ll << 40, 1ll << 40}; }, MGRT_INVALID_BUNDLE, "negative or overflowing");
  expectRejected([](S& s) { s.tensors[1].dtype = 42; }, MGRT_INVALID_BUNDLE, "dtype 42");
  expectRejected([](S& s) { s.tensors[1].deviceDtype = 4; }, MGRT_INVALID_BUNDLE, "device dtype I32");
  expectRejected([](S& s) { s.tensors[2].offset = 1u << 20; }, MGRT_INVALID_BUNDLE, "tensor 2 ('y1'): range");
  expectRejected([](S& s) { s.tensors[2].arena = 7; }, MGRT_INVALID_BUNDLE, "arena 7 does not exist");
  expectRejected([](S& s) { s.arenas[0].kind = 1; }, MGRT_INVALID_BUNDLE, "arena 0 must be the Weights arena");
  expectRejected([](S& s) { s.arenas[1].kind = 0; }, MGRT_INVALID_BUNDLE, "only arena 0");
  expectRejected([](S& s) { s.arenas[1].kind = 9; }, MGRT_INVALID_BUNDLE, "unknown kind 9");
  expectRejected([](S& s) { s.weights.pop_back(); }, MGRT_INVALID_BUNDLE, "weights section is 63 bytes but arena 0");
  expectRejected([](S& s) { s.entryPoints[0].inputs = {12}; }, MGRT_INVALID_BUNDLE, "tensor 12 does not exist");
  expectRejected([](S& s) { s.entryPoints[0].inputs = {0}; }, MGRT_INVALID_BUNDLE, "read-only weights arena");
  expectRejected([](S& s) { s.entryPoints[0].inputs = {1, 1}; }, MGRT_INVALID_BUNDLE, "appears twice");
  expectRejected([](S& s) { s.tensors[2].name = "a"; s.entryPoints[0].inputs = {1, 2}; },
                 MGRT_INVALID_BUNDLE, "appears twice");
  expectRejected([](S& s) { s.tensors[2].offset = 0; s.tensors[2].name = "c"; s.entryPoints[0].inputs = {1, 2}; },
                 MGRT_INVALID_BUNDLE, "inputs 'a' and 'c' overlap");
  expectRejected([](S& s) { s.entryPoints[0].outputs = {99}; }, MGRT_INVALID_BUNDLE, "output 0: tensor 99");
  expectRejected([](S& s) { s.entryPoints.push_back(s.entryPoints[0]); }, MGRT_INVALID_BUNDLE, "name appears twice");
  expectRejected([](S& s) { s.entryPoints.clear(); }, MGRT_INVALID_BUNDLE, "no entry points");
  expectRejected([](S& s) { s.arenas[1].size = 1ull << 62; }, MGRT_OUT_OF_MEMORY, "bytes per allocation");
  CHECK(mgrt_context_validation_messages(context()) == 0);
}

TEST_CASE("bad calls on a good session are refused", "[runtime][hostile]") {
  mgrt_model* m = load(mgb::writeBundle(addSpec(16, false)));
  mgrt_session* s = nullptr;
  CHECK(mgrt_session_create(m, "train", &s) == MGRT_INVALID_ARGUMENT);
  CHECK(std::string(mgrt_last_error()).find("unknown entry point 'train' (bundle has: infer)") != std::string::npos);
  CHECK(s == nullptr);
  REQUIRE(mgrt_session_create(m, "infer", &s) == MGRT_OK);

  std::vector<float> a(16, 2.0f), y(16);
  CHECK(mgrt_session_get_output(s, "y1", y.data(), 64) == MGRT_INVALID_ARGUMENT);  // before run
  CHECK(mgrt_session_set_input(s, "a", a.data(), 60) == MGRT_INVALID_ARGUMENT);
  CHECK(std::string(mgrt_last_error()) == "input 'a' is F32[16] = 64 bytes, got 60");
  CHECK(mgrt_session_set_input(s, "nope", a.data(), 64) == MGRT_INVALID_ARGUMENT);
  CHECK(std::string(mgrt_last_error()) == "unknown input 'nope' (inputs: a)");
  CHECK(mgrt_session_set_input(s, "a", nullptr, 64) == MGRT_INVALID_ARGUMENT);
  CHECK(mgrt_session_set_input(nullptr, "a", a.data(), 64) == MGRT_INVALID_ARGUMENT);
  REQUIRE(mgrt_session_set_input(s, "a", a.data(), 64) == MGRT_OK);
  REQUIRE(mgrt_session_run(s) == MGRT_OK);
  CHECK(mgrt_session_get_output(s, "y1", y.data(), 65) == MGRT_INVALID_ARGUMENT);
  CHECK(mgrt_session_get_output(s, "a", y.data(), 64) == MGRT_INVALID_ARGUMENT);
  REQUIRE(mgrt_session_get_output(s, "y1", y.data(), 64) == MGRT_OK);
  CHECK(y[3] == 2.0f + 0.75f + 0.5f);
  mgrt_tensor_info info;
  CHECK(mgrt_session_input_info(s, -1, &info) == MGRT_INVALID_ARGUMENT);
  CHECK(mgrt_session_input_info(s, 0, nullptr) == MGRT_INVALID_ARGUMENT);
  CHECK(mgrt_session_run(nullptr) == MGRT_INVALID_ARGUMENT);
  CHECK(mgrt_session_input_count(nullptr) == 0);
  CHECK(mgrt_session_last_gpu_ms(nullptr) < 0);
  mgrt_session_destroy(s);
  mgrt_model_destroy(m);
  mgrt_session_destroy(nullptr);
  mgrt_model_destroy(nullptr);
  mgrt_context_destroy(nullptr);
  CHECK(mgrt_context_validation_messages(context()) == 0);
}

TEST_CASE("a zero-element tensor is legal with size 0 and refused with any other size", "[runtime][hostile]") {
  // f32[2,0]: loads, runs (no copy is recorded), and reads back as 0 bytes.
  mgrt_model* m = load(mgb::writeBundle(identitySpec(MGRT_F32, {2, 0})));
  mgrt_session* s = nullptr;
  REQUIRE(mgrt_session_create(m, "identity", &s) == MGRT_OK);
  mgrt_tensor_info info;
  REQUIRE(mgrt_session_output_info(s, 0, &info) == MGRT_OK);
  CHECK(info.bytes == 0);
  float unused = 0.0f;
  CHECK(mgrt_session_set_input(s, "x", &unused, 0) == MGRT_OK);
  CHECK(mgrt_session_set_input(s, "x", &unused, 4) == MGRT_INVALID_ARGUMENT);
  REQUIRE(mgrt_session_run(s) == MGRT_OK);
  CHECK(mgrt_session_get_output(s, "x", &unused, 0) == MGRT_OK);
  mgrt_session_destroy(s);
  mgrt_model_destroy(m);
  // The same tensor claiming a word of storage is a lie about its shape.
  mgb::BundleSpec spec = identitySpec(MGRT_F32, {2, 0});
  spec.arenas[1].size = 256;
  spec.tensors[0].size = 4;
  const std::vector<uint8_t> bytes = mgb::writeBundle(spec);
  m = nullptr;
  CHECK(mgrt_model_load(context(), bytes.data(), bytes.size(), &m) == MGRT_INVALID_BUNDLE);
  CHECK(m == nullptr);
  CHECK(std::string(mgrt_last_error()).find("tensor 0 ('x'): size 4 bytes but its 0 elements need 0") != std::string::npos);
  CHECK(mgrt_context_validation_messages(context()) == 0);
}
