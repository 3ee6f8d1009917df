// Element types: the one table that the compiler's IR, the .mgb format, npy,
// safetensors and the runtime share (names, sizes, the device
// representation, and f16 / bf16 conversion).
//
// The numbering is the file format's: mgb.fbs `DType` and mgrt.h
// `mgrt_dtype` keep their own spelling (a generated enum, a self-contained
// C header) and are tied to this enum by static_asserts (formats/dtype.cpp,
// runtime/core/dtype.h); the IR and npy use this enum directly. New types
// are appended, so existing bundles keep their bytes.
//
// Dependency-free (standard library only): libmgrt compiles it too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mgb {
namespace dtype {

enum class DType : uint8_t { F32 = 0, F16, F64, I64, I32, I8, U8, Bool, BF16, I16, U16, U32, U64 };
constexpr int kCount = 13;

enum class Kind : uint8_t { Float, Int, Bool };

struct Info {
  const char* name;  // IR text form and messages
  uint8_t bytes;     // element size in host memory and in files
  Kind kind;
  // The representation the compiler picks on the device: every float type
  // computes in f32 and every integer or bool in i32 (kernels are written
  // for 32-bit words). A bundle may store a tensor narrower (see
  // canStoreOnDevice); its device size is then numel * bytes of that type.
  DType device;
};

inline constexpr Info kInfo[kCount] = {
    {"f32", 4, Kind::Float, DType::F32}, {"f16", 2, Kind::Float, DType::F32},
    {"f64", 8, Kind::Float, DType::F32}, {"i64", 8, Kind::Int, DType::I32},
    {"i32", 4, Kind::Int, DType::I32},   {"i8", 1, Kind::Int, DType::I32},
    {"u8", 1, Kind::Int, DType::I32},    {"bool", 1, Kind::Bool, DType::I32},
    {"bf16", 2, Kind::Float, DType::F32},  {"i16", 2, Kind::Int, DType::I32},
    {"u16", 2, Kind::Int, DType::I32},    {"u32", 4, Kind::Int, DType::I32},
    {"u64", 8, Kind::Int, DType::I32},
};

// A raw value from a file or an API call names a known type.
constexpr bool isValid(unsigned v) { return v < unsigned(kCount); }
constexpr const Info& info(DType t) { return kInfo[size_t(t)]; }
constexpr size_t size(DType t) { return info(t).bytes; }
constexpr const char* name(DType t) { return info(t).name; }
constexpr bool isFloat(DType t) { return info(t).kind == Kind::Float; }
constexpr DType deviceDType(DType t) { return info(t).device; }
// Bytes per element of `t` as the compiler stores it on the device.
constexpr size_t deviceSize(DType t) { return size(deviceDType(t)); }

// Whether a tensor of external type `ext` may live on the device as `dev`
// (the runtime converts at its boundary): the same type, or a float type
// stored as f32, f16 or bf16, or an integer or bool stored as i32. 64-bit
// types never live on the device (no portable 64-bit storage), nor u32
// (kernels compute on signed words: an i32 holds the u32 values below 2^31,
// and the runtime refuses larger ones at its boundary).
constexpr bool canStoreOnDevice(DType ext, DType dev) {
  if (dev == DType::F64 || dev == DType::I64 || dev == DType::U64 || dev == DType::U32) return false;
  if (dev == ext) return true;
  if (isFloat(ext)) return dev == DType::F32 || dev == DType::F16 || dev == DType::BF16;
  return dev == DType::I32;
}

// "f32" → F32, ...; false for an unknown name.
bool parse(std::string_view s, DType* out);

// IEEE binary16 and bfloat16 ↔ f32, both rounding to nearest, ties to even.
// Overflow becomes ±inf, underflow a subnormal or ±0; a NaN stays a NaN
// (sign and the top payload bits kept, quiet bit set); ±inf and ±0 are exact.
float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);
float bf16ToFloat(uint16_t b);
uint16_t floatToBf16(float f);

}  // namespace dtype
}  // namespace mgb
