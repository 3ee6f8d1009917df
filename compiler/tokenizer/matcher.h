// A tokenizer.json pattern, literal ({"String": s}) or regular expression
// ({"Regex": r}, regex.h), as the Split pre-tokenizer and the Replace
// normalizer / decoder use it.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compiler/tokenizer/json_fields.h"
#include "compiler/tokenizer/regex.h"

namespace mgc::tok {

class Matcher {
 public:
  Matcher(const Pattern& p, const std::string& where);
  // Non-overlapping matches, left to right, as byte ranges.
  std::vector<std::pair<size_t, size_t>> findAll(const std::string& text) const;
  // Every match replaced by `content`.
  std::string replaceAll(const std::string& text, const std::string& content) const;

 private:
  std::string literal_;
  std::shared_ptr<Regex> regex_;
};

}  // namespace mgc::tok
