// External dtypes through the device representation: an entry point without
// dispatches whose input is its output round-trips every dtype, through the
// compiler's 32-bit words and through narrower device dtypes.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "runtime/core/dtype.h"
#include "tests/runtime/test_bundles.h"

using namespace rt_test;

namespace {

template <typename T>
std::vector<T> roundTrip(uint8_t dtype, const std::vector<T>& in, int deviceDtype = -1) {
  mgrt_model* m = load(mgb::writeBundle(identitySpec(dtype, {int64_t(in.size())}, deviceDtype)));
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

namespace {

float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

void expectRefused(const mgb::BundleSpec& spec, const std::string& needle) {
  const std::vector<uint8_t> bytes = mgb::writeBundle(spec);
  mgrt_model* m = nullptr;
  CHECK(mgrt_model_load(context(), bytes.data(), bytes.size(), &m) == MGRT_INVALID_BUNDLE);
  CHECK(m == nullptr);
  INFO("message: " << mgrt_last_error());
  CHECK(std::string(mgrt_last_error()).find(needle) != std::string::npos);
  if (m) mgrt_model_destroy(m);
}

}  // namespace

TEST_CASE("bf16 inputs and outputs go through f32 words", "[runtime][dtype]") {
  const std::vector<uint16_t> bf16 = {0x0000, 0x8000, 0x3f80, 0xc049, 0x7f80, 0xff80, 0x0001, 0x7f7f};
  CHECK(roundTrip<uint16_t>(MGRT_BF16, bf16) == bf16);
  const std::vector<uint16_t> out = roundTrip<uint16_t>(MGRT_BF16, std::vector<uint16_t>{0x7fc1});
  CHECK((out[0] & 0x7f80) == 0x7f80);  // a NaN stays a NaN
  CHECK((out[0] & 0x7f) != 0);
  CHECK(mgrt_context_validation_messages(context()) == 0);
}

TEST_CASE("tensors stored narrower on the device convert at the boundary", "[runtime][dtype]") {
  const int kF16 = MGRT_F16, kBF16 = MGRT_BF16;
  // Same type on both sides: the bits pass unchanged, NaN payloads included
  // (3 elements: 6 bytes on the device, not a multiple of 4).
  const std::vector<uint16_t> halves = {0x7e01, 0x0001, 0xfbff};
  CHECK(roundTrip<uint16_t>(MGRT_F16, halves, kF16) == halves);
  const std::vector<uint16_t> bhalves = {0x7fc1, 0x0001, 0xc049};
  CHECK(roundTrip<uint16_t>(MGRT_BF16, bhalves, kBF16) == bhalves);
  // f32 stored as f16 / bf16: rounded to nearest even on the way in.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> f = roundTrip<float>(MGRT_F32, {1.0f + 1.0f / 2048.0f, 65520.0f, nan, -0.0f, 0.1f}, kF16);
  CHECK(f[0] == 1.0f);
  CHECK(std::isinf(f[1]));
  CHECK(std::isnan(f[2]));
  CHECK(std::signbit(f[3]));
  CHECK(f[4] == bitsFloat(0x3dccc000u));  // 0.1 in f16: 0x2e66
  const std::vector<float> b = roundTrip<float>(MGRT_F32, {3.14159265f, bitsFloat(0x3f808000u), nan}, kBF16);
  CHECK(b[0] == 3.140625f);
  CHECK(b[1] == 1.0f);  // tie → even
  CHECK(std::isnan(b[2]));
  // f16 data kept as bf16 and back: both conversions round once each.
  CHECK(roundTrip<uint16_t>(MGRT_F16, {0x3c00, 0x4248}, kBF16) == std::vector<uint16_t>{0x3c00, 0x4248});
  // f64 stored as f16 (through f32).
  const std::vector<double> d = roundTrip<double>(MGRT_F64, {0.5, -2.0, 1e10}, kF16);
  CHECK(d[0] == 0.5);
  CHECK(d[1] == -2.0);
  CHECK(std::isinf(d[2]));
  // Small integers and bools at their own width.
  const std::vector<int8_t> i8 = {-128, -1, 0, 5, 127};
  CHECK(roundTrip<int8_t>(MGRT_I8, i8, MGRT_I8) == i8);
  const std::vector<uint8_t> u8 = {0, 1, 200, 255, 7};
  CHECK(roundTrip<uint8_t>(MGRT_U8, u8, MGRT_U8) == u8);
  CHECK(roundTrip<uint8_t>(MGRT_BOOL, {0, 1, 7, 0, 255}, MGRT_BOOL) == std::vector<uint8_t>{0, 1, 1, 0, 1});
  CHECK(mgrt_context_validation_messages(context()) == 0);
}

TEST_CASE("a device dtype that cannot hold the tensor, or a size for another width, is refused",
          "[runtime][dtype]") {
  mgb::BundleSpec s = identitySpec(MGRT_F32, {4}, MGRT_F16);
  s.tensors[0].size = 16;  // sized for f32 words, but stored as f16
  expectRefused(s, "tensor 0 ('x'): size 16 bytes but its 4 elements need 8");
  s = identitySpec(MGRT_BF16, {3}, MGRT_BF16);
  s.tensors[0].size = 8;
  expectRefused(s, "size 8 bytes but its 3 elements need 6");
  s = identitySpec(MGRT_I8, {4}, MGRT_I32);
  s.tensors[0].size = 4;
  expectRefused(s, "size 4 bytes but its 4 elements need 16");
  expectRefused(identitySpec(MGRT_F32, {4}, MGRT_I8), "device dtype I8 cannot hold external dtype F32 (expected F32)");
  expectRefused(identitySpec(MGRT_I32, {4}, MGRT_I8), "device dtype I8 cannot hold external dtype I32");
  expectRefused(identitySpec(MGRT_I32, {4}, MGRT_F16), "device dtype F16 cannot hold external dtype I32");
  expectRefused(identitySpec(MGRT_F64, {4}, MGRT_F64), "device dtype F64 cannot hold external dtype F64");
  expectRefused(identitySpec(MGRT_I64, {4}, MGRT_I64), "device dtype I64 cannot hold");
  s = identitySpec(MGRT_F32, {4});
  s.tensors[0].deviceDtype = 13;  // past the last dtype
  expectRefused(s, "device dtype invalid cannot hold");
}

TEST_CASE("state stored as f16 on the device: read, write, save and load", "[runtime][dtype]") {
  // One f32 state tensor "w" of 3 elements kept as f16 (6 bytes) in a State
  // arena whose initial bytes come from the file: 1.0, -2.0, 0.5.
  mgb::BundleSpec s = identitySpec(MGRT_F32, {1});
  const std::vector<uint8_t> init = {0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38};
  s.weights = init;
  s.arenas.push_back({2 /* State */, 256, 0, init.size()});
  mgb::TensorEntry w;
  w.name = "w";
  w.dtype = MGRT_F32;
  w.deviceDtype = MGRT_F16;
  w.shape = {3};
  w.arena = 2;
  w.size = 6;
  s.tensors.push_back(w);
  s.state = {1};
  mgrt_model* m = load(mgb::writeBundle(s));
  mgrt_tensor_info info;
  REQUIRE(mgrt_model_state_info(m, 0, &info) == MGRT_OK);
  CHECK(info.bytes == 12);  // the external dtype's size, not the device's
  float v[3] = {};
  REQUIRE(mgrt_model_read_state(m, "w", v, sizeof v) == MGRT_OK);
  CHECK(v[0] == 1.0f);
  CHECK(v[1] == -2.0f);
  CHECK(v[2] == 0.5f);
  const float in[3] = {0.1f, 65520.0f, -3.0f};
  REQUIRE(mgrt_model_write_state(m, "w", in, sizeof in) == MGRT_OK);
  REQUIRE(mgrt_model_read_state(m, "w", v, sizeof v) == MGRT_OK);
  CHECK(v[0] == bitsFloat(0x3dccc000u));  // rounded to f16 on the device
  CHECK(std::isinf(v[1]));
  CHECK(v[2] == -3.0f);
  const char* dir = std::getenv("TMPDIR");
  const std::string path = std::string(dir ? dir : "/tmp") + "/mgrt-test-f16-state.safetensors";
  REQUIRE(mgrt_model_save_state(m, path.c_str()) == MGRT_OK);
  const float other[3] = {7.0f, 8.0f, 9.0f};
  REQUIRE(mgrt_model_write_state(m, "w", other, sizeof other) == MGRT_OK);
  REQUIRE(mgrt_model_load_state(m, path.c_str()) == MGRT_OK);
  REQUIRE(mgrt_model_read_state(m, "w", v, sizeof v) == MGRT_OK);
  CHECK(v[0] == bitsFloat(0x3dccc000u));
  CHECK(std::isinf(v[1]));
  CHECK(v[2] == -3.0f);
  std::remove(path.c_str());
  mgrt_model_destroy(m);
  CHECK(mgrt_context_validation_messages(context()) == 0);
}

TEST_CASE("i16, u16, u32 and u64 live in 32-bit words: exact within range, refused past it", "[runtime][dtype]") {
  const std::vector<int16_t> i16 = {-32768, -1, 0, 7, 32767};
  CHECK(roundTrip<int16_t>(MGRT_I16, i16) == i16);
  const std::vector<uint16_t> u16 = {0, 1, 40000, 65535};
  CHECK(roundTrip<uint16_t>(MGRT_U16, u16) == u16);
  const std::vector<uint32_t> u32 = {0, 1, 0x7fffffffu};
  CHECK(roundTrip<uint32_t>(MGRT_U32, u32) == u32);
  const std::vector<uint64_t> u64 = {0, 5, 0x7fffffffull};
  CHECK(roundTrip<uint64_t>(MGRT_U64, u64) == u64);
  // Values a signed 32-bit word cannot hold are refused, naming the element.
  auto refused = [](uint8_t dtype, const void* data, size_t bytes, const char* needle) {
    mgrt_model* m = load(mgb::writeBundle(identitySpec(dtype, {2})));
    mgrt_session* s = nullptr;
    REQUIRE(mgrt_session_create(m, "identity", &s) == MGRT_OK);
    CHECK(mgrt_session_set_input(s, "x", data, bytes) == MGRT_INVALID_ARGUMENT);
    INFO(mgrt_last_error());
    CHECK(std::string(mgrt_last_error()).find(needle) != std::string::npos);
    mgrt_session_destroy(s);
    mgrt_model_destroy(m);
  };
  const uint32_t big32[2] = {1, 0x80000000u};
  refused(MGRT_U32, big32, sizeof big32, "element 1: value 2147483648 does not fit");
  const uint64_t big64[2] = {0xffffffffffffffffull, 3};
  refused(MGRT_U64, big64, sizeof big64, "element 0: value 18446744073709551615 does not fit");
  CHECK(mgrt_context_validation_messages(context()) == 0);
}
