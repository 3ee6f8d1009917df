// Literal or regex patterns (matcher.h).
#include "compiler/tokenizer/matcher.h"

namespace mgc::tok {

Matcher::Matcher(const Pattern& p, const std::string& where) {
  if (p.regex) {
    regex_ = std::make_shared<Regex>(p.text, where);
  } else {
    if (p.text.empty()) fail(where, "the pattern string is empty");
    literal_ = p.text;
  }
}

std::vector<std::pair<size_t, size_t>> Matcher::findAll(const std::string& text) const {
  if (regex_) return regex_->findAll(text);
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t at = text.find(literal_); at != std::string::npos; at = text.find(literal_, at + literal_.size()))
    out.emplace_back(at, at + literal_.size());
  return out;
}

std::string Matcher::replaceAll(const std::string& text, const std::string& content) const {
  std::string out;
  size_t prev = 0;
  for (auto [b, e] : findAll(text)) {
    out.append(text, prev, b - prev);
    out += content;
    prev = e;
  }
  out.append(text, prev, std::string::npos);
  return out;
}

}  // namespace mgc::tok
