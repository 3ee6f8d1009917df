// tokenizer.json (tokenizer.h).
#include "compiler/tokenizer/tokenizer.h"

#include <algorithm>

#include "compiler/hf/json_text.h"
#include "compiler/tokenizer/utf8.h"
#include "ir/types.h"

namespace mgc::tok {

Tokenizer::Tokenizer(const std::string& jsonText, const std::string& name) : name_(name) {
  const Json j = hf::parseJsonText(jsonText, name);
  if (!j.is_object()) fail(name, "not a JSON object");
  checkKeys(j,
            {"version", "truncation", "padding", "added_tokens", "normalizer", "pre_tokenizer", "model",
             "post_processor", "decoder"},
            name);
  for (const char* k : {"truncation", "padding"})
    if (j.contains(k) && !j[k].is_null()) fail(name, std::string(k) + " is not supported (must be null)");
  const Json& model = required(j, "model", name);
  const std::string type = typeOf(model, name + ": model");
  if (type != "BPE") unsupportedType(name + ": model", type, "BPE");
  model_ = std::make_unique<BpeModel>(model, name + ": model");
  const Json null;
  auto part = [&](const char* k) -> const Json& { return j.contains(k) ? j[k] : null; };
  if (j.contains("added_tokens")) added_ = AddedVocabulary(j["added_tokens"], name + ": added_tokens");
  checkAddedIds(name + ": added_tokens");
  normalizer_ = makeNormalizer(part("normalizer"), name + ": normalizer");
  preTokenizer_ = makePreTokenizer(part("pre_tokenizer"), name + ": pre_tokenizer");
  postProcessor_ = makePostProcessor(part("post_processor"), name + ": post_processor", vocabSize());
  decoder_ = makeDecoder(part("decoder"), name + ": decoder");
}

// tokenizers does not take an added token's id from the file: loading
// gives it the vocabulary's id of the same content, else the next free id
// after the vocabulary and the added tokens before it (AddedVocabulary::
// add_tokens). A file whose ids differ would decode differently there, so
// it is refused rather than guessed at.
void Tokenizer::checkAddedIds(const std::string& where) const {
  int32_t maxAdded = -1;
  const int32_t modelSize = model_->entries();
  for (size_t i = 0; i < added_.tokens().size(); ++i) {
    const AddedToken& a = added_.tokens()[i];
    int32_t want = model_->tokenToId(a.content);
    for (size_t k = 0; k < i && want < 0; ++k)
      if (added_.tokens()[k].content == a.content) want = added_.tokens()[k].id;
    if (want < 0) want = maxAdded < 0 ? modelSize : maxAdded >= modelSize || modelSize == 0 ? maxAdded + 1 : modelSize;
    if (a.id != want)
      fail(where + "[" + std::to_string(i) + "]",
           "'" + a.content + "' has id " + std::to_string(a.id) + ", but tokenizers gives it " + std::to_string(want) +
               " (added tokens take the vocabulary's id, else the next free one)");
    maxAdded = std::max(maxAdded, a.id);
  }
}

std::vector<int64_t> Tokenizer::encode(const std::string& text, bool addSpecialTokens) const {
  if (!isValidUtf8(text)) throw Error(name_ + ": the text to encode is not valid UTF-8");
  std::vector<int32_t> ids;
  for (const Segment& raw : added_.split(text, false, true)) {
    if (raw.id >= 0) {
      ids.push_back(raw.id);
      continue;
    }
    const std::string norm = normalizer_ ? normalizer_(raw.text) : raw.text;
    for (const Segment& seg : added_.split(norm, true, raw.atStart)) {
      if (seg.id >= 0) {
        ids.push_back(seg.id);
        continue;
      }
      std::vector<Piece> pieces{{seg.text, seg.atStart}};
      if (preTokenizer_) preTokenizer_(pieces);
      for (const Piece& p : pieces) model_->encode(p.text, &ids);
    }
  }
  if (addSpecialTokens && postProcessor_) ids = postProcessor_(ids);
  return std::vector<int64_t>(ids.begin(), ids.end());
}

std::string Tokenizer::decode(const std::vector<int64_t>& ids, bool skipSpecialTokens) const {
  std::vector<std::string> tokens;
  for (int64_t id : ids) {
    const AddedToken* a = id >= 0 && id <= INT32_MAX ? added_.byId(int32_t(id)) : nullptr;
    if (skipSpecialTokens && a && a->special) continue;
    if (const std::string* t = idToToken(id)) tokens.push_back(*t);
  }
  if (!decoder_) {
    std::string r;
    for (size_t i = 0; i < tokens.size(); ++i) r += (i ? " " : "") + tokens[i];
    return r;
  }
  decoder_(tokens);
  std::string r;
  for (const std::string& t : tokens) r += t;
  return r;
}

int64_t Tokenizer::vocabSize() const { return std::max<int64_t>(model_->size(), int64_t(added_.maxId()) + 1); }

const std::string* Tokenizer::idToToken(int64_t id) const {
  if (id < 0 || id > INT32_MAX) return nullptr;
  if (const AddedToken* a = added_.byId(int32_t(id))) return &a->content;
  return model_->idToToken(int32_t(id));
}

}  // namespace mgc::tok
