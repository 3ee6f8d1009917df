// The BPE model (bpe.h).
#include "compiler/tokenizer/bpe.h"

#include <queue>

#include "compiler/tokenizer/utf8.h"

namespace mgc::tok {

namespace {

// Larger than any real vocabulary (Gemma's 262k); keeps a hostile id from
// sizing the id table.
constexpr int64_t kMaxVocab = int64_t(1) << 22;

}  // namespace

BpeModel::BpeModel(const Json& j, const std::string& where) {
  checkKeys(j,
            {"type", "vocab", "merges", "dropout", "unk_token", "continuing_subword_prefix", "end_of_word_suffix",
             "fuse_unk", "byte_fallback", "ignore_merges"},
            where);
  if (j.contains("dropout") && !j["dropout"].is_null())
    fail(where, "field 'dropout' is not null (BPE dropout is random; mgc encodes deterministically)");
  prefix_ = optString(j, "continuing_subword_prefix", where, "");
  suffix_ = optString(j, "end_of_word_suffix", where, "");
  fuseUnk_ = optBool(j, "fuse_unk", where, false);
  byteFallback_ = optBool(j, "byte_fallback", where, false);
  ignoreMerges_ = optBool(j, "ignore_merges", where, false);

  const Json& vocab = required(j, "vocab", where);
  if (!vocab.is_object()) fail(where, "field 'vocab' is not an object of token: id");
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    if (!it.value().is_number_integer() || it.value().get<int64_t>() < 0 || it.value().get<int64_t>() >= kMaxVocab)
      fail(where, "vocab: the id of '" + it.key() + "' is not an integer in [0, " + std::to_string(kMaxVocab) + ")");
    if (!isValidUtf8(it.key())) fail(where, "vocab: a token is not valid UTF-8");
    const auto id = int32_t(it.value().get<int64_t>());
    if (size_t(id) >= idToToken_.size()) {
      idToToken_.resize(size_t(id) + 1);
      hasId_.resize(size_t(id) + 1);
    }
    if (hasId_[size_t(id)])
      fail(where, "vocab: id " + std::to_string(id) + " is given to both '" + idToToken_[size_t(id)] + "' and '" +
                      it.key() + "'");
    hasId_[size_t(id)] = true;
    idToToken_[size_t(id)] = it.key();
    vocab_.emplace(it.key(), id);
  }

  const Json& merges = arrayField(j, "merges", where);
  merges_.reserve(merges.size());
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const Json& m = merges[rank];
    std::string a, b;
    const std::string at = where + ": merges[" + std::to_string(rank) + "]";
    if (m.is_string()) {
      const std::string s = m.get<std::string>();
      const size_t space = s.find(' ');
      if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos)
        fail(at, "'" + s + "' is not two tokens separated by one space");
      a = s.substr(0, space);
      b = s.substr(space + 1);
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      a = m[0].get<std::string>();
      b = m[1].get<std::string>();
    } else {
      fail(at, "not \"a b\" or [\"a\", \"b\"]");
    }
    const int32_t ia = tokenToId(a), ib = tokenToId(b);
    if (ia < 0 || ib < 0) fail(at, "token '" + (ia < 0 ? a : b) + "' is not in the vocabulary");
    const std::string merged = a + b.substr(b.compare(0, prefix_.size(), prefix_) == 0 ? prefix_.size() : 0);
    const int32_t id = tokenToId(merged);
    if (id < 0) fail(at, "the merged token '" + merged + "' is not in the vocabulary");
    merges_.emplace(pairKey(ia, ib), Merge{int32_t(rank), id});  // the first (lowest) rank of a pair wins
  }

  const std::string unk = optString(j, "unk_token", where, "");
  if (!unk.empty()) {
    unk_ = tokenToId(unk);
    if (unk_ < 0) fail(where, "unk_token '" + unk + "' is not in the vocabulary");
  }
}

int32_t BpeModel::tokenToId(const std::string& token) const {
  auto it = vocab_.find(token);
  return it == vocab_.end() ? -1 : it->second;
}

