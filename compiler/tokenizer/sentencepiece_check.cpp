// Checks of a tokenizer.model's character maps (sentencepiece_check.h).
#include "compiler/tokenizer/sentencepiece_check.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "ir/types.h"

namespace mgc::tok {

namespace {

// sentencepiece_model.proto: ModelProto.normalizer_spec = 3,
// denormalizer_spec = 5; NormalizerSpec.precompiled_charsmap = 2.
constexpr uint64_t kNormalizerSpec = 3, kDenormalizerSpec = 5, kPrecompiledCharsmap = 2;

struct Field {
  uint64_t number = 0;
  uint32_t wireType = 0;
  const uint8_t* data = nullptr;  // wire type 2: the bytes
  uint64_t size = 0;
};

// The protobuf wire format, as far as finding length-delimited fields.
class WireReader {
 public:
  WireReader(const uint8_t* p, uint64_t size, std::string where) : p_(p), end_(p + size), where_(std::move(where)) {}
  bool done() const { return p_ == end_; }
  Field next() {
    Field f;
    const uint64_t key = varint();
    f.number = key >> 3;
    f.wireType = uint32_t(key & 7);
    if (f.number == 0) fail("field number 0");
    switch (f.wireType) {
      case 0:
        varint();
        break;
      case 1:
        skip(8);
        break;
      case 5:
        skip(4);
        break;
      case 2:
        f.size = varint();
        f.data = p_;
        skip(f.size);
        break;
      case 3:
      case 4:
        fail("field " + std::to_string(f.number) + " is a group, which no SentencePiece model has");
      default:
        fail("field " + std::to_string(f.number) + " has the invalid wire type " + std::to_string(f.wireType));
    }
    return f;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw Error(where_ + ": not a SentencePiece model (the protobuf does not parse: " + why + ")");
  }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) fail("truncated");
      const uint8_t b = *p_++;
      v |= uint64_t(b & 0x7F) << shift;
      if (!(b & 0x80)) return v;
    }
    fail("a varint longer than 10 bytes");  // unreachable: the loop ends by returning or failing
  }
  void skip(uint64_t n) {
    if (n > uint64_t(end_ - p_)) fail("truncated");
    p_ += n;
  }
  const uint8_t* p_;
  const uint8_t* end_;
  std::string where_;
};

// Darts-clone's DoubleArrayUnit, as sentencepiece's copy reads it.
uint32_t offsetOf(uint32_t u) { return (u >> 10) << ((u & (1U << 9)) >> 6); }
uint32_t labelOf(uint32_t u) { return u & ((1U << 31) | 0xFF); }
bool hasLeaf(uint32_t u) { return (u >> 8) & 1; }
uint32_t valueOf(uint32_t u) { return u & ((1U << 31) - 1); }

// Normalizer::DecodePrecompiledCharsMap, then every path of
// DoubleArray::commonPrefixSearch and Normalizer::NormalizePrefix.
void checkCharsmap(const uint8_t* blob, uint64_t size, const std::string& where) {
  auto fail = [&](const std::string& why) {
    throw Error(where + ": " + why + " (sentencepiece would read outside it)");
  };
  uint32_t trieBytes = 0;
  if (size <= sizeof trieBytes) fail("shorter than its header");
  std::memcpy(&trieBytes, blob, sizeof trieBytes);
  if (trieBytes > size - sizeof trieBytes) fail("the trie's size " + std::to_string(trieBytes) + " is past the map");
  const uint64_t units = trieBytes / 4;
  if (units == 0) fail("an empty trie");
  std::vector<uint32_t> trie(units);
  std::memcpy(trie.data(), blob + sizeof trieBytes, units * 4);
  const uint8_t* strings = blob + sizeof trieBytes + trieBytes;
  const uint64_t stringBytes = size - sizeof trieBytes - trieBytes;

  // A state is the position after a unit's offset; any next byte c is
  // looked up at pos ^ c, so the whole 256-unit block must be inside.
  std::vector<uint64_t> todo = {offsetOf(trie[0])};
  std::vector<bool> seen(units, false);
  while (!todo.empty()) {
    const uint64_t pos = todo.back();
    todo.pop_back();
    if ((pos | 0xFF) >= units)
      fail("a trie state at " + std::to_string(pos) + " reaches past its " + std::to_string(units) + " units");
    for (uint32_t c = 0; c < 256; ++c) {
      const uint64_t q = pos ^ c;
      const uint32_t unit = trie[q];
      if (labelOf(unit) != c || seen[q]) continue;
      seen[q] = true;
      const uint64_t next = q ^ offsetOf(unit);
      if (hasLeaf(unit)) {
        if (next >= units)
          fail("a trie leaf at " + std::to_string(next) + " is past its " + std::to_string(units) + " units");
        const uint32_t value = valueOf(trie[next]);
        if (value >= stringBytes || !std::memchr(strings + value, 0, stringBytes - value))
          fail("a replacement string at " + std::to_string(value) + " does not end inside the map");
      }
      todo.push_back(next);
    }
  }
}

}  // namespace

void checkSentencePieceModel(const std::string& bytes, const std::string& name) {
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  WireReader model(data, bytes.size(), name);
  while (!model.done()) {
    const Field spec = model.next();
    if (spec.wireType != 2 || (spec.number != kNormalizerSpec && spec.number != kDenormalizerSpec)) continue;
    const std::string specName = spec.number == kNormalizerSpec ? "normalizer_spec" : "denormalizer_spec";
    WireReader fields(spec.data, spec.size, name);
    while (!fields.done()) {
      const Field f = fields.next();
      if (f.wireType == 2 && f.number == kPrecompiledCharsmap && f.size > 0)
        checkCharsmap(f.data, f.size, name + ": " + specName + ".precompiled_charsmap");
    }
  }
}

}  // namespace mgc::tok
