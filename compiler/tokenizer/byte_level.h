// GPT-2's byte-level alphabet: every byte 0..255 gets a printable code point
// (bytes_to_unicode in GPT-2's encoder.py, byte_level.rs in tokenizers), so
// any text is a string over 256 symbols that a BPE vocabulary can cover.
#pragma once

#include <string>

namespace mgc::tok {

// Each byte of `bytes` as its code point, UTF-8 encoded.
std::string byteLevelEncode(const std::string& bytes);

// The inverse for one token: false when a character of `token` is not in
// the alphabet (the decoder then keeps the token's own bytes).
bool byteLevelDecode(const std::string& token, std::string* bytes);

}  // namespace mgc::tok
