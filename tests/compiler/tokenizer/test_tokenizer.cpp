// compiler/tokenizer on tiny hand-written tokenizer.json files: a byte-level
// BPE whose merges and results can be checked by hand, every error a file
// can cause (each naming the file, the component and the reason), and the
// stream decoder holding back incomplete UTF-8. The real vocabularies are
// compared with the reference implementation by tokenizer_reference.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "compiler/tokenizer/byte_level.h"
#include "compiler/tokenizer/stream_decoder.h"
#include "compiler/tokenizer/tokenizer.h"
#include "compiler/tokenizer/utf8.h"
#include "ir/types.h"

using namespace mgc;
using nlohmann::json;

namespace {

// A byte-level BPE: the 256-symbol alphabet, then "Ġt", "he", "Ġthe" by
// merges of rank 0, 1, 2, plus one special token.
json byteLevelTokenizer() {
  json vocab = json::object();
  for (int b = 0; b < 256; ++b) vocab[tok::byteLevelEncode(std::string(1, char(b)))] = b;
  vocab["\xC4\xA0t"] = 256;  // "Ġt"
  vocab["he"] = 257;
  vocab["\xC4\xA0the"] = 258;  // "Ġthe"
  json model = {{"type", "BPE"},
                {"dropout", nullptr},
                {"unk_token", nullptr},
                {"fuse_unk", false},
                {"byte_fallback", false},
                {"vocab", vocab},
                {"merges", json::array({"\xC4\xA0 t", json::array({"h", "e"}), "\xC4\xA0t he"})}};
  json bos = {{"id", 259},       {"content", "<|bos|>"}, {"single_word", false}, {"lstrip", false},
              {"rstrip", false}, {"normalized", false},  {"special", true}};
  return {{"version", "1.0"},
          {"added_tokens", json::array({bos})},
          {"normalizer", nullptr},
          {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
          {"model", model},
          {"post_processor",
           {{"type", "TemplateProcessing"},
            {"single", json::array({{{"SpecialToken", {{"id", "<|bos|>"}, {"type_id", 0}}}},
                                    {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}})},
            {"special_tokens", {{"<|bos|>", {{"id", "<|bos|>"}, {"ids", {259}}, {"tokens", {"<|bos|>"}}}}}}}},
          {"decoder", {{"type", "ByteLevel"}}}};
}

tok::Tokenizer load(const json& j) { return tok::Tokenizer(j.dump(), "tokenizer.json"); }

// The message of the error loading `j` throws ("" when it loads).
std::string loadError(const std::string& text) {
  try {
    tok::Tokenizer t(text, "tokenizer.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("byte-level BPE encodes by merge rank and decodes back", "[tokenizer]") {
  tok::Tokenizer t = load(byteLevelTokenizer());
  // " the" → "Ġthe" (merges 0 then 2, after "he" at rank 1); "x" is its byte.
  CHECK(t.encode("a the", false) == std::vector<int64_t>{'a', 258});
  CHECK(t.encode("a the", true) == std::vector<int64_t>{259, 'a', 258});
  CHECK(t.encode("<|bos|>he", false) == std::vector<int64_t>{259, 257});
  CHECK(t.encode("", true) == std::vector<int64_t>{259});
  CHECK(t.decode({259, 'a', 258}, false) == "<|bos|>a the");
  CHECK(t.decode({259, 'a', 258}, true) == "a the");
  CHECK(t.decode({'a', 100000}, true) == "a");  // ids past the vocabulary are dropped, as tokenizers does
  CHECK(t.vocabSize() == 260);
  const std::string text = "caf\xC3\xA9 \xF0\x9F\x98\x80 the";  // "café 😀 the"
  CHECK(t.decode(t.encode(text, true), true) == text);
  CHECK_THROWS_WITH(t.encode("\xFF", false), Catch::Contains("tokenizer.json: the text to encode is not valid UTF-8"));
}

TEST_CASE("the stream decoder holds back incomplete UTF-8", "[tokenizer]") {
  tok::Tokenizer t = load(byteLevelTokenizer());
  tok::StreamDecoder s(t, true);
  // "é" is bytes C3 A9, "😀" F0 9F 98 80: one byte-level token per byte.
  CHECK(s.push('a') == "a");
  CHECK(s.push(0xC3).empty());
  CHECK(s.push(0xA9) == "\xC3\xA9");
  CHECK(s.push(259).empty());  // a special token, skipped
  CHECK(s.push(0xF0).empty());
  CHECK(s.push(0x9F).empty());
  CHECK(s.push(0x98).empty());
  CHECK(s.push(0x80) == "\xF0\x9F\x98\x80");
  CHECK(s.push(258) == " the");
}

TEST_CASE("lossy UTF-8 replaces each maximal invalid subpart once", "[tokenizer]") {
  CHECK(tok::utf8Lossy("a\xC3") == "a\xEF\xBF\xBD");
  CHECK(tok::utf8Lossy("\xF0\x9F\x98x") == "\xEF\xBF\xBDx");                        // one truncated sequence
  CHECK(tok::utf8Lossy("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong: two bad bytes
  CHECK(tok::utf8Lossy("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
}

TEST_CASE("tokenizer.json errors name the file, the component and the reason", "[tokenizer]") {
  json j = byteLevelTokenizer();
  const std::string good = j.dump();
  CHECK(loadError(good).empty());
  CHECK(loadError(good.substr(0, good.size() / 2)).find("tokenizer.json: not valid JSON") == 0);
  CHECK(loadError("[1, 2]") == "tokenizer.json: not a JSON object");

  auto with = [&](const char* ptr, const json& value) {
    json k = j;
    k[json::json_pointer(ptr)] = value;
    return loadError(k.dump());
  };
  CHECK_THAT(with("/model/type", "WordPiece"),
             Catch::Contains("tokenizer.json: model type 'WordPiece' is not supported (supported: BPE)"));
  CHECK_THAT(with("/model/type", "Unigram"), Catch::Contains("model type 'Unigram' is not supported"));
  CHECK_THAT(with("/pre_tokenizer", json{{"type", "Whitespace"}}),
             Catch::Contains("tokenizer.json: pre_tokenizer type 'Whitespace' is not supported"));
  CHECK_THAT(with("/normalizer", json{{"type", "Lowercase"}}),
             Catch::Contains("tokenizer.json: normalizer type 'Lowercase' is not supported"));
  CHECK_THAT(with("/decoder", json{{"type", "WordPiece"}}),
             Catch::Contains("tokenizer.json: decoder type 'WordPiece' is not supported"));
  CHECK_THAT(with("/post_processor", json{{"type", "BertProcessing"}}),
             Catch::Contains("tokenizer.json: post_processor type 'BertProcessing' is not supported"));
  CHECK_THAT(with("/pre_tokenizer", json{{"type", "Sequence"}, {"pretokenizers", {{{"type", "Punctuation"}}}}}),
             Catch::Contains("pre_tokenizer type 'Punctuation' is not supported"));
  CHECK_THAT(with("/pre_tokenizer/use_regex", "yes"),
             Catch::Contains("tokenizer.json: pre_tokenizer 'ByteLevel': field 'use_regex' is not true or false"));
  CHECK_THAT(with("/pre_tokenizer/add_prefix_spaces", true),
             Catch::Contains("pre_tokenizer 'ByteLevel': field 'add_prefix_spaces' is not supported"));
  CHECK_THAT(with("/model/merges/0", "\xC4\xA0t"),
             Catch::Contains("tokenizer.json: model: merges[0]: 'Ġt' is not two tokens separated by one space"));
  CHECK_THAT(with("/model/merges/1", json::array({"h", "zz"})),
             Catch::Contains("model: merges[1]: token 'zz' is not in the vocabulary"));
  CHECK_THAT(with("/model/merges/1", 7), Catch::Contains("model: merges[1]: not \"a b\" or [\"a\", \"b\"]"));
  CHECK_THAT(with("/model/merges/2", "t he"), Catch::Contains("merged token 'the' is not in the vocabulary"));
  CHECK_THAT(with("/model/vocab/he", 5), Catch::Contains("model: vocab: id 5 is given to both"));
  CHECK_THAT(with("/model/vocab/he", -1), Catch::Contains("model: vocab: the id of 'he' is not an integer"));
  CHECK_THAT(with("/model/unk_token", "<unk>"), Catch::Contains("model: unk_token '<unk>' is not in the vocabulary"));
  CHECK_THAT(with("/model/dropout", 0.1), Catch::Contains("field 'dropout' is not null"));
  CHECK_THAT(with("/truncation", json{{"max_length", 8}}),
             Catch::Contains("tokenizer.json: truncation is not supported"));
  CHECK_THAT(with("/added_tokens/0/id", "x"), Catch::Contains("added_tokens[0]: field 'id' is not an integer"));
  CHECK_THAT(with("/added_tokens/0/id", 300),
             Catch::Contains("added_tokens[0]: '<|bos|>' has id 300, but tokenizers gives it 259"));
  CHECK_THAT(with("/post_processor/special_tokens/<|bos|>/ids/0", -3),
             Catch::Contains("special_tokens '<|bos|>': an id is not an integer"));
  CHECK_THAT(with("/post_processor/single/0/SpecialToken/id", "<s>"),
             Catch::Contains("single: special token '<s>' is not in special_tokens"));
  json split = {{"type", "Split"}, {"pattern", {{"Regex", "(a"}}}, {"behavior", "Isolated"}, {"invert", false}};
  CHECK_THAT(with("/pre_tokenizer", split),
             Catch::Contains("pre_tokenizer 'Split': regex '(a' does not compile: missing closing parenthesis"));
  split["pattern"] = {{"Regex", "a"}};
  split["behavior"] = "Merged";
  CHECK_THAT(with("/pre_tokenizer", split), Catch::Contains("behavior 'Merged' is not one of Removed, Isolated"));
  j.erase("model");
  CHECK(loadError(j.dump()) == "tokenizer.json: field 'model' is missing");
}

TEST_CASE("a regex that backtracks without end fails cleanly", "[tokenizer]") {
  json j = byteLevelTokenizer();
  j["pre_tokenizer"] = {
      {"type", "Split"}, {"pattern", {{"Regex", "(\\w+\\s?)+$"}}}, {"behavior", "Isolated"}, {"invert", false}};
  tok::Tokenizer t = load(j);
  CHECK_THROWS_WITH(t.encode(std::string(40, 'a') + "!", false),
                    Catch::Contains("failed on the input: match limit exceeded"));
}
