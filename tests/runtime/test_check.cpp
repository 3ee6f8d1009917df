// The self-check (mgb.fbs Check, mgrt_model_verify): a check that passes on
// the device, a tampered weight that fails it, the tolerance rules, a bundle
// without a check, and damaged check sections refused at load.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>

#include "formats/bundle_layout.h"
#include "formats/mgb_generated.h"
#include "tests/runtime/test_bundles.h"

using namespace rt_test;

namespace {

template <class T>
std::vector<uint8_t> bytesOf(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// addSpec(16, false): y1 = a + b + 0.5, b = 0.25 i, with a check whose
// reference output is computed here (exact in f32: every value is dyadic).
mgb::BundleSpec checkedSpec(double tolerance = 1e-5) {
  mgb::BundleSpec s = addSpec(16, false);
  std::vector<float> a(16), y(16);
  for (int i = 0; i < 16; ++i) {
    a[size_t(i)] = 1.0f - 0.125f * float(i);
    y[size_t(i)] = a[size_t(i)] + 0.25f * float(i) + 0.5f;
  }
  s.check = {"infer", {bytesOf(a)}, {bytesOf(y)}, tolerance};
  return s;
}

// An identity entry point of `dtype` whose check feeds `in` and expects `want`.
template <class T>
mgb::BundleSpec identityCheck(uint8_t dtype, const std::vector<T>& in, const std::vector<T>& want) {
  mgb::BundleSpec s = identitySpec(dtype, {int64_t(in.size())});
  s.check = {"identity", {bytesOf(in)}, {bytesOf(want)}, 1e-3};
  return s;
}

struct Verdict {
  mgrt_verify_report report{};
  mgrt_check_output output{};
};

Verdict verify(const std::vector<uint8_t>& bytes, double tolerance = -1) {
  mgrt_model* m = load(bytes);
  Verdict v;
  const mgrt_status s = mgrt_model_verify(m, tolerance, &v.report, &v.output, 1);
  INFO(mgrt_last_error());
  CHECK(s == MGRT_OK);
  mgrt_model_destroy(m);
  return v;
}

// The checked bundle with byte `k` of the weights section XORed with `mask`
// and the checksum recomputed, as a deliberate edit would leave it.
std::vector<uint8_t> tamperedWeights(size_t k, uint8_t mask) {
  std::vector<uint8_t> bytes = mgb::writeBundle(checkedSpec());
  mgb::Header h;
  std::memcpy(&h, bytes.data(), sizeof h);
  bytes[size_t(h.weights_offset) + k] ^= mask;
  fixChecksum(&bytes);
  return bytes;
}

void expectRejected(const std::function<void(mgb::BundleSpec&)>& edit, const std::string& needle) {
  rt_test::expectRejected(checkedSpec(), edit, MGRT_INVALID_BUNDLE, needle);
}

}  // namespace

TEST_CASE("an embedded check passes on the device", "[runtime][check]") {
  mgrt_model* m = load(mgb::writeBundle(checkedSpec()));
  CHECK(mgrt_model_has_check(m) == 1);
  mgrt_verify_report r{};
  mgrt_check_output out[2]{};
  REQUIRE(mgrt_model_verify(m, -1, &r, out, 2) == MGRT_OK);
  CHECK(std::string(r.entry_point) == "infer");
  CHECK(r.tolerance == 1e-5);
  CHECK(r.outputs == 1);
  CHECK(r.failed_outputs == 0);
  CHECK(r.passed == 1);
  CHECK(r.worst_error == 0);
  CHECK(std::string(out[0].name) == "y1");
  CHECK(out[0].passed == 1);
  CHECK(out[0].max_abs_error == 0);
  // No per-output room is fine; the verdict is the same.
  REQUIRE(mgrt_model_verify(m, -1, &r, nullptr, 0) == MGRT_OK);
  CHECK(r.passed == 1);
  mgrt_model_destroy(m);
  CHECK(mgrt_context_validation_messages(context()) == 0);
}

TEST_CASE("a weight altered after compile fails the check", "[runtime][check]") {
  // The exponent byte of b[3] = 0.75: y1[3] becomes ~2.6e38.
  Verdict far = verify(tamperedWeights(4 * 3 + 3, 0x40));
  CHECK(far.report.passed == 0);
  CHECK(far.report.failed_outputs == 1);
  CHECK(far.output.passed == 0);
  CHECK(far.output.max_abs_error > 1e30);
  // The lowest exponent bit of b[3]: 0.75 -> 0.1875, y1[3] 1.875 -> 1.3125,
  // an error of 0.5625 / 1.875 = 0.3 relative to the reference.
  Verdict near = verify(tamperedWeights(4 * 3 + 3, 0x01));
  CHECK(near.report.passed == 0);
  CHECK(near.output.max_abs_error == Approx(0.5625));
  CHECK(near.output.max_rel_error == Approx(0.3));
  CHECK(near.output.worst_error == Approx(0.3));
  // The caller's tolerance replaces the bundle's.
  Verdict loose = verify(tamperedWeights(4 * 3 + 3, 0x01), 0.31);
  CHECK(loose.report.tolerance == 0.31);
  CHECK(loose.report.passed == 1);
  CHECK(verify(tamperedWeights(4 * 3 + 3, 0x01), 0.29).report.passed == 0);
}

TEST_CASE("integers must match exactly; NaN matches only NaN", "[runtime][check]") {
  using I = std::vector<int32_t>;
  CHECK(verify(mgb::writeBundle(identityCheck(4, I{1, -2, 3, 4}, I{1, -2, 3, 4}))).report.passed == 1);
  Verdict offByOne = verify(mgb::writeBundle(identityCheck(4, I{1, -2, 3, 4}, I{1, -2, 3, 5})), 1e30);
  CHECK(offByOne.report.passed == 0);
  CHECK(offByOne.output.max_abs_error == 1);
  CHECK(std::isinf(offByOne.output.worst_error));
  using L = std::vector<int64_t>;  // i64 on an i32 device: negative values survive the round trip
  CHECK(verify(mgb::writeBundle(identityCheck(3, L{-5, 0, 1ll << 30}, L{-5, 0, 1ll << 30}))).report.passed == 1);

  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  using F = std::vector<float>;
  CHECK(verify(mgb::writeBundle(identityCheck(0, F{nan, inf, -inf, 2}, F{nan, inf, -inf, 2}))).report.passed == 1);
  Verdict nanVsNumber = verify(mgb::writeBundle(identityCheck(0, F{nan, 1, 1, 2}, F{1, 1, 1, 2})), 1e30);
  CHECK(nanVsNumber.report.passed == 0);
  CHECK(std::isinf(nanVsNumber.output.worst_error));
  CHECK(verify(mgb::writeBundle(identityCheck(0, F{inf, 1}, F{-inf, 1})), 1e30).report.passed == 0);
}

TEST_CASE("a bundle without a check says so", "[runtime][check]") {
  mgrt_model* m = load(mgb::writeBundle(addSpec(16, false)));
  CHECK(mgrt_model_has_check(m) == 0);
  mgrt_verify_report r{};
  CHECK(mgrt_model_verify(m, -1, &r, nullptr, 0) == MGRT_INVALID_ARGUMENT);
  CHECK(std::string(mgrt_last_error()).find("no self-check (compile it with mgc compile --embed-check)") !=
        std::string::npos);
  CHECK(mgrt_model_verify(m, -1, nullptr, nullptr, 0) == MGRT_INVALID_ARGUMENT);
  CHECK(mgrt_model_verify(nullptr, -1, &r, nullptr, 0) == MGRT_INVALID_ARGUMENT);
  CHECK(mgrt_model_verify(m, -1, &r, nullptr, 3) == MGRT_INVALID_ARGUMENT);
  CHECK(mgrt_model_has_check(nullptr) == 0);
  mgrt_model_destroy(m);
}

TEST_CASE("a damaged check section is refused at load", "[runtime][check][hostile]") {
  using S = mgb::BundleSpec;
  expectRejected([](S& s) { s.check.entryPoint = "nope"; }, "check: entry point 'nope' does not exist");
  expectRejected([](S& s) { s.check.inputs.clear(); }, "check: 0 inputs but the entry point has 1");
  expectRejected([](S& s) { s.check.outputs.push_back(s.check.outputs[0]); },
                 "check: 2 outputs but the entry point has 1");
  expectRejected([](S& s) { s.check.inputs[0].resize(60); },
                 "check: input 0 ('a', F32): 60 bytes of data but it needs 64");
  expectRejected([](S& s) { s.check.outputs[0].push_back(0); },
                 "check: output 0 ('y1', F32): 65 bytes of data but it needs 64");
  expectRejected([](S& s) { s.check.outputs[0].clear(); },
                 "check: output 0 ('y1', F32): 0 bytes of data but it needs 64");
  expectRejected([](S& s) { s.check.tolerance = -1; }, "check: tolerance -1 is not a finite number >= 0");
  expectRejected([](S& s) { s.check.tolerance = std::nan(""); }, "is not a finite number");
  expectRejected([](S& s) { s.check.tolerance = HUGE_VAL; }, "is not a finite number");
  // An entry point that reads a State arena: its result depends on the state.
  expectRejected(
      [](S& s) {
        s.arenas.push_back({2, 256});  // State
        s.entryPoints[0].dispatches[0].bindings[1] = {2, 0, 64};
      },
      "check: entry point 'infer' uses a State arena");
  CHECK(mgrt_context_validation_messages(context()) == 0);
}

TEST_CASE("flipped bytes of a check section never crash load or verify", "[runtime][check][hostile]") {
  const std::vector<uint8_t> bytes = mgb::writeBundle(checkedSpec());
  mgb::Header h;
  std::memcpy(&h, bytes.data(), sizeof h);
  // Only the bytes of the check section (its table, name, vectors and
  // data): flips elsewhere are the other hostile tests' business.
  const uint8_t* base = bytes.data();
  const mgb::Check* c = mgb::GetBundle(base + h.manifest_offset)->check();
  REQUIRE(c != nullptr);
  size_t begin = size_t(reinterpret_cast<const uint8_t*>(c) - base), end = begin + 16;
  auto cover = [&](const void* p, size_t n) {
    const size_t at = size_t(static_cast<const uint8_t*>(p) - base);
    begin = std::min(begin, at - 4);  // a vector's or string's length word
    end = std::max(end, at + n);
  };
  cover(c->entry_point()->data(), c->entry_point()->size());
  for (const auto* list : {c->inputs(), c->outputs()}) {
    cover(list->data(), list->size() * 4);
    for (const mgb::CheckTensor* t : *list) {
      cover(t, 8);
      cover(t->data()->data(), t->data()->size());
    }
  }
  int loaded = 0;
  INFO("check section bytes [" << begin << ", " << end << ")");
  for (size_t i = begin; i < end; ++i) {
    std::vector<uint8_t> bad = bytes;
    bad[i] ^= 0x80;
    fixChecksum(&bad);
    mgrt_model* m = nullptr;
    if (mgrt_model_load(context(), bad.data(), bad.size(), &m) != MGRT_OK) continue;
    ++loaded;
    mgrt_verify_report r{};
    mgrt_check_output out{};
    mgrt_model_verify(m, -1, &r, &out, 1);  // any verdict or status, never a crash
    mgrt_model_destroy(m);
  }
  CHECK(loaded > 0);  // some flips land in bytes nothing relies on (names, padding, data)
}
