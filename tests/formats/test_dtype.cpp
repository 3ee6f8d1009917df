// The shared dtype table (formats/dtype.h): names, sizes, the device
// representation, and f16 / bf16 conversion.
#include <catch2/catch.hpp>

#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>

#include "formats/dtype.h"
#include "formats/mgb_generated.h"
#include "formats/safetensors.h"

using mgb::dtype::DType;
namespace dt = mgb::dtype;

namespace {

float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

}  // namespace

TEST_CASE("the name table: every name parses back, sizes and kinds", "[formats][dtype]") {
  std::set<std::string> names;
  for (int i = 0; i < dt::kCount; ++i) {
    const DType t = DType(i);
    INFO(dt::name(t));
    DType back = DType::Bool;
    REQUIRE(dt::parse(dt::name(t), &back));
    CHECK(back == t);
    names.insert(dt::name(t));
    // The bundle's generated enum names the same type at the same number.
    std::string fbs = mgb::EnumNameDType(mgb::DType(i));
    for (char& c : fbs) c = char(std::tolower(static_cast<unsigned char>(c)));
    CHECK(fbs == dt::name(t));
    CHECK(std::string(safetensors::dtypeName(unsigned(i))) != "?");
    CHECK(safetensors::dtypeSize(safetensors::dtypeName(unsigned(i))) == dt::size(t));
  }
  CHECK(names.size() == size_t(dt::kCount));
  DType out = DType::F32;
  CHECK_FALSE(dt::parse("f8", &out));
  CHECK_FALSE(dt::parse("", &out));
  CHECK_FALSE(dt::parse("F32", &out));  // the IR spells types in lower case
  CHECK(out == DType::F32);
  CHECK(dt::isValid(12));
  CHECK_FALSE(dt::isValid(13));
  CHECK(std::string(safetensors::dtypeName(13)) == "?");

  CHECK(int(DType::BF16) == 8);  // appended: older bundles keep their numbers
  CHECK(std::string(dt::name(DType::BF16)) == "bf16");
  CHECK(std::string(safetensors::dtypeName(8)) == "BF16");
  CHECK(int(DType::I16) == 9);
  CHECK(int(DType::U64) == 12);
  CHECK(std::string(safetensors::dtypeName(12)) == "U64");
  const size_t sizes[] = {4, 2, 8, 8, 4, 1, 1, 1, 2, 2, 2, 4, 8};
  static_assert(sizeof sizes / sizeof sizes[0] == size_t(dt::kCount), "one size per dtype");
  for (int i = 0; i < dt::kCount; ++i) CHECK(dt::size(DType(i)) == sizes[i]);
  CHECK(dt::isFloat(DType::BF16));
  CHECK(dt::isFloat(DType::F64));
  CHECK_FALSE(dt::isFloat(DType::Bool));
  CHECK_FALSE(dt::isFloat(DType::I8));
}

TEST_CASE("device representation and which device dtypes a type may use", "[formats][dtype]") {
  for (DType t : {DType::F32, DType::F16, DType::F64, DType::BF16}) {
    CHECK(dt::deviceDType(t) == DType::F32);
    CHECK(dt::deviceSize(t) == 4);
    CHECK(dt::canStoreOnDevice(t, DType::F32));
    CHECK(dt::canStoreOnDevice(t, DType::F16));
    CHECK(dt::canStoreOnDevice(t, DType::BF16));
    CHECK_FALSE(dt::canStoreOnDevice(t, DType::I32));
    CHECK_FALSE(dt::canStoreOnDevice(t, DType::F64));
  }
  for (DType t : {DType::I64, DType::I32, DType::I8, DType::U8, DType::Bool, DType::I16, DType::U16, DType::U32,
                  DType::U64}) {
    CHECK(dt::deviceDType(t) == DType::I32);
    CHECK(dt::deviceSize(t) == 4);
    CHECK(dt::canStoreOnDevice(t, DType::I32));
    CHECK_FALSE(dt::canStoreOnDevice(t, DType::F32));
    CHECK_FALSE(dt::canStoreOnDevice(t, DType::I64));
  }
  CHECK(dt::canStoreOnDevice(DType::I8, DType::I8));
  CHECK(dt::canStoreOnDevice(DType::Bool, DType::Bool));
  CHECK_FALSE(dt::canStoreOnDevice(DType::I32, DType::I8));  // no silent narrowing
  CHECK_FALSE(dt::canStoreOnDevice(DType::U8, DType::I8));
  CHECK(dt::canStoreOnDevice(DType::I16, DType::I16));
  CHECK_FALSE(dt::canStoreOnDevice(DType::U32, DType::U32));  // kernels compute on signed words
  CHECK_FALSE(dt::canStoreOnDevice(DType::U64, DType::U64));  // no 64-bit storage
}

