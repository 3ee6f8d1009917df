// tokenizer.json post-processors (post_processor.h).
#include "compiler/tokenizer/post_processor.h"

#include <map>

namespace mgc::tok {

namespace {

constexpr int64_t kMaxId = (int64_t(1) << 22) - 1;

// "single": [{"SpecialToken": {"id": "<s>", ...}}, {"Sequence": {"id": "A", ...}}]
// with the ids of each named special token in "special_tokens".
PostProcessor templateProcessing(const Json& j, const std::string& at, int64_t vocabSize) {
  checkKeys(j, {"type", "single", "pair", "special_tokens"}, at);
  std::map<std::string, std::vector<int32_t>> specials;
  const Json& st = required(j, "special_tokens", at);
  if (!st.is_object()) fail(at, "field 'special_tokens' is not an object");
  for (auto it = st.begin(); it != st.end(); ++it) {
    const std::string w = at + ": special_tokens '" + it.key() + "'";
    checkKeys(it.value(), {"id", "ids", "tokens"}, w);
    std::vector<int32_t>& ids = specials[it.key()];
    for (const Json& id : arrayField(it.value(), "ids", w)) {
      if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > kMaxId)
        fail(w, "an id is not an integer in [0, " + std::to_string(kMaxId) + "]");
      // An id the vocabulary lacks would leave encode's output unreadable.
      if (id.get<int64_t>() >= vocabSize)
        fail(w, "id " + std::to_string(id.get<int64_t>()) + " is outside the vocabulary (" +
                    std::to_string(vocabSize) + " tokens)");
      ids.push_back(int32_t(id.get<int64_t>()));
    }
  }
  // Each piece: the ids of a special token, or an empty vector for "A".
  std::vector<std::vector<int32_t>> pieces;
  std::vector<bool> isSequence;
  for (const Json& item : arrayField(j, "single", at)) {
    if (!item.is_object() || item.size() != 1)
      fail(at, "single: an item is not {\"SpecialToken\": ...} or {\"Sequence\": ...}");
    if (item.contains("SpecialToken")) {
      const std::string name = stringField(item["SpecialToken"], "id", at + ": single");
      auto s = specials.find(name);
      if (s == specials.end()) fail(at, "single: special token '" + name + "' is not in special_tokens");
      pieces.push_back(s->second);
      isSequence.push_back(false);
    } else if (item.contains("Sequence")) {
      const std::string name = stringField(item["Sequence"], "id", at + ": single");
      if (name != "A") fail(at, "single: sequence '" + name + "' is not A");
      pieces.emplace_back();
      isSequence.push_back(true);
    } else {
      fail(at, "single: an item is not {\"SpecialToken\": ...} or {\"Sequence\": ...}");
    }
  }
  return [pieces, isSequence](const std::vector<int32_t>& ids) {
    std::vector<int32_t> out;
    for (size_t k = 0; k < pieces.size(); ++k)
      out.insert(out.end(), isSequence[k] ? ids.begin() : pieces[k].begin(),
                 isSequence[k] ? ids.end() : pieces[k].end());
    return out;
  };
}

}  // namespace

PostProcessor makePostProcessor(const Json& j, const std::string& where, int64_t vocabSize) {
  if (j.is_null()) return {};
  const std::string type = typeOf(j, where);
  const std::string at = where + " '" + type + "'";
  if (type == "TemplateProcessing") return templateProcessing(j, at, vocabSize);
  if (type == "ByteLevel") {
    checkKeys(j, {"type", "add_prefix_space", "trim_offsets", "use_regex"}, at);
    return [](const std::vector<int32_t>& ids) { return ids; };
  }
  if (type == "Sequence") {
    checkKeys(j, {"type", "processors"}, at);
    std::vector<PostProcessor> parts;
    for (const Json& p : arrayField(j, "processors", at))
      if (PostProcessor f = makePostProcessor(p, where, vocabSize)) parts.push_back(std::move(f));
    return [parts](const std::vector<int32_t>& ids) {
      std::vector<int32_t> r = ids;
      for (const PostProcessor& f : parts) r = f(r);
      return r;
    };
  }
  unsupportedType(where, type, "TemplateProcessing, ByteLevel, Sequence");
}

}  // namespace mgc::tok
