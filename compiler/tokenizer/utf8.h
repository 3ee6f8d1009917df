// UTF-8 helpers for the tokenizer: code point iteration, encoding, and the
// replacement rules Rust's String::from_utf8_lossy applies (the Hugging Face
// tokenizers decoders are written in Rust; their output is the reference).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace mgc::tok {

// Length in bytes of the valid UTF-8 sequence at s[i], or 0 when the bytes
// there are not one (bad lead byte, bad or missing continuation, overlong,
// surrogate, > U+10FFFF).
size_t validSequenceLength(const std::string& s, size_t i);

// The code point at s[i] (a valid sequence: validSequenceLength > 0) and
// its length.
uint32_t codePointAt(const std::string& s, size_t i, size_t* len);

void appendUtf8(std::string* out, uint32_t cp);

bool isValidUtf8(const std::string& s);

// from_utf8_lossy: every maximal invalid subpart becomes one U+FFFD.
std::string utf8Lossy(const std::string& bytes);

// Unicode general categories the tokenizer's rules ask about (utf8proc).
bool isNumeric(uint32_t cp);       // Rust char::is_numeric: Nd, Nl, No
bool isAlphanumeric(uint32_t cp);  // Rust char::is_alphanumeric: L*, Nd, Nl, No
bool isWhitespace(uint32_t cp);    // Rust char::is_whitespace: White_Space

}  // namespace mgc::tok
