// safetensors (https://github.com/huggingface/safetensors) reader and
// writer, dependency-free and exception-free so that libmgrt can use it.
//
//   u64 N (little-endian) | N bytes of JSON header | data
//   header: {"__metadata__": {"k": "v"}, "name": {"dtype": "F32",
//            "shape": [2, 3], "data_offsets": [begin, end]}, ...}
//   offsets are relative to the start of the data area.
//
// The reader treats the file as hostile: the header length, JSON syntax
// (bounded nesting), dtype names, shapes (no overflow), and every data range
// (inside the file, numel * element size bytes, no overlaps) are checked,
// and errors name the tensor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace safetensors {

constexpr uint64_t kMaxHeaderBytes = 100u << 20;  // as the reference implementation

struct TensorInfo {
  std::string name;
  std::string dtype;  // "F32", "F16", "F64", "I64", "I32", "I16", "I8", "U8", "BOOL", "BF16", ...
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;  // byte range in the data area
};

struct Header {
  std::vector<TensorInfo> tensors;  // in file order
  std::map<std::string, std::string> metadata;
  uint64_t dataOffset = 0;  // where the data area starts in the file
  const TensorInfo* find(const std::string& name) const;
};

// Bytes per element of a dtype name, 0 if unknown.
size_t dtypeSize(const std::string& dtype);

// The safetensors name ("F32", ..., "BOOL", "BF16") of a formats/dtype.h
// DType value (the numbering of mgb::DType and mgrt_dtype); "?" if out of range.
const char* dtypeName(unsigned mgbDType);

// Parses and checks the header of a whole file image. On failure returns
// false and sets *error (e.g. "tensor 'fc1.weight': data [0, 4096) outside
// the 1000-byte data area (truncated file?)").
bool parseHeader(const uint8_t* file, size_t size, Header* out, std::string* error);

// The header length stored in the first 8 bytes of a file of `fileSize`
// bytes, checked against the 100 MiB limit and the file size.
bool headerLength(const uint8_t* first8, uint64_t fileSize, uint64_t* length, std::string* error);

// parseHeader over the first `headSize` bytes of a file of `fileSize` bytes
// (at least 8 + the header length): the data ranges are checked against
// `fileSize`, so the data itself need not be in memory.
bool parseHeaderPrefix(const uint8_t* head, size_t headSize, uint64_t fileSize, Header* out, std::string* error);

// ---- files too large to read whole (safetensors_file.cpp) ----
// A checkpoint of several GB is read one tensor at a time: the header
// first (readHeaderFile), then each tensor's bytes straight into the
// caller's buffer (readTensorData), so no copy of the whole file is made.

// Opens `path`, reads 8 bytes and the header, and parses it against the
// file's size. Errors name no path (the caller adds it).
bool readHeaderFile(const std::string& path, Header* out, std::string* error);

// Reads tensor `t` of `path` (whose header is `h`) into dst, which holds
// t.end - t.begin bytes. Fails on a short read (the file changed).
bool readTensorData(const std::string& path, const Header& h, const TensorInfo& t, void* dst, std::string* error);

// Widens `count` elements of a float dtype ("F32", "F16", "BF16") to f32;
// false for any other dtype.
bool floatsToF32(const std::string& dtype, const void* src, uint64_t count, float* dst);

struct TensorData {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  const void* data = nullptr;
  uint64_t bytes = 0;
};

// A whole file image: tensors in the given order, packed, header padded with
// spaces to a multiple of 8 bytes.
std::vector<uint8_t> serialize(const std::vector<TensorData>& tensors,
                               const std::map<std::string, std::string>& metadata);

// Writes `bytes` to `path` atomically: a temporary file in the same
// directory, fsync, rename over `path`, fsync of the directory. A crash
// leaves either the old file or the new one, never a mix.
// The temporary is `path`.tmp.<pid>; one left by a writer that was killed
// is removed by the next writeFileAtomic of the same `path`.
bool writeFileAtomic(const std::string& path, const std::vector<uint8_t>& bytes, std::string* error);

// Deletes `path`.tmp.<pid> files (that exact pattern, next to `path`) whose
// pid is no live process: temporaries of a writer killed mid-write. A pid
// reused by a live process keeps its file until a later call.
void removeStaleTemporaries(const std::string& path);

// Reads a whole file; false with *error on failure.
bool readFile(const std::string& path, std::vector<uint8_t>* out, std::string* error);

}  // namespace safetensors
