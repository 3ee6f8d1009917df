// GPT-2's byte-level alphabet (byte_level.h).
#include "compiler/tokenizer/byte_level.h"

#include <array>
#include <unordered_map>

#include "compiler/tokenizer/utf8.h"

namespace mgc::tok {

namespace {

// Printable Latin-1 bytes map to themselves; the rest, in order, to 256+n.
struct Alphabet {
  std::array<std::string, 256> encoded;
  std::unordered_map<uint32_t, uint8_t> decoded;
  Alphabet() {
    uint32_t next = 256;
    for (uint32_t b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      const uint32_t cp = printable ? b : next++;
      appendUtf8(&encoded[b], cp);
      decoded[cp] = uint8_t(b);
    }
  }
};

const Alphabet& alphabet() {
  static const Alphabet a;
  return a;
}

}  // namespace

std::string byteLevelEncode(const std::string& bytes) {
  const Alphabet& a = alphabet();
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) out += a.encoded[b];
  return out;
}

bool byteLevelDecode(const std::string& token, std::string* bytes) {
  const Alphabet& a = alphabet();
  std::string out;
  for (size_t i = 0; i < token.size();) {
    size_t len;
    const uint32_t cp = codePointAt(token, i, &len);
    auto it = a.decoded.find(cp);
    if (it == a.decoded.end() || validSequenceLength(token, i) == 0) return false;
    out.push_back(char(it->second));
    i += len;
  }
  *bytes += out;
  return true;
}

}  // namespace mgc::tok
