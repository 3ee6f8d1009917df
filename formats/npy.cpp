// .npy reader/writer. The header is a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// which we parse with a tiny hand-written scanner: the input is untrusted.
#include "formats/npy.h"

#include <cstdio>
#include <cstring>
#include <memory>

#include "formats/file_read.h"

namespace mgb {
namespace npy {
namespace {

constexpr char kMagic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};
constexpr uint64_t kMaxBytes = uint64_t(1) << 62;

bool fail(std::string* error, const std::string& msg) {
  if (error) *error = msg;
  return false;
}

// A cursor over the header text with the few productions we need.
class HeaderScanner {
 public:
  HeaderScanner(const char* p, size_t n) : p_(p), end_(p + n) {}

  void skipSpace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool accept(char c) {
    skipSpace();
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool atEnd() {
    skipSpace();
    return p_ == end_;
  }
  bool quoted(std::string* out) {
    skipSpace();
    if (p_ >= end_ || (*p_ != '\'' && *p_ != '"')) return false;
    const char q = *p_++;
    const char* start = p_;
    while (p_ < end_ && *p_ != q) ++p_;
    if (p_ >= end_) return false;
    out->assign(start, p_);
    ++p_;
    return true;
  }
  bool word(std::string* out) {
    skipSpace();
    const char* start = p_;
    while (p_ < end_ && ((*p_ >= 'A' && *p_ <= 'Z') || (*p_ >= 'a' && *p_ <= 'z'))) ++p_;
    out->assign(start, p_);
    return !out->empty();
  }
  bool integer(int64_t* out) {
    skipSpace();
    const char* start = p_;
    uint64_t v = 0;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
      const uint64_t digit = uint64_t(*p_ - '0');
      if (v > (kMaxBytes - digit) / 10) return false;  // a dimension no file can hold
      v = v * 10 + digit;
      ++p_;
    }
    if (p_ < end_ && *p_ == 'L') ++p_;  // Python 2 longs
    *out = int64_t(v);
    return p_ != start;
  }
  // "(2, 3)", "(3,)" or "()".
  bool tuple(std::vector<int64_t>* out) {
    if (!accept('(')) return false;
    out->clear();
    if (accept(')')) return true;
    for (;;) {
      int64_t d = 0;
      if (!integer(&d)) return false;
      out->push_back(d);
      if (out->size() > 64) return false;
      if (accept(')')) return true;
      if (!accept(',')) return false;
      if (accept(')')) return true;
    }
  }

