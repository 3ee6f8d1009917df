// Tokenizers from bundles or tokenizer.json files (bundle_tokenizer.h).
#include "compiler/cli/bundle_tokenizer.h"

#include <cstring>
#include <fstream>

#include "compiler/hf/json_text.h"
#include "compiler/tokenizer/sentencepiece_model.h"
#include "compiler/tokenizer/tokenizer.h"
#include "formats/bundle_layout.h"
#include "formats/file_read.h"
#include "formats/mgb_generated.h"
#include "ir/types.h"

namespace mgc {

namespace {

bool readAt(std::ifstream& f, uint64_t offset, void* out, uint64_t size) {
  f.seekg(std::streamoff(offset));
  f.read(static_cast<char*>(out), std::streamsize(size));
  return bool(f) && uint64_t(f.gcount()) == size;
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

BundleTokenizer loadTokenizer(const std::string& path) {
  if (std::string problem = fileio::notAFile(path); !problem.empty()) throw Error(problem);
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw Error(path + ": cannot open file");
  const auto fileSize = uint64_t(f.tellg());
  char magic[4] = {};
  if (fileSize < sizeof magic || !readAt(f, 0, magic, sizeof magic) || std::memcmp(magic, mgb::kMagic, 4) != 0) {
    BundleTokenizer r;
    if (endsWith(path, ".model")) {
      std::string bytes, error;
      if (!fileio::readAll(path, &bytes, &error, tok::kMaxSentencePieceModelBytes)) throw Error(error);
      r.tokenizer = std::make_unique<tok::SentencePieceModel>(bytes, path);
    } else {
      r.tokenizer = std::make_unique<tok::Tokenizer>(hf::readTextFile(path), path);
    }
    return r;
  }
  mgb::Header h;
  if (fileSize < mgb::kHeaderSize || !readAt(f, 0, &h, sizeof h)) throw Error(path + ": not a .mgb bundle (too small)");
  if (h.version != mgb::kFormatVersion)
    throw Error(path + ": bundle format version " + std::to_string(h.version) + " is not supported");
  if (h.manifest_offset > fileSize || h.manifest_size > fileSize - h.manifest_offset)
    throw Error(path + ": manifest outside the file");
  std::vector<uint8_t> manifest(size_t(h.manifest_size));
  if (!readAt(f, h.manifest_offset, manifest.data(), manifest.size())) throw Error(path + ": cannot read the manifest");
  flatbuffers::Verifier v(manifest.data(), manifest.size());
  if (!mgb::VerifyBundleBuffer(v)) throw Error(path + ": manifest failed verification");
  const mgb::Bundle* b = mgb::GetBundle(manifest.data());
  BundleTokenizer r;
  if (b->tokenizer()) {
    r.tokenizer = std::make_unique<tok::Tokenizer>(b->tokenizer()->str(), path + ": tokenizer.json");
  } else if (const flatbuffers::Vector<uint8_t>* m = b->tokenizer_model()) {
    const std::string bytes(reinterpret_cast<const char*>(m->data()), m->size());
    r.tokenizer = std::make_unique<tok::SentencePieceModel>(bytes, path + ": tokenizer.model");
  }
  if (b->eos_token_ids()) r.eosTokenIds.assign(b->eos_token_ids()->begin(), b->eos_token_ids()->end());
  return r;
}

}  // namespace mgc
