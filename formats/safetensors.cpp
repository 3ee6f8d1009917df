#include "formats/safetensors.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unordered_set>

#include "formats/dtype.h"
#include "formats/file_read.h"

namespace safetensors {

namespace {

// A JSON value, just enough for safetensors headers.
struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  std::string str;     // String
  double num = 0;      // Number
  bool integer = false;  // Number without fraction/exponent
  int64_t i = 0;       // Number, when integer and in range
  std::vector<Json> items;                          // Array
  std::vector<std::pair<std::string, Json>> members;  // Object (in order)
};

class Parser {
 public:
  Parser(const char* p, size_t n) : p_(p), end_(p + n) {}
  bool parse(Json* out, std::string* err) {
    if (!value(out, 0)) {
      *err = "header is not valid JSON: " + error_ + " at byte " + std::to_string(pos());
      return false;
    }
    skipSpace();
    if (p_ != end_) {
      *err = "header is not valid JSON: trailing characters at byte " + std::to_string(pos());
      return false;
    }
    return true;
  }

 private:
  static constexpr int kMaxDepth = 8;
  const char* p_;
  const char* end_;
  const char* start_ = p_;
  std::string error_;

  size_t pos() const { return size_t(p_ - start_); }
  bool fail(const char* why) {
    if (error_.empty()) error_ = why;
    return false;
  }
  void skipSpace() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool literal(const char* w) {
    size_t n = std::strlen(w);
    if (size_t(end_ - p_) < n || std::memcmp(p_, w, n) != 0) return fail("unexpected token");
    p_ += n;
    return true;
  }
  bool value(Json* out, int depth) {
    if (depth > kMaxDepth) return fail("nesting too deep");
    skipSpace();
    if (p_ == end_) return fail("unexpected end");
    switch (*p_) {
      case '{': return object(out, depth);
      case '[': return array(out, depth);
      case '"': out->kind = Json::String; return string(&out->str);
      case 't': out->kind = Json::Bool; return literal("true");
      case 'f': out->kind = Json::Bool; return literal("false");
      case 'n': out->kind = Json::Null; return literal("null");
      default: return number(out);
    }
  }
  bool object(Json* out, int depth) {
    out->kind = Json::Object;
    ++p_;
    skipSpace();
    if (p_ != end_ && *p_ == '}') return ++p_, true;
    // A key given twice is refused (as serde_json does for the fields
    // safetensors reads): otherwise a second "shape" appended to the first,
    // past the rank limit (fuzz_safetensors finding), or the last one won.
    std::unordered_set<std::string> keys;
    for (;;) {
      skipSpace();
      std::string key;
      if (p_ == end_ || *p_ != '"' || !string(&key)) return fail("expected a string key");
      if (!keys.insert(key).second) return fail("a key appears twice in one object");
      skipSpace();
      if (p_ == end_ || *p_ != ':') return fail("expected ':'");
      ++p_;
      out->members.emplace_back(std::move(key), Json());
      if (!value(&out->members.back().second, depth + 1)) return false;
      skipSpace();
      if (p_ == end_) return fail("unexpected end in object");
      if (*p_ == ',') { ++p_; continue; }
      if (*p_ == '}') return ++p_, true;
      return fail("expected ',' or '}'");
    }
  }
  bool array(Json* out, int depth) {
    out->kind = Json::Array;
    ++p_;
    skipSpace();
    if (p_ != end_ && *p_ == ']') return ++p_, true;
    for (;;) {
      out->items.emplace_back();
      if (!value(&out->items.back(), depth + 1)) return false;
      skipSpace();
      if (p_ == end_) return fail("unexpected end in array");
      if (*p_ == ',') { ++p_; continue; }
      if (*p_ == ']') return ++p_, true;
      return fail("expected ',' or ']'");
    }
  }
  static void appendUtf8(std::string* s, uint32_t c) {
    if (c < 0x80) {
      *s += char(c);
    } else if (c < 0x800) {
      *s += char(0xC0 | (c >> 6));
      *s += char(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      *s += char(0xE0 | (c >> 12));
      *s += char(0x80 | ((c >> 6) & 0x3F));
      *s += char(0x80 | (c & 0x3F));
    } else {
      *s += char(0xF0 | (c >> 18));
      *s += char(0x80 | ((c >> 12) & 0x3F));
      *s += char(0x80 | ((c >> 6) & 0x3F));
      *s += char(0x80 | (c & 0x3F));
    }
  }
  bool hex4(uint32_t* out) {
    if (end_ - p_ < 4) return fail("truncated \\u escape");
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      char c = *p_++;
      v <<= 4;
      if (c >= '0' && c <= '9') v |= uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f') v |= uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= uint32_t(c - 'A' + 10);
      else return fail("bad \\u escape");
    }
    *out = v;
    return true;
  }
  bool string(std::string* out) {
    ++p_;  // opening quote
    while (p_ != end_ && *p_ != '"') {
      unsigned char c = static_cast<unsigned char>(*p_++);
      if (c < 0x20) return fail("control character in string");
      if (c != '\\') {
        *out += char(c);
        continue;
      }
      if (p_ == end_) return fail("truncated escape");
      char e = *p_++;
      switch (e) {
        case '"': *out += '"'; break;
        case '\\': *out += '\\'; break;
        case '/': *out += '/'; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case 'n': *out += '\n'; break;
        case 'r': *out += '\r'; break;
        case 't': *out += '\t'; break;
        case 'u': {
          uint32_t c1 = 0;
          if (!hex4(&c1)) return false;
          if (c1 >= 0xD800 && c1 < 0xDC00) {  // surrogate pair
            uint32_t c2 = 0;
            if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return fail("lone surrogate");
            p_ += 2;
            if (!hex4(&c2) || c2 < 0xDC00 || c2 >= 0xE000) return fail("bad surrogate pair");
            c1 = 0x10000 + ((c1 - 0xD800) << 10) + (c2 - 0xDC00);
          } else if (c1 >= 0xDC00 && c1 < 0xE000) {
            return fail("lone surrogate");
          }
          appendUtf8(out, c1);
          break;
        }
        default: return fail("bad escape");
      }
    }
    if (p_ == end_) return fail("unterminated string");
    ++p_;
    return true;
  }
  bool number(Json* out) {
    out->kind = Json::Number;
    const char* s = p_;
    bool neg = false;
    if (p_ != end_ && *p_ == '-') neg = true, ++p_;
    if (p_ == end_ || *p_ < '0' || *p_ > '9') return fail("unexpected character");
    uint64_t mag = 0;
    bool overflow = false;
    while (p_ != end_ && *p_ >= '0' && *p_ <= '9') {
      uint32_t d = uint32_t(*p_++ - '0');
      if (mag > (uint64_t(INT64_MAX) - d) / 10) overflow = true;
      else mag = mag * 10 + d;
    }
    bool frac = false;
    while (p_ != end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E' || *p_ == '+' || *p_ == '-' ||
                          (*p_ >= '0' && *p_ <= '9')))
      frac = true, ++p_;
    std::string text(s, size_t(p_ - s));
    out->num = std::strtod(text.c_str(), nullptr);
    out->integer = !frac && !overflow;
    out->i = neg ? -int64_t(mag) : int64_t(mag);
    return true;
  }
};

