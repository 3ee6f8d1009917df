// NumPy .npy files (format versions 1, 2 and 3), little-endian, C order.
// Dependency-free (standard library only) and exception-free on bad input:
// every reader returns false with a message, so the runtime could use it too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/dtype.h"

namespace mgb {
namespace npy {

// The shared element types (formats/dtype.h). NumPy has no bfloat16: the
// reader never yields BF16 and the writer refuses it (convert to f32 first),
// rather than writing an opaque '<V2' that NumPy cannot compute with.
using DType = mgb::dtype::DType;

struct Array {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;  // empty = scalar
  std::vector<uint8_t> data;   // numel * elementSize(dtype) bytes, little-endian
};

inline size_t elementSize(DType t) { return dtype::size(t); }
// NumPy's type string, e.g. "<f4", "|b1"; nullptr for BF16.
const char* descr(DType t);
// Short name used in messages: "f32", "f16", "bool", ...
inline const char* dtypeName(DType t) { return dtype::name(t); }

// Element count of a shape; false when a dimension is negative or the count
// (times 8 bytes) would overflow.
bool numElements(const std::vector<int64_t>& shape, uint64_t* out);

// Parses a whole .npy image. On failure returns false and sets *error.
bool read(const uint8_t* bytes, size_t size, Array* out, std::string* error);
bool readFile(const std::string& path, Array* out, std::string* error);

// Serializes an array (version 1 header unless it needs more than 64 KiB).
// Returns false when data.size() does not match the shape or for BF16.
bool write(const Array& a, std::vector<uint8_t>* out, std::string* error);
bool writeFile(const std::string& path, const Array& a, std::string* error);

}  // namespace npy
}  // namespace mgb