TEST_CASE("f16: every value round-trips, specials and ties to even", "[formats][dtype]") {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = dt::halfToFloat(uint16_t(h));
    if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) {  // a NaN stays a NaN, its sign and payload kept
      REQUIRE(std::isnan(f));
      REQUIRE(dt::floatToHalf(f) == (h | 0x200));  // quieted
      continue;
    }
    REQUIRE(dt::floatToHalf(f) == h);
  }
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(dt::floatToHalf(inf) == 0x7c00);
  CHECK(dt::floatToHalf(-inf) == 0xfc00);
  CHECK(std::isinf(dt::halfToFloat(0xfc00)));
  CHECK(dt::halfToFloat(0xfc00) < 0);
  // Every f32 NaN, including payloads living only in the low 13 bits, stays one.
  for (uint32_t x : {0x7f800001u, 0x7fc00000u, 0xff800001u, 0x7fffffffu, 0x7f801fffu}) {
    const uint16_t h = dt::floatToHalf(bitsFloat(x));
    CHECK((h & 0x7c00) == 0x7c00);
    CHECK((h & 0x3ff) != 0);
    CHECK((h >> 15) == (x >> 31));
  }
  CHECK(dt::floatToHalf(1.0f + 1.0f / 2048.0f) == 0x3c00);  // tie → even (down)
  CHECK(dt::floatToHalf(1.0f + 3.0f / 2048.0f) == 0x3c02);  // tie → even (up)
  CHECK(dt::floatToHalf(std::nextafter(1.0f + 1.0f / 2048.0f, 2.0f)) == 0x3c01);  // past the tie
  CHECK(dt::floatToHalf(65504.0f) == 0x7bff);  // largest finite
  CHECK(dt::floatToHalf(65519.0f) == 0x7bff);
  CHECK(dt::floatToHalf(65520.0f) == 0x7c00);  // the tie above it rounds to inf
  CHECK(dt::floatToHalf(1e-8f) == 0x0000);     // underflow to zero
  CHECK(dt::floatToHalf(-1e-8f) == 0x8000);
  CHECK(dt::floatToHalf(std::ldexp(1.0f, -24)) == 0x0001);  // smallest subnormal
  CHECK(dt::floatToHalf(std::ldexp(1.0f, -25)) == 0x0000);  // tie → even zero
  CHECK(dt::floatToHalf(std::ldexp(3.0f, -25)) == 0x0002);  // tie → even two
  CHECK(dt::floatToHalf(std::ldexp(1.5f, -25)) == 0x0001);
  CHECK(dt::floatToHalf(std::ldexp(1023.5f, -24)) == 0x0400);  // rounds into the smallest normal
  CHECK(dt::halfToFloat(0x03ff) == std::ldexp(1023.0f, -24));  // largest subnormal
  CHECK(dt::floatToHalf(-0.0f) == 0x8000);
  CHECK(std::signbit(dt::halfToFloat(0x8000)));
}

TEST_CASE("bf16: every value round-trips, specials and ties to even", "[formats][dtype]") {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const float f = dt::bf16ToFloat(uint16_t(b));
    REQUIRE(floatBits(f) == b << 16);  // bf16 is the top half of an f32
    if ((b & 0x7f80) == 0x7f80 && (b & 0x7f)) {
      REQUIRE(std::isnan(f));
      REQUIRE(dt::floatToBf16(f) == (b | 0x40));  // quieted, sign and payload kept
      continue;
    }
    REQUIRE(dt::floatToBf16(f) == b);
  }
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(dt::floatToBf16(inf) == 0x7f80);
  CHECK(dt::floatToBf16(-inf) == 0xff80);
  // NaNs whose payload lives only in the low 16 bits must not become inf.
  for (uint32_t x : {0x7f800001u, 0xff80ffffu, 0x7fc00000u, 0x7fffffffu}) {
    const uint16_t b = dt::floatToBf16(bitsFloat(x));
    CHECK(std::isnan(dt::bf16ToFloat(b)));
    CHECK((b >> 15) == (x >> 31));
  }
  CHECK(dt::floatToBf16(bitsFloat(0x3f808000u)) == 0x3f80);  // tie → even (down)
  CHECK(dt::floatToBf16(bitsFloat(0x3f818000u)) == 0x3f82);  // tie → even (up)
  CHECK(dt::floatToBf16(bitsFloat(0x3f808001u)) == 0x3f81);  // past the tie
  CHECK(dt::floatToBf16(bitsFloat(0x3f807fffu)) == 0x3f80);
  CHECK(dt::floatToBf16(std::numeric_limits<float>::max()) == 0x7f80);  // overflow → inf
  CHECK(dt::floatToBf16(bitsFloat(0x7f7f7fffu)) == 0x7f7f);             // largest finite stays
  CHECK(dt::floatToBf16(bitsFloat(0x00000001u)) == 0x0000);  // below half the smallest subnormal
  CHECK(dt::floatToBf16(bitsFloat(0x00008000u)) == 0x0000);  // tie → even zero
  CHECK(dt::floatToBf16(bitsFloat(0x00018000u)) == 0x0002);  // subnormal tie → even
  CHECK(dt::floatToBf16(bitsFloat(0x007fffffu)) == 0x0080);  // rounds into the smallest normal
  CHECK(dt::floatToBf16(-0.0f) == 0x8000);
  CHECK(dt::floatToBf16(1.0f) == 0x3f80);
  CHECK(dt::bf16ToFloat(0x4049) == 3.140625f);
}
