#include "compiler/onnx/initializer_bytes.h"

#include <cstdint>

namespace mgc::onnximport {

namespace {

// Field numbers of onnx.proto that the scan descends through.
constexpr uint32_t kModelGraph = 7, kGraphInitializer = 5, kTensorRawData = 9;
constexpr int kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5;

struct WireError {
  size_t at;
  const char* why;
};

// One field of a message: tag bytes [start, tagEnd); for length-delimited
// fields the payload is [payload, end), for the others [tagEnd, end).
struct Field {
  uint32_t number;
  int wireType;
  size_t start, tagEnd, payload, end;
};

class Scanner {
 public:
  Scanner(const uint8_t* bytes, SplitModel& out) : p_(bytes), out_(out) {}

  // ModelProto [pos, end) → out_.stripped.
  void model(size_t pos, size_t end) {
    std::string& s = out_.stripped;
    while (pos < end) {
      Field f = next(pos, end);
      if (f.number == kModelGraph && f.wireType == kLengthDelimited) {
        std::string g;
        graph(f.payload, f.end, g);
        s.append(chars(f.start), f.tagEnd - f.start);
        appendVarint(s, g.size());
        s += g;
      } else {
        s.append(chars(f.start), f.end - f.start);
      }
      pos = f.end;
    }
  }

 private:
  const uint8_t* p_;
  SplitModel& out_;

  const char* chars(size_t at) const { return reinterpret_cast<const char*>(p_ + at); }

  void graph(size_t pos, size_t end, std::string& s) {
    while (pos < end) {
      Field f = next(pos, end);
      if (f.number == kGraphInitializer && f.wireType == kLengthDelimited) {
        out_.rawData.emplace_back();
        std::string t;
        tensor(f.payload, f.end, t, out_.rawData.back());
        s.append(chars(f.start), f.tagEnd - f.start);
        appendVarint(s, t.size());
        s += t;
      } else {
        s.append(chars(f.start), f.end - f.start);
      }
      pos = f.end;
    }
  }

  void tensor(size_t pos, size_t end, std::string& s, std::optional<std::string_view>& raw) {
    while (pos < end) {
      Field f = next(pos, end);
      if (f.number == kTensorRawData && f.wireType == kLengthDelimited)
        raw = std::string_view(chars(f.payload), f.end - f.payload);
      else
        s.append(chars(f.start), f.end - f.start);
      pos = f.end;
    }
  }

  // A varint at `pos` (at most 10 bytes, all before `end`); advances pos.
  uint64_t varint(size_t& pos, size_t end) const {
    const size_t start = pos;
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (pos >= end) throw WireError{start, "varint runs past the end of its message"};
      const uint8_t b = p_[pos++];
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    throw WireError{start, "varint longer than 10 bytes"};
  }

  Field next(size_t pos, size_t end) const {
    Field f{};
    f.start = pos;
    const uint64_t tag = varint(pos, end);
    if (tag > 0xffffffffull) throw WireError{f.start, "tag does not fit 32 bits"};
    f.number = uint32_t(tag >> 3);
    f.wireType = int(tag & 7);
    if (f.number == 0) throw WireError{f.start, "field number 0"};
    f.tagEnd = f.payload = pos;
    auto fixed = [&](size_t n) {
      if (end - pos < n) throw WireError{f.start, "fixed-size field runs past the end of its message"};
      f.end = pos + n;
    };
    switch (f.wireType) {
      case kVarint:
        varint(pos, end);
        f.end = pos;
        break;
      case kFixed64:
        fixed(8);
        break;
      case kFixed32:
        fixed(4);
        break;
      case kLengthDelimited: {
        const uint64_t n = varint(pos, end);
        if (n > end - pos) throw WireError{f.start, "length runs past the end of its message"};
        f.payload = pos;
        f.end = pos + size_t(n);
        break;
      }
      case 3:
      case 4:
        throw WireError{f.start, "group wire type, which onnx.proto never uses"};
      default:
        throw WireError{f.start, "invalid wire type"};
    }
    return f;
  }

  static void appendVarint(std::string& s, uint64_t v) {
    while (v >= 0x80) {
      s.push_back(char(uint8_t(v) | 0x80));
      v >>= 7;
    }
    s.push_back(char(v));
  }
};

}  // namespace

std::string splitInitializerBytes(const void* data, size_t size, SplitModel& out) {
  out = SplitModel{};
  try {
    Scanner(static_cast<const uint8_t*>(data), out).model(0, size);
  } catch (const WireError& e) {
    return "byte " + std::to_string(e.at) + ": " + e.why;
  }
  bool any = false;
  for (const auto& r : out.rawData) any = any || r.has_value();
  if (!any) out.stripped.clear();
  return "";
}

}  // namespace mgc::onnximport
