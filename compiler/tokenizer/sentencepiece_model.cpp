// A SentencePiece tokenizer.model (sentencepiece_model.h).
#include "compiler/tokenizer/sentencepiece_model.h"

#include "compiler/tokenizer/sentencepiece_check.h"
#include "compiler/tokenizer/utf8.h"
#include "ir/types.h"

namespace mgc::tok {

namespace {

struct Message {
  char text[512] = {};
};

// The sinks run inside the library's call: nothing may unwind through its
// frames (another namespace's C++ runtime), so a failure is only noted.
template <typename T>
struct Sink {
  T* out;
  bool failed = false;
};

void appendIds(void* ctx, const int32_t* ids, size_t count) {
  auto* s = static_cast<Sink<std::vector<int64_t>>*>(ctx);
  try {
    s->out->insert(s->out->end(), ids, ids + count);
  } catch (...) {
    s->failed = true;
  }
}

void appendText(void* ctx, const char* text, size_t size) {
  auto* s = static_cast<Sink<std::string>*>(ctx);
  try {
    s->out->append(text, size);
  } catch (...) {
    s->failed = true;
  }
}

// sentencepiece's status text, readable: its parse failure names only the
// failing source line ("Internal: ./src/sentencepiece_processor.cc(232)
// [model_proto->ParseFromArray(...)] ").
std::string loadReason(std::string status) {
  if (status.find("ParseFromArray") != std::string::npos) return "the protobuf does not parse";
  while (!status.empty() && status.back() == ' ') status.pop_back();
  return status;
}

}  // namespace

SentencePieceModel::SentencePieceModel(const std::string& bytes, const std::string& name)
    : name_(name), api_(sentencePieceApi(name)), model_(nullptr, Free{&api_}) {
  if (bytes.empty()) throw Error(name + ": not a SentencePiece model (the file is empty)");
  checkSentencePieceModel(bytes, name);
  Message m;
  model_.reset(api_.load(bytes.data(), bytes.size(), m.text, sizeof m.text));
  if (!model_) throw Error(name + ": not a SentencePiece model sentencepiece can load (" + loadReason(m.text) + ")");
  const int32_t n = api_.pieceCount(model_.get());
  if (n <= 0) throw Error(name + ": the SentencePiece model has no pieces");
  pieces_.reserve(size_t(n));
  kinds_.reserve(size_t(n));
  for (int32_t id = 0; id < n; ++id) {
    size_t size = 0;
    const char* p = api_.piece(model_.get(), id, &size);
    pieces_.emplace_back(p, size);
    kinds_.push_back(api_.pieceKind(model_.get(), id));
  }
  const int32_t bos = api_.bosId(model_.get());
  bos_ = bos >= 0 && bos < n ? bos : -1;
}

std::vector<int64_t> SentencePieceModel::encode(const std::string& text, bool addSpecialTokens) const {
  if (!isValidUtf8(text)) throw Error(name_ + ": the text to encode is not valid UTF-8");
  std::vector<int64_t> ids;
  if (addSpecialTokens && bos_ >= 0) ids.push_back(bos_);
  Message m;
  Sink<std::vector<int64_t>> sink{&ids};
  if (api_.encode(model_.get(), text.data(), text.size(), appendIds, &sink, m.text, sizeof m.text) != 0)
    throw Error(name_ + ": sentencepiece cannot encode the text (" + m.text + ")");
  if (sink.failed) throw Error(name_ + ": out of memory while encoding");
  for (int64_t id : ids)
    if (id < 0 || id >= vocabSize())
      throw Error(name_ + ": sentencepiece gave id " + std::to_string(id) + ", outside the model");
  return ids;
}

std::string SentencePieceModel::decodeRun(const std::vector<int32_t>& ids) const {
  std::string text;
  if (ids.empty()) return text;
  Message m;
  Sink<std::string> sink{&text};
  if (api_.decode(model_.get(), ids.data(), ids.size(), appendText, &sink, m.text, sizeof m.text) != 0)
    throw Error(name_ + ": sentencepiece cannot decode the ids (" + m.text + ")");
  if (sink.failed) throw Error(name_ + ": out of memory while decoding");
  return text;
}

std::string SentencePieceModel::decode(const std::vector<int64_t>& ids, bool skipSpecialTokens) const {
  std::string text;
  std::vector<int32_t> run;
  for (int64_t id : ids) {
    if (id < 0 || id >= vocabSize()) continue;
    const uint32_t kind = kinds_[size_t(id)];
    if (skipSpecialTokens && (kind & (MGC_SPM_CONTROL | MGC_SPM_UNKNOWN))) continue;
    if (!skipSpecialTokens && (kind & MGC_SPM_CONTROL)) {
      text += decodeRun(run) + pieces_[size_t(id)];
      run.clear();
      continue;
    }
    run.push_back(int32_t(id));
  }
  // A hostile model's pieces need not be UTF-8; the text always is.
  return utf8Lossy(text + decodeRun(run));
}

const std::string* SentencePieceModel::idToToken(int64_t id) const {
  return id >= 0 && id < vocabSize() ? &pieces_[size_t(id)] : nullptr;
}

}  // namespace mgc::tok
