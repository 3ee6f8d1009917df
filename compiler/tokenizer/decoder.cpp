// tokenizer.json decoders (decoder.h).
#include "compiler/tokenizer/decoder.h"

#include <memory>

#include "compiler/tokenizer/byte_level.h"
#include "compiler/tokenizer/matcher.h"
#include "compiler/tokenizer/utf8.h"

namespace mgc::tok {

namespace {

const char* kReplacementChar = "\xEF\xBF\xBD";

// All tokens → bytes (a token with a character outside the alphabet keeps
// its own bytes, e.g. an added token), then one lossy UTF-8 string.
void byteLevelDecoder(std::vector<std::string>& tokens) {
  std::string bytes;
  for (const std::string& t : tokens)
    if (!byteLevelDecode(t, &bytes)) bytes += t;
  tokens.assign(1, utf8Lossy(bytes));
}

// Runs of <0xXX> tokens → their bytes as UTF-8, or one U+FFFD per byte
// when the run is not valid UTF-8.
void byteFallbackDecoder(std::vector<std::string>& tokens) {
  std::vector<std::string> out;
  std::string run;
  size_t runTokens = 0;
  auto flush = [&] {
    if (runTokens == 0) return;
    if (isValidUtf8(run))
      out.push_back(run);
    else
      for (size_t k = 0; k < runTokens; ++k) out.push_back(kReplacementChar);
    run.clear();
    runTokens = 0;
  };
  for (const std::string& t : tokens) {
    auto hexValue = [](char c) {
      return c >= '0' && c <= '9'   ? c - '0'
             : c >= 'A' && c <= 'F' ? c - 'A' + 10
             : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                    : -1;
    };
    if (t.size() == 6 && t.compare(0, 3, "<0x") == 0 && t[5] == '>' && hexValue(t[3]) >= 0 && hexValue(t[4]) >= 0) {
      run.push_back(char(hexValue(t[3]) * 16 + hexValue(t[4])));
      ++runTokens;
    } else {
      flush();
      out.push_back(t);
    }
  }
  flush();
  tokens = std::move(out);
}

Decoder strip(const Json& j, const std::string& at) {
  checkKeys(j, {"type", "content", "start", "stop"}, at);
  const uint32_t content = charField(j, "content", at);
  const auto start = size_t(intField(j, "start", at, 0, 1 << 20)), stop = size_t(intField(j, "stop", at, 0, 1 << 20));
  return [content, start, stop](std::vector<std::string>& tokens) {
    for (std::string& t : tokens) {
      std::vector<std::pair<uint32_t, size_t>> chars;  // code point, byte offset
      for (size_t i = 0, len; i < t.size(); i += len) chars.emplace_back(codePointAt(t, i, &len), i);
      size_t first = 0, last = chars.size();
      while (first < start && first < chars.size() && chars[first].first == content) ++first;
      for (size_t k = 0; k < stop && last > first && chars[last - 1].first == content; ++k) --last;
      const size_t b = first < chars.size() ? chars[first].second : t.size();
      const size_t e = last < chars.size() ? chars[last].second : t.size();
      t = t.substr(b, e - b);
    }
  };
}

Decoder metaspace(const Json& j, const std::string& at) {
  const MetaspaceFields f = metaspaceFields(j, at);
  const std::string rep = f.replacement, scheme = f.scheme;
  const bool dropFirst = scheme != "never";
  // As tokenizers: in the first token every replacement character is
  // dropped (not only a leading one); elsewhere each becomes a space.
  return [rep, dropFirst](std::vector<std::string>& tokens) {
    const Matcher m(Pattern{false, rep}, "Metaspace");
    for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = m.replaceAll(tokens[i], i == 0 && dropFirst ? "" : " ");
  };
}

}  // namespace

Decoder makeDecoder(const Json& j, const std::string& where) {
  if (j.is_null()) return {};
  const std::string type = typeOf(j, where);
  const std::string at = where + " '" + type + "'";
  if (type == "ByteLevel") {
    checkKeys(j, {"type", "add_prefix_space", "trim_offsets", "use_regex"}, at);
    return byteLevelDecoder;
  }
  if (type == "ByteFallback") {
    checkKeys(j, {"type"}, at);
    return byteFallbackDecoder;
  }
  if (type == "Fuse") {
    checkKeys(j, {"type"}, at);
    return [](std::vector<std::string>& tokens) {
      std::string all;
      for (const std::string& t : tokens) all += t;
      tokens.assign(1, all);
    };
  }
  if (type == "Replace") {
    checkKeys(j, {"type", "pattern", "content"}, at);
    auto m = std::make_shared<Matcher>(patternField(j, at), at);
    std::string content = stringField(j, "content", at);
    return [m, content](std::vector<std::string>& tokens) {
      for (std::string& t : tokens) t = m->replaceAll(t, content);
    };
  }
  if (type == "Strip") return strip(j, at);
  if (type == "Metaspace") return metaspace(j, at);
  if (type == "Sequence") {
    checkKeys(j, {"type", "decoders"}, at);
    std::vector<Decoder> parts;
    for (const Json& d : arrayField(j, "decoders", at))
      if (Decoder f = makeDecoder(d, where)) parts.push_back(std::move(f));
    return [parts](std::vector<std::string>& tokens) {
      for (const Decoder& f : parts) f(tokens);
    };
  }
  unsupportedType(where, type, "ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace, Sequence");
}

}  // namespace mgc::tok
