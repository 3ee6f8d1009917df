// Element types, tensor types and host tensors: the vocabulary every other
// part of the compiler speaks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/dtype.h"

namespace mgc {

// Every compiler error is one of these; the CLI catches it and prints it.
// Messages name the file / node / tensor and the reason.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The shared element-type table (formats/dtype.h): the IR's dtype is the
// bundle's, so no mapping table sits between them.
using DType = mgb::dtype::DType;
constexpr int kNumDTypes = mgb::dtype::kCount;

inline size_t dtypeSize(DType t) { return mgb::dtype::size(t); }
// "f32", "f16", "f64", "i64", "i32", "i8", "u8", "bool", "bf16"
inline const char* dtypeName(DType t) { return mgb::dtype::name(t); }
inline bool parseDType(std::string_view s, DType* out) { return mgb::dtype::parse(s, out); }
using mgb::dtype::isFloat;  // f32, f16, f64, bf16 (the shared function itself: no ADL ambiguity)
// Bytes per element of a tensor of type t on the device: the size of its
// device dtype (kernels/lower.h deviceDType), not of t.
inline size_t deviceElementSize(DType t) { return mgb::dtype::deviceSize(t); }

using Shape = std::vector<int64_t>;
int64_t numel(const Shape& s);
std::string shapeStr(const Shape& s);  // "[1,3,64,64]"

struct TensorType {
  DType dtype = DType::F32;
  Shape shape;
  int64_t numel() const { return mgc::numel(shape); }
  size_t bytes() const { return size_t(numel()) * dtypeSize(dtype); }
  int rank() const { return int(shape.size()); }
  std::string str() const;  // "f32[1,3,64,64]"
  bool operator==(const TensorType& o) const { return dtype == o.dtype && shape == o.shape; }
  bool operator!=(const TensorType& o) const { return !(*this == o); }
};

// The two float → integer conversions; no other may be written (a plain
// int64_t(double) is undefined behaviour for NaN, ±inf and |v| >= 2^63).
// A float used as an integer (an index, size or axis): NaN, ±inf and values
// outside int64 are an mgc::Error (callers add the node's name); fractions
// truncate toward zero.
int64_t checkedFloatToInt64(double v);
// A value cast (ONNX Cast, integer Pow): toward zero, saturating at the
// int64 range, NaN → 0.
int64_t truncToInt64(double v);

// A dense, row-major tensor in host memory: constants, reference-evaluator
// values, test data.
struct HostTensor {
  TensorType type;
  std::vector<uint8_t> data;  // type.bytes() bytes, little-endian

  HostTensor() = default;
  explicit HostTensor(TensorType t) : type(std::move(t)), data(type.bytes()) {}
  // type.bytes() bytes copied from `bytes` (no zero fill first: weights are large).
  HostTensor(TensorType t, const void* bytes)
      : type(std::move(t)),
        data(static_cast<const uint8_t*>(bytes), static_cast<const uint8_t*>(bytes) + type.bytes()) {}
  int64_t numel() const { return type.numel(); }
  template <class T> T* as() { return reinterpret_cast<T*>(data.data()); }
  template <class T> const T* as() const { return reinterpret_cast<const T*>(data.data()); }
  // Element i converted to double / int64, whatever the dtype (f16, bf16 decoded).
  double getF(int64_t i) const;
  // Integer tensors: the value. Float tensors read as integers (indices,
  // sizes, axes): checkedFloatToInt64.
  int64_t getI(int64_t i) const;
  // Store v, converted to this tensor's dtype.
  void setF(int64_t i, double v);
  void setI(int64_t i, int64_t v);
};

using mgb::dtype::bf16ToFloat;
using mgb::dtype::floatToBf16;
using mgb::dtype::floatToHalf;
using mgb::dtype::halfToFloat;

}  // namespace mgc
