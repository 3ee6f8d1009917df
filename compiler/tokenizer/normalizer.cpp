// tokenizer.json normalizers (normalizer.h).
#include "compiler/tokenizer/normalizer.h"

#include <utf8proc.h>

#include <cstdlib>
#include <memory>
#include <vector>

#include "compiler/tokenizer/matcher.h"
#include "ir/types.h"

namespace mgc::tok {

namespace {

std::string nfc(const std::string& s) {
  utf8proc_uint8_t* out = nullptr;
  const utf8proc_ssize_t n =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()), utf8proc_ssize_t(s.size()), &out,
                   utf8proc_option_t(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  if (n < 0) throw Error(std::string("tokenizer: NFC normalization failed: ") + utf8proc_errmsg(n));
  std::string r(reinterpret_cast<const char*>(out), size_t(n));
  std::free(out);
  return r;
}

}  // namespace

Normalizer makeNormalizer(const Json& j, const std::string& where) {
  if (j.is_null()) return {};
  const std::string type = typeOf(j, where);
  const std::string at = where + " '" + type + "'";
  if (type == "NFC") {
    checkKeys(j, {"type"}, at);
    return nfc;
  }
  if (type == "Prepend") {
    checkKeys(j, {"type", "prepend"}, at);
    std::string prefix = stringField(j, "prepend", at);
    // As tokenizers: nothing is prepended to an empty string.
    return [prefix](const std::string& s) { return s.empty() ? s : prefix + s; };
  }
  if (type == "Replace") {
    checkKeys(j, {"type", "pattern", "content"}, at);
    auto m = std::make_shared<Matcher>(patternField(j, at), at);
    std::string content = stringField(j, "content", at);
    return [m, content](const std::string& s) { return m->replaceAll(s, content); };
  }
  if (type == "Sequence") {
    checkKeys(j, {"type", "normalizers"}, at);
    std::vector<Normalizer> parts;
    for (const Json& n : arrayField(j, "normalizers", at))
      if (Normalizer f = makeNormalizer(n, where)) parts.push_back(std::move(f));
    return [parts](const std::string& s) {
      std::string r = s;
      for (const Normalizer& f : parts) r = f(r);
      return r;
    };
  }
  unsupportedType(where, type, "NFC, Prepend, Replace, Sequence");
}

}  // namespace mgc::tok
