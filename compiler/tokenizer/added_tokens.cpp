// Added tokens (added_tokens.h).
#include "compiler/tokenizer/added_tokens.h"

#include "compiler/tokenizer/utf8.h"

namespace mgc::tok {

namespace {

constexpr int64_t kMaxId = (int64_t(1) << 22) - 1;

// The character before `end` / at `begin` is a word character.
bool endsWithWord(const std::string& s, size_t end) {
  if (end == 0) return false;
  size_t b = end - 1;
  while (b > 0 && (uint8_t(s[b]) & 0xC0) == 0x80) --b;
  size_t len;
  const uint32_t cp = codePointAt(s, b, &len);
  return cp == '_' || isAlphanumeric(cp);
}

bool startsWithWord(const std::string& s, size_t begin) {
  if (begin >= s.size()) return false;
  size_t len;
  const uint32_t cp = codePointAt(s, begin, &len);
  return cp == '_' || isAlphanumeric(cp);
}

}  // namespace

AddedVocabulary::AddedVocabulary(const Json& tokens, const std::string& where) {
  if (!tokens.is_array()) fail(where, "not an array");
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Json& t = tokens[i];
    const std::string at = where + "[" + std::to_string(i) + "]";
    checkKeys(t, {"id", "content", "single_word", "lstrip", "rstrip", "normalized", "special"}, at);
    AddedToken a;
    a.id = int32_t(intField(t, "id", at, 0, kMaxId));
    a.content = stringField(t, "content", at);
    if (a.content.empty()) fail(at, "content is empty");
    a.special = optBool(t, "special", at, false);
    a.lstrip = optBool(t, "lstrip", at, false);
    a.rstrip = optBool(t, "rstrip", at, false);
    a.singleWord = optBool(t, "single_word", at, false);
    a.normalized = optBool(t, "normalized", at, !a.special);
    if (byId_.count(a.id))
      fail(at, "id " + std::to_string(a.id) + " is already the added token '" + tokens_[byId_[a.id]].content + "'");
    byId_[a.id] = tokens_.size();
    byFirstByte_[uint8_t(a.content[0])].push_back(int(tokens_.size()));
    if (a.id > maxId_) maxId_ = a.id;
    tokens_.push_back(std::move(a));
  }
}

const AddedToken* AddedVocabulary::byId(int32_t id) const {
  auto it = byId_.find(id);
  return it == byId_.end() ? nullptr : &tokens_[it->second];
}

std::vector<Segment> AddedVocabulary::split(const std::string& text, bool normalized, bool atStart) const {
  std::vector<Segment> out;
  auto plain = [&](size_t b, size_t e) {
    if (e > b) out.push_back({text.substr(b, e - b), -1, atStart && b == 0});
  };
  size_t done = 0;  // text before this is in `out`
  for (size_t pos = 0; pos < text.size();) {
    // Leftmost-longest: the longest token starting at the first position
    // where any starts.
    const AddedToken* best = nullptr;
    for (int k : byFirstByte_[uint8_t(text[pos])]) {
      const AddedToken& t = tokens_[size_t(k)];
      if (t.normalized == normalized && text.compare(pos, t.content.size(), t.content) == 0 &&
          (!best || t.content.size() > best->content.size()))
        best = &t;
    }
    if (!best) {
      ++pos;
      continue;
    }
    size_t begin = pos, end = pos + best->content.size();
    pos = end;
    if (best->singleWord && (endsWithWord(text, begin) || startsWithWord(text, end))) continue;
    if (best->lstrip) {
      size_t b = begin;
      while (b > done) {
        size_t c = b - 1;
        while (c > done && (uint8_t(text[c]) & 0xC0) == 0x80) --c;
        size_t len;
        if (!isWhitespace(codePointAt(text, c, &len))) break;
        b = c;
      }
      begin = b;
    }
    if (best->rstrip) {
      size_t len;
      while (end < text.size() && isWhitespace(codePointAt(text, end, &len))) end += len;
      pos = end;
    }
    plain(done, begin);
    out.push_back({text.substr(begin, end - begin), best->id, atStart && begin == 0});
    done = end;
  }
  plain(done, text.size());
  return out;
}

}  // namespace mgc::tok