const std::string* BpeModel::idToToken(int32_t id) const {
  if (id < 0 || size_t(id) >= idToToken_.size() || !hasId_[size_t(id)]) return nullptr;
  return &idToToken_[size_t(id)];
}

void BpeModel::encode(const std::string& piece, std::vector<int32_t>* ids) const {
  if (piece.empty()) return;
  if (ignoreMerges_) {
    if (int32_t id = tokenToId(piece); id >= 0) return ids->push_back(id);
  }
  // One symbol per character (tokenizers' BPE::merge_word), unknown ones as
  // their <0xXX> bytes or the unk token.
  std::vector<int32_t> symbols;
  int32_t pendingUnk = -1;
  for (size_t i = 0, len; i < piece.size(); i += len) {
    codePointAt(piece, i, &len);
    std::string s = piece.substr(i, len);
    if (i > 0) s = prefix_ + s;
    if (i + len == piece.size()) s += suffix_;
    if (int32_t id = tokenToId(s); id >= 0) {
      if (pendingUnk >= 0) symbols.push_back(pendingUnk), pendingUnk = -1;
      symbols.push_back(id);
      continue;
    }
    if (byteFallback_) {
      std::vector<int32_t> bytes;
      for (unsigned char c : s) {
        static const char* hex = "0123456789ABCDEF";
        const int32_t id = tokenToId(std::string("<0x") + hex[c >> 4] + hex[c & 15] + ">");
        if (id < 0) break;
        bytes.push_back(id);
      }
      if (bytes.size() == s.size()) {
        symbols.insert(symbols.end(), bytes.begin(), bytes.end());
        continue;
      }
    }
    if (unk_ >= 0) {
      if (pendingUnk >= 0 && !fuseUnk_) symbols.push_back(pendingUnk);
      pendingUnk = unk_;
    }
  }
  if (pendingUnk >= 0) symbols.push_back(pendingUnk);
  mergeAll(&symbols);
  ids->insert(ids->end(), symbols.begin(), symbols.end());
}

// tokenizers' Word::merge_all: a queue of (rank, position) for every
// adjacent pair that has a merge; stale entries are skipped when popped.
void BpeModel::mergeAll(std::vector<int32_t>* symbols) const {
  std::vector<int32_t>& sym = *symbols;
  const int n = int(sym.size());
  std::vector<int> prev(static_cast<size_t>(n)), next(static_cast<size_t>(n));
  std::vector<bool> alive(static_cast<size_t>(n), true);
  for (int i = 0; i < n; ++i) prev[size_t(i)] = i - 1, next[size_t(i)] = i + 1 < n ? i + 1 : -1;
  struct Entry {
    int32_t rank, pos, id;
    bool operator<(const Entry& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  std::priority_queue<Entry> queue;
  auto consider = [&](int pos) {
    if (pos < 0 || next[size_t(pos)] < 0) return;
    auto it = merges_.find(pairKey(sym[size_t(pos)], sym[size_t(next[size_t(pos)])]));
    if (it != merges_.end()) queue.push({it->second.rank, pos, it->second.id});
  };
  for (int i = 0; i + 1 < n; ++i) consider(i);
  while (!queue.empty()) {
    const Entry top = queue.top();
    queue.pop();
    const auto p = size_t(top.pos);
    if (!alive[p] || next[p] < 0) continue;
    auto it = merges_.find(pairKey(sym[p], sym[size_t(next[p])]));
    if (it == merges_.end() || it->second.id != top.id) continue;
    const auto r = size_t(next[p]);
    sym[p] = top.id;
    alive[r] = false;
    next[p] = next[r];
    if (next[p] >= 0) prev[size_t(next[p])] = top.pos;
    consider(prev[p]);
    consider(top.pos);
  }
  std::vector<int32_t> out;
  for (int i = 0; i < n; ++i)
    if (alive[size_t(i)]) out.push_back(sym[size_t(i)]);
  sym = std::move(out);
}

}  // namespace mgc::tok
