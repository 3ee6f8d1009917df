// The regular expressions of tokenizer.json (Split patterns, Replace
// patterns) run by PCRE2 in UTF + UCP mode: the files are written for
// Oniguruma (the Rust tokenizers' engine), and the constructs real
// vocabularies use (\p{L}, \p{N}, \s, (?i:...), (?!\S)) mean the same in
// both. Matching has a step limit, so a hostile pattern fails cleanly.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mgc::tok {

class Regex {
 public:
  // Throws mgc::Error "<where>: regex '<pattern>' does not compile: ...".
  Regex(const std::string& pattern, const std::string& where);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // Every match in `text` (valid UTF-8), left to right, as byte ranges
  // [begin, end); after an empty match the search moves on one character,
  // as Oniguruma's find_iter does.
  std::vector<std::pair<size_t, size_t>> findAll(const std::string& text) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mgc::tok
