#include "compiler/ir/types.h"

#include <cmath>
#include <cstring>

namespace mgc {

size_t dtypeSize(DType t) {
  switch (t) {
    case DType::F32: return 4;
    case DType::F16: return 2;
    case DType::F64: return 8;
    case DType::I64: return 8;
    case DType::I32: return 4;
    case DType::I8: return 1;
    case DType::U8: return 1;
    case DType::Bool: return 1;
  }
  return 0;
}

const char* dtypeName(DType t) {
  switch (t) {
    case DType::F32: return "f32";
    case DType::F16: return "f16";
    case DType::F64: return "f64";
    case DType::I64: return "i64";
    case DType::I32: return "i32";
    case DType::I8: return "i8";
    case DType::U8: return "u8";
    case DType::Bool: return "bool";
  }
  return "?";
}

bool parseDType(std::string_view s, DType* out) {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (s == dtypeName(DType(i))) {
      *out = DType(i);
      return true;
    }
  }
  return false;
}

bool isFloat(DType t) { return t == DType::F32 || t == DType::F16 || t == DType::F64; }

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

std::string shapeStr(const Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) r += ",";
    r += std::to_string(s[i]);
  }
  return r + "]";
}

std::string TensorType::str() const { return std::string(dtypeName(dtype)) + shapeStr(shape); }

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {  // subnormal: renormalize
      exp = 127 - 15 + 1;
      while (!(man & 0x400)) { man <<= 1; --exp; }
      bits = sign | (exp << 23) | ((man & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = int32_t((x >> 23) & 0xff) - 127 + 15;
  uint32_t man = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) return uint16_t(sign | 0x7c00 | (man ? 0x200 : 0));
  if (exp >= 31) return uint16_t(sign | 0x7c00);
  if (exp <= 0) {
    if (exp < -10) return uint16_t(sign);
    man |= 0x800000;
    uint32_t shift = uint32_t(14 - exp);
    uint32_t half = man >> shift, rem = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = sign | (uint32_t(exp) << 10) | (man >> 13), rem = man & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;  // round to nearest even
  return uint16_t(half);
}

double HostTensor::getF(int64_t i) const {
  switch (type.dtype) {
    case DType::F32: return as<float>()[i];
    case DType::F16: return halfToFloat(as<uint16_t>()[i]);
    case DType::F64: return as<double>()[i];
    case DType::I64: return double(as<int64_t>()[i]);
    case DType::I32: return as<int32_t>()[i];
    case DType::I8: return as<int8_t>()[i];
    case DType::U8: return as<uint8_t>()[i];
    case DType::Bool: return as<uint8_t>()[i] ? 1.0 : 0.0;
  }
  return 0;
}

int64_t HostTensor::getI(int64_t i) const {
  switch (type.dtype) {
    case DType::I64: return as<int64_t>()[i];
    case DType::I32: return as<int32_t>()[i];
    case DType::I8: return as<int8_t>()[i];
    case DType::U8: return as<uint8_t>()[i];
    case DType::Bool: return as<uint8_t>()[i] ? 1 : 0;
    default: return int64_t(getF(i));
  }
}

void HostTensor::setF(int64_t i, double v) {
  switch (type.dtype) {
    case DType::F32: as<float>()[i] = float(v); break;
    case DType::F16: as<uint16_t>()[i] = floatToHalf(float(v)); break;
    case DType::F64: as<double>()[i] = v; break;
    case DType::Bool: as<uint8_t>()[i] = v != 0; break;
    default: setI(i, int64_t(v)); break;
  }
}

void HostTensor::setI(int64_t i, int64_t v) {
  switch (type.dtype) {
    case DType::I64: as<int64_t>()[i] = v; break;
    case DType::I32: as<int32_t>()[i] = int32_t(v); break;
    case DType::I8: as<int8_t>()[i] = int8_t(v); break;
    case DType::U8: as<uint8_t>()[i] = uint8_t(v); break;
    case DType::Bool: as<uint8_t>()[i] = v != 0; break;
    default: setF(i, double(v)); break;
  }
}

}  // namespace mgc
