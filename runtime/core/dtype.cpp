#include "runtime/core/dtype.h"

#include <cstring>
#include <string>

#include "runtime/core/status.h"

namespace mgrt {
namespace {

using mgb::dtype::DType;

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

// Element i of a float array of type t, as f32 (f64 rounds here).
float loadFloat(DType t, const void* p, uint64_t i) {
  switch (t) {
    case DType::F16: return mgb::dtype::halfToFloat(load<uint16_t>(p, i));
    case DType::BF16: return mgb::dtype::bf16ToFloat(load<uint16_t>(p, i));
    case DType::F64: return float(load<double>(p, i));
    default: return load<float>(p, i);
  }
}

void storeFloat(DType t, void* p, uint64_t i, float v) {
  switch (t) {
    case DType::F16: store<uint16_t>(p, i, mgb::dtype::floatToHalf(v)); return;
    case DType::BF16: store<uint16_t>(p, i, mgb::dtype::floatToBf16(v)); return;
    case DType::F64: store<double>(p, i, double(v)); return;
    default: store<float>(p, i, v); return;
  }
}

// Element i of an integer or bool array of type t.
int64_t loadInt(DType t, const void* p, uint64_t i) {
  switch (t) {
    case DType::I64: return load<int64_t>(p, i);
    case DType::I8: return load<int8_t>(p, i);
    case DType::U8: return load<uint8_t>(p, i);
    case DType::I16: return load<int16_t>(p, i);
    case DType::U16: return load<uint16_t>(p, i);
    case DType::U32: return load<uint32_t>(p, i);
    case DType::U64: {  // past INT64_MAX saturates: it fits no device type
      const uint64_t v = load<uint64_t>(p, i);
      return v > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(v);
    }
    case DType::Bool: return load<uint8_t>(p, i) ? 1 : 0;
    default: return load<int32_t>(p, i);
  }
}

// Narrowing wraps like a C cast; bool is (v != 0).
void storeInt(DType t, void* p, uint64_t i, int64_t v) {
  switch (t) {
    case DType::I64: store<int64_t>(p, i, v); return;
    case DType::I8: store<int8_t>(p, i, int8_t(uint8_t(uint64_t(v) & 0xffu))); return;
    case DType::U8: store<uint8_t>(p, i, uint8_t(uint64_t(v) & 0xffu)); return;
    case DType::I16: store<int16_t>(p, i, int16_t(uint16_t(uint64_t(v) & 0xffffu))); return;
    case DType::U16: store<uint16_t>(p, i, uint16_t(uint64_t(v) & 0xffffu)); return;
    case DType::U32: store<uint32_t>(p, i, uint32_t(uint64_t(v) & 0xffffffffu)); return;
    case DType::U64: store<uint64_t>(p, i, uint64_t(v)); return;
    case DType::Bool: store<uint8_t>(p, i, v != 0 ? 1 : 0); return;
    default: store<int32_t>(p, i, int32_t(v)); return;
  }
}

bool fits(DType t, int64_t v) {
  switch (t) {
    case DType::I32: return v >= INT32_MIN && v <= INT32_MAX;
    case DType::I8: return v >= INT8_MIN && v <= INT8_MAX;
    case DType::U8: return v >= 0 && v <= UINT8_MAX;
    default: return true;
  }
}

// Copies that need no conversion (bool is normalized to 0 / 1 instead).
bool sameBits(DType ext, DType dev) { return ext == dev && ext != DType::Bool; }

}  // namespace

bool isValidDType(mgb::DType t) { return mgb::dtype::isValid(unsigned(t)); }

size_t externalElementSize(mgb::DType t) { return isValidDType(t) ? mgb::dtype::size(shared(t)) : 0; }

size_t deviceElementSize(mgb::DType dev) { return externalElementSize(dev); }

mgb::DType deviceDTypeFor(mgb::DType t) {
  return isValidDType(t) ? mgb::DType(mgb::dtype::deviceDType(shared(t))) : mgb::DType::F32;
}

bool canStoreOnDevice(mgb::DType ext, mgb::DType dev) {
  return isValidDType(ext) && isValidDType(dev) && mgb::dtype::canStoreOnDevice(shared(ext), shared(dev));
}

const char* dtypeName(mgb::DType t) { return isValidDType(t) ? mgb::EnumNameDType(t) : "invalid"; }

mgrt_status toDevice(mgb::DType extType, mgb::DType devType, const void* src, uint64_t numel, void* dst,
                     const char* tensor) {
  const DType ext = shared(extType), dev = shared(devType);
  if (sameBits(ext, dev)) {
    std::memcpy(dst, src, size_t(numel * mgb::dtype::size(ext)));
    return MGRT_OK;
  }
  if (mgb::dtype::isFloat(dev)) {
    for (uint64_t i = 0; i < numel; ++i) storeFloat(dev, dst, i, loadFloat(ext, src, i));
    return MGRT_OK;
  }
  for (uint64_t i = 0; i < numel; ++i) {  // check all first: fail without a partial write
    const int64_t v = loadInt(ext, src, i);
    if (!fits(dev, v)) {
      const std::string value = ext == DType::U64 ? std::to_string(load<uint64_t>(src, i)) : std::to_string(v);
      return fail(MGRT_INVALID_ARGUMENT, "input '%s' element %llu: value %s does not fit the device's %s", tensor,
                  (unsigned long long)i, value.c_str(), dev == DType::I32 ? "32-bit integers" : mgb::dtype::name(dev));
    }
  }
  for (uint64_t i = 0; i < numel; ++i) storeInt(dev, dst, i, loadInt(ext, src, i));
  return MGRT_OK;
}

void fromDevice(mgb::DType extType, mgb::DType devType, const void* src, uint64_t numel, void* dst) {
  const DType ext = shared(extType), dev = shared(devType);
  if (sameBits(ext, dev)) {
    std::memcpy(dst, src, size_t(numel * mgb::dtype::size(ext)));
  } else if (mgb::dtype::isFloat(dev)) {
    for (uint64_t i = 0; i < numel; ++i) storeFloat(ext, dst, i, loadFloat(dev, src, i));
  } else {
    for (uint64_t i = 0; i < numel; ++i) storeInt(ext, dst, i, loadInt(dev, src, i));
  }
}

}  // namespace mgrt
