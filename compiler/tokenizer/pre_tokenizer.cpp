// tokenizer.json pre-tokenizers (pre_tokenizer.h).
#include "compiler/tokenizer/pre_tokenizer.h"

#include <algorithm>
#include <memory>

#include "compiler/tokenizer/byte_level.h"
#include "compiler/tokenizer/matcher.h"
#include "compiler/tokenizer/utf8.h"

namespace mgc::tok {

namespace {

enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

Behavior parseBehavior(const std::string& s, const std::string& where) {
  if (s == "Removed") return Behavior::Removed;
  if (s == "Isolated") return Behavior::Isolated;
  if (s == "MergedWithPrevious") return Behavior::MergedWithPrevious;
  if (s == "MergedWithNext") return Behavior::MergedWithNext;
  if (s == "Contiguous") return Behavior::Contiguous;
  fail(where, "behavior '" + s + "' is not one of Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous");
}

struct Span {
  size_t begin, end;
  bool match;
};

// The text cut at the matches: alternating non-match and match spans that
// cover it (tokenizers' Pattern::find_matches).
std::vector<Span> spans(const std::string& text, const std::vector<std::pair<size_t, size_t>>& matches, bool invert) {
  std::vector<Span> out;
  size_t prev = 0;
  for (auto [b, e] : matches) {
    if (b != prev) out.push_back({prev, b, invert});
    out.push_back({b, e, !invert});
    prev = e;
  }
  if (prev != text.size() || out.empty()) out.push_back({prev, text.size(), invert});
  return out;
}

// tokenizers' NormalizedString::split: spans → kept pieces.
void splitPiece(const Piece& p, const std::vector<Span>& sp, Behavior b, std::vector<Piece>* out) {
  std::vector<Span> kept;
  bool prevMatch = false;
  switch (b) {
    case Behavior::Removed:
      for (const Span& s : sp)
        if (!s.match) kept.push_back(s);
      break;
    case Behavior::Isolated:
      kept = sp;
      break;
    case Behavior::MergedWithPrevious:
      for (const Span& s : sp) {
        if (s.match && !prevMatch && !kept.empty())
          kept.back().end = s.end;
        else
          kept.push_back(s);
        prevMatch = s.match;
      }
      break;
    case Behavior::MergedWithNext:
      for (auto it = sp.rbegin(); it != sp.rend(); ++it) {
        if (it->match && !prevMatch && !kept.empty())
          kept.back().begin = it->begin;
        else
          kept.push_back(*it);
        prevMatch = it->match;
      }
      std::reverse(kept.begin(), kept.end());
      break;
    case Behavior::Contiguous:
      for (const Span& s : sp) {
        if (s.match == prevMatch && !kept.empty())
          kept.back().end = s.end;
        else
          kept.push_back(s);
        prevMatch = s.match;
      }
      break;
  }
  for (const Span& s : kept)
    if (s.end > s.begin) out->push_back({p.text.substr(s.begin, s.end - s.begin), p.atStart && s.begin == 0});
}

using Find = std::function<std::vector<std::pair<size_t, size_t>>(const std::string&)>;

PreTokenizer splitter(Find find, Behavior b, bool invert) {
  return [find, b, invert](std::vector<Piece>& pieces) {
    std::vector<Piece> out;
    for (const Piece& p : pieces) splitPiece(p, spans(p.text, find(p.text), invert), b, &out);
    pieces = std::move(out);
  };
}

// Each character for which `pred` holds is a match of its own.
Find charFinder(std::function<bool(uint32_t)> pred) {
  return [pred](const std::string& s) {
    std::vector<std::pair<size_t, size_t>> out;
    for (size_t i = 0, len; i < s.size(); i += len)
      if (pred(codePointAt(s, i, &len))) out.emplace_back(i, i + len);
    return out;
  };
}

const char* kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

PreTokenizer byteLevel(const Json& j, const std::string& at) {
  checkKeys(j, {"type", "add_prefix_space", "trim_offsets", "use_regex"}, at);
  const bool prefix = optBool(j, "add_prefix_space", at, true);
  PreTokenizer split;
  if (optBool(j, "use_regex", at, true)) {
    auto re = std::make_shared<Regex>(kGpt2Pattern, at);
    split = splitter([re](const std::string& s) { return re->findAll(s); }, Behavior::Isolated, false);
  }
  return [prefix, split](std::vector<Piece>& pieces) {
    if (prefix)
      for (Piece& p : pieces)
        if (!p.text.empty() && p.text[0] != ' ') p.text = " " + p.text;
    if (split) split(pieces);
    for (Piece& p : pieces) p.text = byteLevelEncode(p.text);
  };
}

PreTokenizer metaspace(const Json& j, const std::string& at) {
  const MetaspaceFields f = metaspaceFields(j, at);
  const std::string rep = f.replacement, scheme = f.scheme;
  PreTokenizer split;
  if (optBool(j, "split", at, true)) {
    auto m = std::make_shared<Matcher>(Pattern{false, rep}, at);
    split = splitter([m](const std::string& s) { return m->findAll(s); }, Behavior::MergedWithNext, false);
  }
  return [rep, scheme, split](std::vector<Piece>& pieces) {
    const Matcher space(Pattern{false, " "}, "Metaspace");
    for (Piece& p : pieces) {
      p.text = space.replaceAll(p.text, rep);
      const bool prepend = scheme == "always" || (scheme == "first" && p.atStart);
      if (prepend && p.text.compare(0, rep.size(), rep) != 0) p.text = rep + p.text;
    }
    if (split) split(pieces);
  };
}

}  // namespace

PreTokenizer makePreTokenizer(const Json& j, const std::string& where) {
  if (j.is_null()) return {};
  const std::string type = typeOf(j, where);
  const std::string at = where + " '" + type + "'";
  if (type == "Split") {
    checkKeys(j, {"type", "pattern", "behavior", "invert"}, at);
    auto m = std::make_shared<Matcher>(patternField(j, at), at);
    return splitter([m](const std::string& s) { return m->findAll(s); },
                    parseBehavior(stringField(j, "behavior", at), at), optBool(j, "invert", at, false));
  }
  if (type == "ByteLevel") return byteLevel(j, at);
  if (type == "Metaspace") return metaspace(j, at);
  if (type == "Digits") {
    checkKeys(j, {"type", "individual_digits"}, at);
    return splitter(charFinder(isNumeric),
                    optBool(j, "individual_digits", at, false) ? Behavior::Isolated : Behavior::Contiguous, false);
  }
  if (type == "Sequence") {
    checkKeys(j, {"type", "pretokenizers"}, at);
    std::vector<PreTokenizer> parts;
    for (const Json& p : arrayField(j, "pretokenizers", at))
      if (PreTokenizer f = makePreTokenizer(p, where)) parts.push_back(std::move(f));
    return [parts](std::vector<Piece>& pieces) {
      for (const PreTokenizer& f : parts) f(pieces);
    };
  }
  unsupportedType(where, type, "Split, ByteLevel, Metaspace, Digits, Sequence");
}

}  // namespace mgc::tok