bool fail(std::string* error, const std::string& why) {
  *error = why;
  return false;
}

void appendJsonString(std::string* out, const std::string& s) {
  static const char kHex[] = "0123456789abcdef";
  *out += '"';
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      *out += '\\';
      *out += ch;
    } else if (c < 0x20) {
      *out += "\\u00";
      *out += kHex[c >> 4];
      *out += kHex[c & 15];
    } else {
      *out += ch;
    }
  }
  *out += '"';
}

}  // namespace

const TensorInfo* Header::find(const std::string& name) const {
  for (const TensorInfo& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

const char* dtypeName(unsigned mgbDType) {
  static const char* const kNames[] = {"F32", "F16", "F64", "I64", "I32", "I8", "U8", "BOOL", "BF16", "I16", "U16", "U32", "U64"};
  static_assert(sizeof kNames / sizeof kNames[0] == size_t(mgb::dtype::kCount), "one name per formats/dtype.h DType");
  return mgb::dtype::isValid(mgbDType) ? kNames[mgbDType] : "?";
}

size_t dtypeSize(const std::string& d) {
  if (d == "F64" || d == "I64" || d == "U64") return 8;
  if (d == "F32" || d == "I32" || d == "U32") return 4;
  if (d == "F16" || d == "BF16" || d == "I16" || d == "U16") return 2;
  if (d == "I8" || d == "U8" || d == "BOOL" || d == "F8_E4M3" || d == "F8_E5M2") return 1;
  return 0;
}

bool headerLength(const uint8_t* first8, uint64_t fileSize, uint64_t* length, std::string* error) {
  if (fileSize < 8)
    return fail(error, "file is " + std::to_string(fileSize) + " bytes, too short for the 8-byte header length");
  uint64_t n = 0;
  for (int k = 7; k >= 0; --k) n = (n << 8) | first8[k];
  if (n > kMaxHeaderBytes) return fail(error, "header length " + std::to_string(n) + " exceeds the 100 MiB limit");
  if (n > fileSize - 8)
    return fail(error, "header length " + std::to_string(n) + " runs past the end of the " + std::to_string(fileSize) +
                           "-byte file (truncated file?)");
  *length = n;
  return true;
}

bool parseHeader(const uint8_t* file, size_t size, Header* out, std::string* error) {
  return parseHeaderPrefix(file, size, size, out, error);
}

bool parseHeaderPrefix(const uint8_t* head, size_t headSize, uint64_t fileSize, Header* out, std::string* error) {
  *out = Header();
  uint64_t n = 0;
  if (headSize < 8 && fileSize >= 8) return fail(error, "header prefix shorter than 8 bytes");
  if (!headerLength(head, fileSize, &n, error)) return false;
  if (n > headSize - 8) return fail(error, "header prefix is " + std::to_string(headSize) + " bytes, header needs " +
                                               std::to_string(8 + n));
  Json root;
  if (!Parser(reinterpret_cast<const char*>(head + 8), size_t(n)).parse(&root, error)) return false;
  if (root.kind != Json::Object) return fail(error, "header is not a JSON object");
  out->dataOffset = 8 + n;
  const uint64_t dataSize = fileSize - out->dataOffset;
  for (const auto& [key, v] : root.members) {
    if (key == "__metadata__") {
      if (v.kind != Json::Object) return fail(error, "__metadata__ is not an object");
      for (const auto& [mk, mv] : v.members) {
        if (mv.kind != Json::String) return fail(error, "__metadata__ '" + mk + "' is not a string");
        out->metadata[mk] = mv.str;
      }
      continue;
    }
    const std::string what = "tensor '" + key + "'";
    if (v.kind != Json::Object) return fail(error, what + ": not an object");
    if (out->find(key)) return fail(error, what + ": appears twice");
    TensorInfo t;
    t.name = key;
    bool haveDtype = false, haveShape = false, haveOffsets = false;
    for (const auto& [fk, fv] : v.members) {
      if (fk == "dtype") {
        if (fv.kind != Json::String || dtypeSize(fv.str) == 0) return fail(error, what + ": unknown dtype");
        t.dtype = fv.str;
        haveDtype = true;
      } else if (fk == "shape") {
        if (fv.kind != Json::Array || fv.items.size() > 16) return fail(error, what + ": shape is not a list of <= 16 ints");
        for (const Json& d : fv.items) {
          if (d.kind != Json::Number || !d.integer || d.i < 0) return fail(error, what + ": shape has a bad dimension");
          t.shape.push_back(d.i);
        }
        haveShape = true;
      } else if (fk == "data_offsets") {
        if (fv.kind != Json::Array || fv.items.size() != 2) return fail(error, what + ": data_offsets is not [begin, end]");
        for (const Json& d : fv.items)
          if (d.kind != Json::Number || !d.integer || d.i < 0) return fail(error, what + ": data_offsets has a bad entry");
        t.begin = uint64_t(fv.items[0].i);
        t.end = uint64_t(fv.items[1].i);
        haveOffsets = true;
      } else {
        return fail(error, what + ": unknown field '" + fk + "'");
      }
    }
    if (!haveDtype || !haveShape || !haveOffsets) return fail(error, what + ": needs dtype, shape and data_offsets");
    uint64_t numel = 1;
    for (int64_t d : t.shape) {
      if (d != 0 && numel > (uint64_t(1) << 56) / uint64_t(d)) return fail(error, what + ": shape is too large");
      numel *= uint64_t(d);
    }
    if (t.end < t.begin) return fail(error, what + ": data_offsets end before they begin");
    if (t.end - t.begin != numel * dtypeSize(t.dtype))
      return fail(error, what + ": data is " + std::to_string(t.end - t.begin) + " bytes but " + t.dtype + " shape needs " +
                             std::to_string(numel * dtypeSize(t.dtype)));
    if (t.end > dataSize)
      return fail(error, what + ": data [" + std::to_string(t.begin) + ", " + std::to_string(t.end) + ") outside the " +
                             std::to_string(dataSize) + "-byte data area (truncated file?)");
    out->tensors.push_back(std::move(t));
  }
  std::vector<const TensorInfo*> sorted;
  for (const TensorInfo& t : out->tensors) sorted.push_back(&t);
  std::sort(sorted.begin(), sorted.end(), [](const TensorInfo* a, const TensorInfo* b) { return a->begin < b->begin; });
  for (size_t k = 1; k < sorted.size(); ++k)
    if (sorted[k]->begin < sorted[k - 1]->end && sorted[k]->end > sorted[k]->begin)
      return fail(error, "tensor '" + sorted[k]->name + "': data overlaps tensor '" + sorted[k - 1]->name + "'");
  return true;
}

std::vector<uint8_t> serialize(const std::vector<TensorData>& tensors, const std::map<std::string, std::string>& metadata) {
  std::string header = "{";
  bool first = true;
  if (!metadata.empty()) {
    header += "\"__metadata__\":{";
    for (const auto& [k, v] : metadata) {
      if (!first) header += ",";
      first = false;
      appendJsonString(&header, k);
      header += ":";
      appendJsonString(&header, v);
    }
    header += "}";
  }
  uint64_t at = 0;
  for (const TensorData& t : tensors) {
    if (!(metadata.empty() && &t == &tensors.front())) header += ",";
    appendJsonString(&header, t.name);
    header += ":{\"dtype\":";
    appendJsonString(&header, t.dtype);
    header += ",\"shape\":[";
    for (size_t d = 0; d < t.shape.size(); ++d) header += (d ? "," : "") + std::to_string(t.shape[d]);
    header += "],\"data_offsets\":[" + std::to_string(at) + "," + std::to_string(at + t.bytes) + "]}";
    at += t.bytes;
  }
  header += "}";
  while ((8 + header.size()) % 8 != 0) header += ' ';
  std::vector<uint8_t> out(8 + header.size() + at);
  uint64_t n = header.size();
  for (int k = 0; k < 8; ++k) out[size_t(k)] = uint8_t(n >> (8 * k));
  std::memcpy(out.data() + 8, header.data(), header.size());
  uint8_t* data = out.data() + 8 + header.size();
  for (const TensorData& t : tensors) {
    if (t.bytes) std::memcpy(data, t.data, t.bytes);
    data += t.bytes;
  }
  return out;
}

void removeStaleTemporaries(const std::string& path) {
  const size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  if (dir.empty()) dir = "/";
  const std::string prefix = (slash == std::string::npos ? path : path.substr(slash + 1)) + ".tmp.";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;  // the write that follows reports the real problem
  std::vector<std::string> stale;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::stol(digits);
    // Alive (or alive but not ours to signal: EPERM): its writer may still
    // be writing. Only ESRCH means no such process.
    if (pid <= 0 || pid == long(getpid()) || ::kill(pid_t(pid), 0) == 0 || errno != ESRCH) continue;
    stale.push_back(dir + "/" + name);
  }
  ::closedir(d);
  for (const std::string& f : stale) ::unlink(f.c_str());
}

bool writeFileAtomic(const std::string& path, const std::vector<uint8_t>& bytes, std::string* error) {
  removeStaleTemporaries(path);
  const std::string tmp = path + ".tmp." + std::to_string(long(getpid()));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fail(error, "cannot create '" + tmp + "': " + std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return fail(error, "cannot write '" + tmp + "': " + why);
    }
    done += size_t(w);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return fail(error, "cannot flush '" + tmp + "': " + why);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return fail(error, "cannot rename '" + tmp + "' to '" + path + "': " + why);
  }
  // Make the rename itself durable.
  std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
  if (dir.empty()) dir = "/";
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return true;
}

bool readFile(const std::string& path, std::vector<uint8_t>* out, std::string* error) {
  std::string readError;
  if (!fileio::readAll(path, out, &readError)) return fail(error, readError);
  return true;
}

}  // namespace safetensors
