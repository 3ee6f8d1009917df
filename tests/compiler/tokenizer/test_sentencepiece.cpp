// compiler/tokenizer's SentencePiece tokenizer.model on the committed test
// models (sentencepiece/, from make_sentencepiece.py): BOS, special tokens
// in decode, ids outside the model, the stream decoder holding back a byte
// fallback character, every bad file (empty, truncated, garbage, a
// tokenizer.json) refused with an error naming it, and the check of the
// normalizer's character map (sentencepiece_check.h) on hand-built maps.
// sentencepiece_reference compares whole corpora with python3-sentencepiece.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "compiler/tokenizer/sentencepiece_model.h"
#include "compiler/tokenizer/stream_decoder.h"
#include "formats/file_read.h"
#include "ir/types.h"

using namespace mgc;

namespace {

const char kBpe[] = "tests/compiler/tokenizer/sentencepiece/bpe_byte_fallback.model";

std::string readModel(const char* path) {
  std::string bytes, error;
  REQUIRE(fileio::readAll(path, &bytes, &error));
  return bytes;
}

tok::SentencePieceModel bpe() { return tok::SentencePieceModel(readModel(kBpe), "tokenizer.model"); }

// The message of the mgc::Error that loading `bytes` throws ("" if none).
std::string loadError(const std::string& bytes) {
  try {
    tok::SentencePieceModel m(bytes, "dir/tokenizer.model");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string varint(uint64_t v) {
  std::string r;
  for (; v >= 0x80; v >>= 7) r += char(0x80 | (v & 0x7F));
  return r + char(v);
}

// `model` with a normalizer_spec appended whose precompiled_charsmap is
// `charsmap` (protobuf merges it into the model's own).
std::string withCharsmap(const std::string& model, const std::string& charsmap) {
  const std::string spec = "\x12" + varint(charsmap.size()) + charsmap;  // NormalizerSpec field 2
  return model + "\x1A" + varint(spec.size()) + spec;                    // ModelProto field 3
}

// A precompiled charsmap as sentencepiece reads it: u32 trie bytes, the
// Darts-clone units, the NUL-terminated replacement strings. This one maps
// "a" to `replacement`: the root's offset 256 puts its state at 256, the
// unit for 'a' at 256 ^ 'a' has a leaf at (256 ^ 'a') ^ 256 = 'a', whose
// value is the string's offset 0. Units (bit 9 clear): offset << 10, leaf
// bit 8, label in the low byte; a leaf unit is bit 31 | value.
// Fewer than 512 units cut the trie short (its units past `units` are lost).
std::string charsmap(uint32_t units, uint32_t leafValue, const std::string& strings) {
  std::vector<uint32_t> trie(std::max(units, 512u), 0);
  trie[0] = 256u << 10;
  trie[256 ^ 'a'] = (256u << 10) | (1u << 8) | 'a';
  trie['a'] = (1u << 31) | leafValue;
  const uint32_t bytes = units * 4;
  std::string r(reinterpret_cast<const char*>(&bytes), 4);
  r.append(reinterpret_cast<const char*>(trie.data()), bytes);
  return r + strings;
}

}  // namespace

TEST_CASE("sentencepiece: pieces, BOS and special tokens", "[tokenizer][sentencepiece]") {
  const tok::SentencePieceModel m = bpe();
  CHECK(m.vocabSize() == 600);
  CHECK(m.bosId() == 1);
  REQUIRE(m.idToToken(0));
  CHECK(*m.idToToken(0) == "<unk>");
  CHECK(*m.idToToken(1) == "<s>");
  CHECK(*m.idToToken(2) == "</s>");
  CHECK(*m.idToToken(3 + 0x41) == "<0x41>");
  CHECK(m.idToToken(600) == nullptr);
  CHECK(m.idToToken(-1) == nullptr);
  // "▁" "H" "e" "ll" "o" "▁w" "or" "l" "d" (python3-sentencepiece's ids).
  const std::vector<int64_t> hello = {331, 393, 333, 289, 339, 293, 306, 341, 343};
  CHECK(m.encode("Hello world", false) == hello);
  std::vector<int64_t> withBos = hello;
  withBos.insert(withBos.begin(), 1);
  CHECK(m.encode("Hello world", true) == withBos);
  CHECK(m.encode("", true) == std::vector<int64_t>{1});
  CHECK(m.encode("", false).empty());

  std::vector<int64_t> ids = withBos;
  ids.push_back(2);
  CHECK(m.decode(ids, true) == "Hello world");
  CHECK(m.decode(ids, false) == "<s>Hello world</s>");
  CHECK(m.decode({0, 331, 363}, true) == "x");                  // <unk> skipped with the special tokens
  CHECK(m.decode({0, 331, 363}, false) == " \xE2\x81\x87  x");  // sentencepiece's " ⁇ ", then "▁x"
  CHECK(m.decode({-5, 331, 363, 600, 1 << 30}, false) == "x");  // ids no piece has are dropped
  // Byte fallback: "ꙮ" is EA 99 AE.
  CHECK(m.encode("\xEA\x99\xAE", false) == std::vector<int64_t>{331, 3 + 0xEA, 3 + 0x99, 3 + 0xAE});
  CHECK(m.decode({3 + 0xEA, 3 + 0x99}, true) == "\xEF\xBF\xBD\xEF\xBF\xBD");  // incomplete: U+FFFD per byte
}

TEST_CASE("sentencepiece: the stream decoder holds back incomplete UTF-8", "[tokenizer][sentencepiece]") {
  const tok::SentencePieceModel m = bpe();
  tok::StreamDecoder s(m, true);
  CHECK(s.push(1).empty());    // <s>, skipped
  CHECK(s.push(331).empty());  // "▁" at the start: the leading space goes, as in a full decode
  CHECK(s.push(3 + 0xEA).empty());
  CHECK(s.push(3 + 0x99).empty());
  CHECK(s.push(3 + 0xAE) == "\xEA\x99\xAE");
  CHECK(s.push(293) == " w");  // "▁w": a space inside the text stays
  CHECK(s.push(2).empty());    // </s>
}

TEST_CASE("sentencepiece: text that is not UTF-8 is an error", "[tokenizer][sentencepiece]") {
  const tok::SentencePieceModel m = bpe();
  CHECK_THROWS_WITH(m.encode("ab\xFF", true), "tokenizer.model: the text to encode is not valid UTF-8");
}

TEST_CASE("sentencepiece: bad files are errors naming the file", "[tokenizer][sentencepiece]") {
  const std::string good = readModel(kBpe);
  CHECK(loadError("") == "dir/tokenizer.model: not a SentencePiece model (the file is empty)");
  const std::string json = R"({"model": {"type": "BPE", "vocab": {}, "merges": []}})";
  for (const std::string& bad : {json, std::string("garbage \xFF\xFE\x00\x01 garbage", 20),
                                 good.substr(0, good.size() / 2), good.substr(0, 7), good.substr(0, good.size() - 1)}) {
    INFO(bad.size() << " bytes");
    const std::string e = loadError(bad);
    CHECK_THAT(e, Catch::StartsWith("dir/tokenizer.model: "));
    CHECK_THAT(e, Catch::Contains("SentencePiece model"));
  }
  // Every prefix of the file loads or is refused with a message: none crashes.
  for (size_t n = 1; n < good.size(); n += 97) {
    INFO("first " << n << " bytes");
    const std::string e = loadError(good.substr(0, n));
    if (!e.empty()) CHECK_THAT(e, Catch::StartsWith("dir/tokenizer.model: "));
  }
}

TEST_CASE("sentencepiece: a unigram model", "[tokenizer][sentencepiece]") {
  const tok::SentencePieceModel m(readModel("tests/compiler/tokenizer/sentencepiece/unigram.model"), "unigram.model");
  CHECK(m.vocabSize() == 400);
  const std::vector<int64_t> ids = m.encode("Hello world", true);
  REQUIRE(ids.size() > 1);
  CHECK(ids[0] == 1);
  CHECK(m.decode(ids, true) == "Hello world");
}

TEST_CASE("sentencepiece: the normalizer's character map is checked before sentencepiece reads it",
          "[tokenizer][sentencepiece]") {
  const std::string good = readModel(kBpe);
  // A well-formed map is used: "a" normalizes to "b".
  const tok::SentencePieceModel plain(good, "tokenizer.model");
  const tok::SentencePieceModel mapped(withCharsmap(good, charsmap(512, 0, std::string("b\0", 2))), "tokenizer.model");
  CHECK(mapped.encode("a", false) == plain.encode("b", false));
  CHECK(mapped.encode("a", false) != plain.encode("a", false));
  // Each lookup outside the map is refused (sentencepiece would read there:
  // the first one crashed it).
  CHECK_THAT(loadError(withCharsmap(good, charsmap(300, 0, std::string("b\0", 2)))),
             Catch::Contains("normalizer_spec.precompiled_charsmap: a trie state at 256 reaches past its 300 units"));
  CHECK_THAT(loadError(withCharsmap(good, charsmap(512, 100, std::string("b\0", 2)))),
             Catch::Contains("a replacement string at 100 does not end inside the map"));
  CHECK_THAT(loadError(withCharsmap(good, charsmap(512, 0, "bc"))),
             Catch::Contains("a replacement string at 0 does not end inside the map"));
  std::string longHeader = charsmap(512, 0, std::string("b\0", 2));
  const uint32_t tooLong = uint32_t(longHeader.size());  // the 4-byte header makes it overrun
  std::memcpy(&longHeader[0], &tooLong, 4);
  CHECK_THAT(loadError(withCharsmap(good, longHeader)), Catch::Contains("is past the map"));
  CHECK_THAT(loadError(withCharsmap(good, "abc")), Catch::Contains("shorter than its header"));
  // A group field (no SentencePiece model has one).
  CHECK_THAT(loadError(good + "\x1B"),
             Catch::Contains("not a SentencePiece model (the protobuf does not parse: field 3 is a group"));
}
