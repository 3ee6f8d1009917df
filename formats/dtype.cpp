#include "formats/dtype.h"

#include <cstring>

#include "formats/mgb_generated.h"

namespace mgb {
namespace dtype {

// The bundle's enum is the file format: it must keep this numbering.
#define MGB_SAME(x) static_assert(int(mgb::DType::x) == int(DType::x), "mgb.fbs DType " #x " is out of sync")
MGB_SAME(F32);
MGB_SAME(F16);
MGB_SAME(F64);
MGB_SAME(I64);
MGB_SAME(I32);
MGB_SAME(I8);
MGB_SAME(U8);
MGB_SAME(Bool);
MGB_SAME(BF16);
MGB_SAME(I16);
MGB_SAME(U16);
MGB_SAME(U32);
MGB_SAME(U64);
#undef MGB_SAME
static_assert(int(mgb::DType::MAX) + 1 == kCount, "mgb.fbs DType and formats/dtype.h differ in length");
static_assert(sizeof kInfo / sizeof kInfo[0] == size_t(kCount), "one kInfo row per DType");

namespace {

uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace

bool parse(std::string_view s, DType* out) {
  for (int i = 0; i < kCount; ++i) {
    if (s == kInfo[i].name) {
      *out = DType(i);
      return true;
    }
  }
  return false;
}

uint16_t floatToHalf(float f) {
  const uint32_t x = floatBits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const int32_t exp = int32_t((x >> 23) & 0xffu);
  const uint32_t mant = x & 0x7fffffu;
  if (exp == 255) return uint16_t(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0u));
  const int32_t e = exp - 127 + 15;
  if (e >= 31) return uint16_t(sign | 0x7c00u);
  if (e <= 0) {  // half subnormal (or zero): value = m * 2^-24
    if (e < -10) return uint16_t(sign);
    const uint32_t full = mant | 0x800000u;
    const uint32_t shift = uint32_t(14 - e);
    uint32_t m = full >> shift;
    const uint32_t rem = full & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (m & 1u))) ++m;  // a carry becomes the smallest normal
    return uint16_t(sign | m);
  }
  uint32_t h = sign | (uint32_t(e) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // a carry may round up to inf
  return uint16_t(h);
}

float halfToFloat(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0) {
    if (mant == 0) return bitsFloat(sign);
    exp = 127 - 15 + 1;  // normalize the subnormal
    while (!(mant & 0x400u)) {
      mant <<= 1;
      --exp;
    }
    return bitsFloat(sign | (exp << 23) | ((mant & 0x3ffu) << 13));
  }
  if (exp == 31) return bitsFloat(sign | 0x7f800000u | (mant << 13));
  return bitsFloat(sign | ((exp + 127 - 15) << 23) | (mant << 13));
}

// bfloat16 is the top half of an f32: same exponent range, so subnormals,
// overflow and ties all fall out of one integer rounding of the low half.
uint16_t floatToBf16(float f) {
  const uint32_t x = floatBits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);  // NaN: keep it one
  return uint16_t((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

float bf16ToFloat(uint16_t b) { return bitsFloat(uint32_t(b) << 16); }

}  // namespace dtype
}  // namespace mgb
