// Typed access to tokenizer.json's components (json_fields.h).
#include "compiler/tokenizer/json_fields.h"

#include "compiler/tokenizer/utf8.h"
#include "ir/types.h"

namespace mgc::tok {

void fail(const std::string& where, const std::string& what) { throw Error(where + ": " + what); }

void unsupportedType(const std::string& where, const std::string& type, const char* supported) {
  throw Error(where + " type '" + type + "' is not supported (supported: " + supported + ")");
}

std::string typeOf(const Json& j, const std::string& where) {
  if (!j.is_object()) fail(where, "not a JSON object");
  return stringField(j, "type", where);
}

void checkKeys(const Json& j, std::initializer_list<const char*> known, const std::string& where) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool ok = false;
    for (const char* k : known) ok = ok || it.key() == k;
    if (!ok) fail(where, "field '" + it.key() + "' is not supported");
  }
}

const Json& required(const Json& j, const char* key, const std::string& where) {
  if (!j.is_object()) fail(where, "not a JSON object");
  auto it = j.find(key);
  if (it == j.end()) fail(where, std::string("field '") + key + "' is missing");
  return *it;
}

std::string stringField(const Json& j, const char* key, const std::string& where) {
  const Json& v = required(j, key, where);
  if (!v.is_string()) fail(where, std::string("field '") + key + "' is not a string");
  std::string s = v.get<std::string>();
  if (!isValidUtf8(s)) fail(where, std::string("field '") + key + "' is not valid UTF-8");
  return s;
}

std::string optString(const Json& j, const char* key, const std::string& where, const std::string& dflt) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return dflt;
  return stringField(j, key, where);
}

bool optBool(const Json& j, const char* key, const std::string& where, bool dflt) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return dflt;
  if (!it->is_boolean()) fail(where, std::string("field '") + key + "' is not true or false");
  return it->get<bool>();
}

int64_t intField(const Json& j, const char* key, const std::string& where, int64_t lo, int64_t hi) {
  const Json& v = required(j, key, where);
  if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > hi ||
      (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(hi)))
    fail(where, std::string("field '") + key + "' is not an integer in [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + "]");
  return v.get<int64_t>();
}

uint32_t charField(const Json& j, const char* key, const std::string& where) {
  const std::string s = stringField(j, key, where);
  size_t len = 0;
  const uint32_t cp = s.empty() ? 0 : codePointAt(s, 0, &len);
  if (s.empty() || len != s.size()) fail(where, std::string("field '") + key + "' is not one character");
  return cp;
}

MetaspaceFields metaspaceFields(const Json& j, const std::string& where) {
  checkKeys(j, {"type", "replacement", "prepend_scheme", "split", "add_prefix_space", "str_rep"}, where);
  MetaspaceFields f;
  appendUtf8(&f.replacement, charField(j, "replacement", where));
  f.scheme = optString(j, "prepend_scheme", where, optBool(j, "add_prefix_space", where, true) ? "always" : "never");
  if (f.scheme != "always" && f.scheme != "first" && f.scheme != "never")
    fail(where, "prepend_scheme '" + f.scheme + "' is not one of always, first, never");
  return f;
}

const Json& arrayField(const Json& j, const char* key, const std::string& where) {
  const Json& v = required(j, key, where);
  if (!v.is_array()) fail(where, std::string("field '") + key + "' is not an array");
  return v;
}

Pattern patternField(const Json& j, const std::string& where) {
  const Json& p = required(j, "pattern", where);
  if (!p.is_object() || p.size() != 1) fail(where, "field 'pattern' is not {\"String\": ...} or {\"Regex\": ...}");
  Pattern r;
  if (p.contains("Regex")) {
    r.regex = true;
    r.text = stringField(p, "Regex", where + ": pattern");
  } else if (p.contains("String")) {
    r.text = stringField(p, "String", where + ": pattern");
  } else {
    fail(where, "field 'pattern' is not {\"String\": ...} or {\"Regex\": ...}");
  }
  return r;
}

}  // namespace mgc::tok