 private:
  const char* p_;
  const char* end_;
};

bool parseDescr(const std::string& d, DType* out, std::string* error) {
  if (d.size() < 3) return fail(error, "npy: unsupported dtype '" + d + "'");
  const char order = d[0];
  const std::string kind = d.substr(1);
  if (order == '>' && kind != "i1" && kind != "u1" && kind != "b1")
    return fail(error, "npy: big-endian dtype '" + d + "' is not supported");
  if (order != '<' && order != '|' && order != '=' && order != '>')
    return fail(error, "npy: unsupported dtype '" + d + "'");
  static const struct { const char* kind; DType type; } kKinds[] = {
      {"f4", DType::F32}, {"f2", DType::F16}, {"f8", DType::F64}, {"i8", DType::I64},
      {"i4", DType::I32}, {"i1", DType::I8},  {"u1", DType::U8},  {"b1", DType::Bool},
      {"i2", DType::I16}, {"u2", DType::U16}, {"u4", DType::U32}, {"u8", DType::U64}};
  for (const auto& k : kKinds) {
    if (kind == k.kind) {
      *out = k.type;
      return true;
    }
  }
  return fail(error, "npy: unsupported dtype '" + d +
                         "' (supported: f4, f2, f8, i8, i4, i1, u1, b1)");
}

bool parseHeader(const char* text, size_t n, Array* out, std::string* error) {
  HeaderScanner s(text, n);
  if (!s.accept('{')) return fail(error, "npy: header is not a dict");
  bool haveDescr = false, haveOrder = false, haveShape = false;
  while (!s.accept('}')) {
    std::string key;
    if (!s.quoted(&key) || !s.accept(':')) return fail(error, "npy: malformed header dict");
    if (key == "descr") {
      std::string d;
      if (!s.quoted(&d)) return fail(error, "npy: 'descr' is not a string (structured dtypes are not supported)");
      if (!parseDescr(d, &out->dtype, error)) return false;
      haveDescr = true;
    } else if (key == "fortran_order") {
      std::string w;
      if (!s.word(&w) || (w != "True" && w != "False"))
        return fail(error, "npy: 'fortran_order' is not True or False");
      if (w == "True") return fail(error, "npy: Fortran-order arrays are not supported");
      haveOrder = true;
    } else if (key == "shape") {
      if (!s.tuple(&out->shape)) return fail(error, "npy: 'shape' is not a tuple of integers");
      haveShape = true;
    } else {
      return fail(error, "npy: unexpected header key '" + key + "'");
    }
    if (!s.accept(',')) {
      if (!s.accept('}')) return fail(error, "npy: malformed header dict");
      break;
    }
  }
  if (!s.atEnd()) return fail(error, "npy: trailing characters after header dict");
  if (!haveDescr || !haveOrder || !haveShape)
    return fail(error, "npy: header lacks one of 'descr', 'fortran_order', 'shape'");
  return true;
}

uint32_t readLe(const uint8_t* p, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

}  // namespace

const char* descr(DType t) {
  switch (t) {
    case DType::F32: return "<f4";
    case DType::F16: return "<f2";
    case DType::F64: return "<f8";
    case DType::I64: return "<i8";
    case DType::I32: return "<i4";
    case DType::I8: return "|i1";
    case DType::U8: return "|u1";
    case DType::Bool: return "|b1";
    case DType::BF16: return nullptr;  // NumPy has no bfloat16
    case DType::I16: return "<i2";
    case DType::U16: return "<u2";
    case DType::U32: return "<u4";
    case DType::U64: return "<u8";
  }
  return nullptr;
}

bool numElements(const std::vector<int64_t>& shape, uint64_t* out) {
  uint64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return false;
    if (d != 0 && n > kMaxBytes / 8 / uint64_t(d)) return false;
    n *= uint64_t(d);
  }
  *out = n;
  return true;
}

bool read(const uint8_t* bytes, size_t size, Array* out, std::string* error) {
  if (!bytes || !out) return fail(error, "npy: null argument");
  if (size < 10 || std::memcmp(bytes, kMagic, 6) != 0)
    return fail(error, "npy: not a .npy file (bad magic)");
  const uint8_t major = bytes[6];
  if (major < 1 || major > 3)
    return fail(error, "npy: unsupported format version " + std::to_string(major));
  const size_t lenBytes = major == 1 ? 2 : 4;
  const size_t prefix = 8 + lenBytes;
  if (size < prefix) return fail(error, "npy: truncated header length");
  const uint64_t headerLen = readLe(bytes + 8, int(lenBytes));
  if (headerLen > size - prefix)
    return fail(error, "npy: header length " + std::to_string(headerLen) + " exceeds file size " +
                           std::to_string(size));
  Array a;
  if (!parseHeader(reinterpret_cast<const char*>(bytes + prefix), headerLen, &a, error))
    return false;
  uint64_t numel = 0;
  if (!numElements(a.shape, &numel)) return fail(error, "npy: shape " + shapeText(a.shape) + " is invalid or too large");
  const uint64_t need = numel * elementSize(a.dtype);
  const uint64_t have = size - prefix - headerLen;
  if (have != need)
    return fail(error, "npy: data has " + std::to_string(have) + " bytes but " + descr(a.dtype) +
                           " shape " + shapeText(a.shape) + " needs " + std::to_string(need));
  a.data.assign(bytes + prefix + headerLen, bytes + size);
  *out = std::move(a);
  return true;
}

bool readFile(const std::string& path, Array* out, std::string* error) {
  std::vector<uint8_t> bytes;
  std::string readError;
  if (!fileio::readAll(path, &bytes, &readError)) return fail(error, readError);
  if (!read(bytes.data(), bytes.size(), out, error)) {
    if (error) *error = "'" + path + "': " + *error;
    return false;
  }
  return true;
}

bool write(const Array& a, std::vector<uint8_t>* out, std::string* error) {
  if (!descr(a.dtype))
    return fail(error, std::string("npy: NumPy has no ") + dtypeName(a.dtype) + " type (convert to f32 first)");
  uint64_t numel = 0;
  if (!numElements(a.shape, &numel)) return fail(error, "npy: shape " + shapeText(a.shape) + " is invalid");
  if (a.data.size() != numel * elementSize(a.dtype))
    return fail(error, "npy: data has " + std::to_string(a.data.size()) + " bytes but shape " +
                           shapeText(a.shape) + " needs " + std::to_string(numel * elementSize(a.dtype)));
  std::string header = std::string("{'descr': '") + descr(a.dtype) +
                       "', 'fortran_order': False, 'shape': " + shapeText(a.shape) + ", }";
  // NumPy pads with spaces and a final newline so the data starts 64-aligned.
  const size_t lenBytes = header.size() + 1 + 10 > 65535 ? 4 : 2;
  const size_t prefix = 8 + lenBytes;
  const size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';

  // Sized once and filled by offset (GCC 12 warns falsely on chained inserts).
  out->assign(prefix + header.size() + a.data.size(), 0);
  uint8_t* p = out->data();
  std::memcpy(p, kMagic, sizeof kMagic);
  p[6] = lenBytes == 2 ? 1 : 2;
  p[7] = 0;
  for (size_t i = 0; i < lenBytes; ++i) p[8 + i] = uint8_t(header.size() >> (8 * i));
  std::memcpy(p + prefix, header.data(), header.size());
  if (!a.data.empty()) std::memcpy(p + prefix + header.size(), a.data.data(), a.data.size());
  return true;
}

bool writeFile(const std::string& path, const Array& a, std::string* error) {
  std::vector<uint8_t> bytes;
  if (!write(a, &bytes, error)) return false;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return fail(error, "npy: cannot create '" + path + "'");
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed) return fail(error, "npy: cannot write '" + path + "'");
  return true;
}

}  // namespace npy
}  // namespace mgb
