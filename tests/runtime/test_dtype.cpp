// External dtypes through the device's 32-bit words: an entry point without
// dispatches whose input is its output round-trips every dtype.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

#include "runtime/core/dtype.h"
#include "tests/runtime/test_bundles.h"

using namespace rt_test;

namespace {

template <typename T>
std::vector<T> roundTrip(uint8_t dtype, const std::vector<T>& in) {
  mgrt_model* m = load(mgb::writeBundle(identitySpec(dtype, {int64_t(in.size())})));
  mgrt_session* s = nullptr;
  REQUIRE(mgrt_session_create(m, "identity", &s) == MGRT_OK);
  mgrt_tensor_info info;
  REQUIRE(mgrt_session_input_info(s, 0, &info) == MGRT_OK);
  CHECK(int(info.dtype) == dtype);
  CHECK(info.bytes == in.size() * sizeof(T));
  REQUIRE(mgrt_session_set_input(s, "x", in.data(), in.size() * sizeof(T)) == MGRT_OK);
  REQUIRE(mgrt_session_run(s) == MGRT_OK);
  std::vector<T> out(in.size());
  REQUIRE(mgrt_session_get_output(s, "x", out.data(), out.size() * sizeof(T)) == MGRT_OK);
  mgrt_session_destroy(s);
  mgrt_model_destroy(m);
  return out;
}

}  // namespace

TEST_CASE("every external dtype round-trips through the device", "[runtime][dtype]") {
  const std::vector<float> f32 = {0.0f, -1.5f, 3.25e8f, std::numeric_limits<float>::infinity()};
  CHECK(roundTrip<float>(MGRT_F32, f32) == f32);
  const std::vector<double> f64 = {0.0, -1.5, 0.25, 1e300};
  const std::vector<double> f64out = roundTrip<double>(MGRT_F64, f64);
  CHECK(f64out[1] == -1.5);
  CHECK(f64out[2] == 0.25);
  CHECK(std::isinf(f64out[3]));  // f32 on the device
  const std::vector<uint16_t> f16 = {0x0000, 0x3c00, 0xc000, 0x7c00, 0x0001, 0x7bff};
  CHECK(roundTrip<uint16_t>(MGRT_F16, f16) == f16);
  const std::vector<int64_t> i64 = {0, -1, 2147483647, -2147483648LL};
  CHECK(roundTrip<int64_t>(MGRT_I64, i64) == i64);
  const std::vector<int32_t> i32 = {0, -7, 123456789};
  CHECK(roundTrip<int32_t>(MGRT_I32, i32) == i32);
  const std::vector<int8_t> i8 = {-128, -1, 0, 127};
  CHECK(roundTrip<int8_t>(MGRT_I8, i8) == i8);
  const std::vector<uint8_t> u8 = {0, 1, 200, 255};
  CHECK(roundTrip<uint8_t>(MGRT_U8, u8) == u8);
  const std::vector<uint8_t> b = {0, 1, 7, 0};
  CHECK(roundTrip<uint8_t>(MGRT_BOOL, b) == std::vector<uint8_t>{0, 1, 1, 0});
  CHECK(mgrt_context_validation_messages(context()) == 0);
}

TEST_CASE("an i64 input that does not fit 32 bits is refused", "[runtime][dtype]") {
  mgrt_model* m = load(mgb::writeBundle(identitySpec(MGRT_I64, {2, 2})));
  mgrt_session* s = nullptr;
  REQUIRE(mgrt_session_create(m, "identity", &s) == MGRT_OK);
  const int64_t x[4] = {1, 2, int64_t(1) << 33, 4};
  CHECK(mgrt_session_set_input(s, "x", x, sizeof x) == MGRT_INVALID_ARGUMENT);
  CHECK(std::string(mgrt_last_error()).find("element 2") != std::string::npos);
  mgrt_session_destroy(s);
  mgrt_model_destroy(m);
}

TEST_CASE("empty and scalar tensors", "[runtime][dtype]") {
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{0, 3}, std::vector<int64_t>{}}) {
    mgrt_model* m = load(mgb::writeBundle(identitySpec(MGRT_F32, shape)));
    mgrt_session* s = nullptr;
    REQUIRE(mgrt_session_create(m, "identity", &s) == MGRT_OK);
    const float v = 42.0f;
    const size_t bytes = shape.empty() ? 4 : 0;
    REQUIRE(mgrt_session_set_input(s, "x", &v, bytes) == MGRT_OK);
    REQUIRE(mgrt_session_run(s) == MGRT_OK);
    float out = 0.0f;
    REQUIRE(mgrt_session_get_output(s, "x", &out, bytes) == MGRT_OK);
    if (bytes) CHECK(out == 42.0f);
    mgrt_session_destroy(s);
    mgrt_model_destroy(m);
  }
  CHECK(mgrt_context_validation_messages(context()) == 0);
}

TEST_CASE("f16 conversion rounds to nearest even and keeps specials", "[runtime][dtype]") {
  using mgrt::floatToHalf;
  using mgrt::halfToFloat;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = halfToFloat(uint16_t(h));
    if (std::isnan(f)) {
      CHECK(std::isnan(halfToFloat(floatToHalf(f))));
      continue;
    }
    REQUIRE(floatToHalf(f) == h);  // every half value survives the round trip
  }
  CHECK(floatToHalf(1.0f + 1.0f / 2048.0f) == 0x3c00);       // tie → even (down)
  CHECK(floatToHalf(1.0f + 3.0f / 2048.0f) == 0x3c02);       // tie → even (up)
  CHECK(floatToHalf(65520.0f) == 0x7c00);                    // rounds up to inf
  CHECK(floatToHalf(65519.0f) == 0x7bff);
  CHECK(floatToHalf(1e-8f) == 0x0000);                       // underflow to zero
  CHECK(floatToHalf(std::ldexp(1.0f, -24)) == 0x0001);       // smallest subnormal
  CHECK(floatToHalf(std::ldexp(1.0f, -25)) == 0x0000);       // tie → even zero
  CHECK(floatToHalf(std::ldexp(1.5f, -25)) == 0x0001);
  CHECK(floatToHalf(-0.0f) == 0x8000);
}
