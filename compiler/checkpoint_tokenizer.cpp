// A checkpoint folder's tokenizer for its bundle (checkpoint_tokenizer.h).
#include "compiler/checkpoint_tokenizer.h"

#include <sys/stat.h>

#include <memory>

#include "compiler/hf/config.h"
#include "compiler/hf/json_text.h"
#include "compiler/tokenizer/sentencepiece_model.h"
#include "compiler/tokenizer/tokenizer.h"
#include "formats/file_read.h"
#include "ir/types.h"

namespace mgc {

namespace {

bool isFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// eos_token_id: an id, a list of ids, null or absent (→ false).
bool readEos(const std::string& path, int64_t vocab, std::vector<int64_t>* ids) {
  if (!isFile(path)) return false;
  const nlohmann::json j = hf::parseJsonText(hf::readTextFile(path), path);
  if (!j.is_object()) throw Error(path + ": not a JSON object");
  auto it = j.find("eos_token_id");
  if (it == j.end() || it->is_null()) return false;
  const nlohmann::json list = it->is_array() ? *it : nlohmann::json::array({*it});
  for (const nlohmann::json& v : list) {
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= vocab)
      throw Error(path + ": eos_token_id is not a token id in [0, " + std::to_string(vocab) + ") or a list of them");
    ids->push_back(v.get<int64_t>());
  }
  return !ids->empty();
}

}  // namespace

CheckpointTokenizer readCheckpointTokenizer(const std::string& dir) {
  CheckpointTokenizer r;
  std::string path = dir + "/tokenizer.json";
  std::unique_ptr<tok::TextTokenizer> t;
  if (isFile(path)) {
    r.json = hf::readTextFile(path);
    t = std::make_unique<tok::Tokenizer>(r.json, path);
  } else if (isFile(dir + "/tokenizer.model")) {
    path = dir + "/tokenizer.model";
    std::string error;
    if (!fileio::readAll(path, &r.model, &error, tok::kMaxSentencePieceModelBytes)) throw Error(error);
    t = std::make_unique<tok::SentencePieceModel>(r.model, path);
  } else {
    return r;
  }
  const hf::ModelConfig config = hf::readConfig(dir);
  if (t->vocabSize() > config.vocab)
    throw Error(path + ": token ids reach " + std::to_string(t->vocabSize() - 1) +
                ", but config.json's vocab_size is " + std::to_string(config.vocab) +
                " (the model has no embedding for them)");
  if (!readEos(dir + "/generation_config.json", config.vocab, &r.eosTokenIds))
    readEos(dir + "/config.json", config.vocab, &r.eosTokenIds);
  return r;
}

}  // namespace mgc
