#include "ir/types.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace mgc {

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

double HostTensor::getF(int64_t i) const {
  switch (type.dtype) {
    case DType::F32: return as<float>()[i];
    case DType::F16: return halfToFloat(as<uint16_t>()[i]);
    case DType::BF16: return bf16ToFloat(as<uint16_t>()[i]);
    case DType::F64: return as<double>()[i];
    case DType::I64: return double(as<int64_t>()[i]);
    case DType::I32: return as<int32_t>()[i];
    case DType::I8: return as<int8_t>()[i];
    case DType::U8: return as<uint8_t>()[i];
    case DType::I16: return as<int16_t>()[i];
    case DType::U16: return as<uint16_t>()[i];
    case DType::U32: return as<uint32_t>()[i];
    case DType::U64: return double(as<uint64_t>()[i]);
    case DType::Bool: return as<uint8_t>()[i] ? 1.0 : 0.0;
  }
  return 0;
}

int64_t checkedFloatToInt64(double v) {
  // 2^63 is exact in a double; every double in (-2^63 - 1, 2^63) converts.
  if (v > -9223372036854775808.0 - 1.0 && v < 9223372036854775808.0) return int64_t(v);
  if (std::isnan(v)) throw Error("a float used as an integer (index, size or axis) is NaN");
  if (std::isinf(v)) throw Error("a float used as an integer (index, size or axis) is infinite");
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  throw Error(std::string("a float used as an integer (index, size or axis) is ") + buf +
              ", outside the int64 range");
}

int64_t truncToInt64(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9223372036854775808.0) return std::numeric_limits<int64_t>::max();
  if (v <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return int64_t(v);
}

int64_t HostTensor::getI(int64_t i) const {
  switch (type.dtype) {
    case DType::I64: return as<int64_t>()[i];
    case DType::I32: return as<int32_t>()[i];
    case DType::I8: return as<int8_t>()[i];
    case DType::U8: return as<uint8_t>()[i];
    case DType::I16: return as<int16_t>()[i];
    case DType::U16: return as<uint16_t>()[i];
    case DType::U32: return as<uint32_t>()[i];
    case DType::U64: return int64_t(as<uint64_t>()[i]);  // past 2^63 wraps, as int64 arithmetic does
    case DType::Bool: return as<uint8_t>()[i] ? 1 : 0;
    default: return checkedFloatToInt64(getF(i));
  }
}

void HostTensor::setF(int64_t i, double v) {
  switch (type.dtype) {
    case DType::F32: as<float>()[i] = float(v); break;
    case DType::F16: as<uint16_t>()[i] = floatToHalf(float(v)); break;
    case DType::BF16: as<uint16_t>()[i] = floatToBf16(float(v)); break;
    case DType::F64: as<double>()[i] = v; break;
    case DType::Bool: as<uint8_t>()[i] = v != 0; break;
    default: setI(i, truncToInt64(v)); break;
  }
}

void HostTensor::setI(int64_t i, int64_t v) {
  switch (type.dtype) {
    case DType::I64: as<int64_t>()[i] = v; break;
    case DType::I32: as<int32_t>()[i] = int32_t(v); break;
    case DType::I8: as<int8_t>()[i] = int8_t(v); break;
    case DType::U8: as<uint8_t>()[i] = uint8_t(v); break;
    case DType::I16: as<int16_t>()[i] = int16_t(v); break;
    case DType::U16: as<uint16_t>()[i] = uint16_t(v); break;
    case DType::U32: as<uint32_t>()[i] = uint32_t(v); break;
    case DType::U64: as<uint64_t>()[i] = uint64_t(v); break;
    case DType::Bool: as<uint8_t>()[i] = v != 0; break;
    default: setF(i, double(v)); break;
  }
}

}  // namespace mgc
