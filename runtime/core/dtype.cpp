#include "runtime/core/dtype.h"

#include <cstring>

#include "runtime/core/status.h"

namespace mgrt {
namespace {

template <typename T>
T load(const void* base, uint64_t i) {
  T v;
  std::memcpy(&v, static_cast<const uint8_t*>(base) + i * sizeof(T), sizeof(T));
  return v;
}

template <typename T>
void store(void* base, uint64_t i, T v) {
  std::memcpy(static_cast<uint8_t*>(base) + i * sizeof(T), &v, sizeof(T));
}

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

bool isValidDType(mgb::DType t) { return uint8_t(t) <= uint8_t(mgb::DType::Bool); }

size_t externalElementSize(mgb::DType t) {
  switch (t) {
    case mgb::DType::F32: return 4;
    case mgb::DType::F16: return 2;
    case mgb::DType::F64: return 8;
    case mgb::DType::I64: return 8;
    case mgb::DType::I32: return 4;
    case mgb::DType::I8: return 1;
    case mgb::DType::U8: return 1;
    case mgb::DType::Bool: return 1;
  }
  return 0;
}

mgb::DType deviceDTypeFor(mgb::DType t) {
  switch (t) {
    case mgb::DType::F32: return mgb::DType::F32;
    case mgb::DType::F16: return mgb::DType::F32;
    case mgb::DType::F64: return mgb::DType::F32;
    case mgb::DType::I64: return mgb::DType::I32;
    case mgb::DType::I32: return mgb::DType::I32;
    case mgb::DType::I8: return mgb::DType::I32;
    case mgb::DType::U8: return mgb::DType::I32;
    case mgb::DType::Bool: return mgb::DType::I32;
  }
  return mgb::DType::F32;
}

const char* dtypeName(mgb::DType t) {
  return isValidDType(t) ? mgb::EnumNameDType(t) : "invalid";
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

mgrt_status toDevice(mgb::DType ext, const void* src, uint64_t numel, uint32_t* dst,
                     const char* tensor) {
  switch (ext) {
    case mgb::DType::F32:
    case mgb::DType::I32:
      std::memcpy(dst, src, size_t(numel) * 4);
      return MGRT_OK;
    case mgb::DType::F16:
      for (uint64_t i = 0; i < numel; ++i) dst[i] = floatBits(halfToFloat(load<uint16_t>(src, i)));
      return MGRT_OK;
    case mgb::DType::F64:
      for (uint64_t i = 0; i < numel; ++i) dst[i] = floatBits(float(load<double>(src, i)));
      return MGRT_OK;
    case mgb::DType::I64:
      for (uint64_t i = 0; i < numel; ++i) {  // check all first: fail without a partial write
        const int64_t v = load<int64_t>(src, i);
        if (v < INT32_MIN || v > INT32_MAX)
          return fail(MGRT_INVALID_ARGUMENT,
                      "input '%s' element %llu: value %lld does not fit the device's 32-bit integers",
                      tensor, (unsigned long long)i, (long long)v);
      }
      for (uint64_t i = 0; i < numel; ++i) dst[i] = uint32_t(int32_t(load<int64_t>(src, i)));
      return MGRT_OK;
    case mgb::DType::I8:
      for (uint64_t i = 0; i < numel; ++i) dst[i] = uint32_t(int32_t(load<int8_t>(src, i)));
      return MGRT_OK;
    case mgb::DType::U8:
      for (uint64_t i = 0; i < numel; ++i) dst[i] = load<uint8_t>(src, i);
      return MGRT_OK;
    case mgb::DType::Bool:
      for (uint64_t i = 0; i < numel; ++i) dst[i] = load<uint8_t>(src, i) ? 1u : 0u;
      return MGRT_OK;
  }
  return fail(MGRT_INVALID_ARGUMENT, "input '%s': invalid dtype", tensor);
}

void fromDevice(mgb::DType ext, const uint32_t* src, uint64_t numel, void* dst) {
  switch (ext) {
    case mgb::DType::F32:
    case mgb::DType::I32:
      std::memcpy(dst, src, size_t(numel) * 4);
      return;
    case mgb::DType::F16:
      for (uint64_t i = 0; i < numel; ++i) store<uint16_t>(dst, i, floatToHalf(bitsFloat(src[i])));
      return;
    case mgb::DType::F64:
      for (uint64_t i = 0; i < numel; ++i) store<double>(dst, i, double(bitsFloat(src[i])));
      return;
    case mgb::DType::I64:
      for (uint64_t i = 0; i < numel; ++i) store<int64_t>(dst, i, int64_t(int32_t(src[i])));
      return;
    case mgb::DType::I8:
      for (uint64_t i = 0; i < numel; ++i) store<int8_t>(dst, i, int8_t(src[i] & 0xffu));
      return;
    case mgb::DType::U8:
      for (uint64_t i = 0; i < numel; ++i) store<uint8_t>(dst, i, uint8_t(src[i] & 0xffu));
      return;
    case mgb::DType::Bool:
      for (uint64_t i = 0; i < numel; ++i) store<uint8_t>(dst, i, src[i] ? 1 : 0);
      return;
  }
}

}  // namespace mgrt
