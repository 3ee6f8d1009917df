// Reading tokenizer.json's components: typed field access whose errors name
// the file and the component ("tokenizer.json: decoder: field 'content' is
// missing"), and a check that a component has no key mgc does not know (a
// key mgc ignores could change the tokenization).
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

namespace mgc::tok {

using Json = nlohmann::json;

[[noreturn]] void fail(const std::string& where, const std::string& what);
// "<where> type 'X' is not supported (supported: ...)".
[[noreturn]] void unsupportedType(const std::string& where, const std::string& type, const char* supported);

// The object's "type" string; `where` names the component.
std::string typeOf(const Json& j, const std::string& where);
// Fails naming the first key of `j` not in `known`.
void checkKeys(const Json& j, std::initializer_list<const char*> known, const std::string& where);

const Json& required(const Json& j, const char* key, const std::string& where);
std::string stringField(const Json& j, const char* key, const std::string& where);
std::string optString(const Json& j, const char* key, const std::string& where, const std::string& dflt);
bool optBool(const Json& j, const char* key, const std::string& where, bool dflt);
int64_t intField(const Json& j, const char* key, const std::string& where, int64_t lo, int64_t hi);
// The one character of a string field (Metaspace's replacement, Strip's content).
uint32_t charField(const Json& j, const char* key, const std::string& where);
const Json& arrayField(const Json& j, const char* key, const std::string& where);

// Metaspace's fields, read the same way by the pre-tokenizer and the
// decoder: the replacement character (UTF-8) and the prepend scheme
// ("always", "first" or "never"; add_prefix_space false means "never").
struct MetaspaceFields {
  std::string replacement;
  std::string scheme;
};
MetaspaceFields metaspaceFields(const Json& j, const std::string& where);

// A Split / Replace pattern: {"String": s} or {"Regex": r}.
struct Pattern {
  bool regex = false;
  std::string text;
};
Pattern patternField(const Json& j, const std::string& where);

}  // namespace mgc::tok
