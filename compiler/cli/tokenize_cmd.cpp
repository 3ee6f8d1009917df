// mgc tokenize (BUNDLE.mgb | tokenizer.json | FILE.model)
//   (--text T | --file F | --decode 1,2,3 | --batch F.jsonl)
//   [--ids-only] [--no-special-tokens] [--skip-special]
// Text ↔ token ids with the tokenizer a bundle carries (or a tokenizer.json
// or SentencePiece .model file): what mgc generate does with --prompt, on
// its own.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "compiler/cli/bundle_tokenizer.h"
#include "compiler/cli/commands.h"
#include "compiler/cli/token_ids.h"
#include "compiler/hf/json_text.h"
#include "compiler/tokenizer/stream_decoder.h"
#include "formats/file_read.h"
#include "ir/types.h"

namespace mgc {

namespace {

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "mgc tokenize: error: %s\n", message.c_str());
  return code;
}

// --batch: each line a JSON string; each output line a JSON object with the
// ids, both decodes and the text the stream decoder (mgc generate's) prints
// for the ids, for scripts (tests/compiler/tokenizer/reference.mjs).
void runBatch(const tok::TextTokenizer& t, const std::string& path, bool addSpecial) {
  std::string all, error;
  if (!fileio::readAll(path, &all, &error)) throw Error(error);
  std::istringstream f(all);
  std::string line;
  for (int n = 1; std::getline(f, line); ++n) {
    if (line.empty()) continue;
    const nlohmann::json text = hf::parseJsonText(line, path + ":" + std::to_string(n));
    if (!text.is_string()) throw Error(path + ":" + std::to_string(n) + ": not a JSON string");
    const std::vector<int64_t> ids = t.encode(text.get<std::string>(), addSpecial);
    tok::StreamDecoder stream(t, true);
    std::string streamed;
    for (int64_t id : ids) streamed += stream.push(id);
    nlohmann::json out = {
        {"ids", ids}, {"decoded", t.decode(ids, false)}, {"decoded_skip", t.decode(ids, true)}, {"streamed", streamed}};
    std::printf("%s\n", out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  }
}

}  // namespace

int tokenizeMain(int argc, char** argv) {
  CLI::App app{"Encode text to token ids, or decode ids to text, with a bundle's tokenizer", "mgc tokenize"};
  std::string path, text, file, decodeIds, batch;
  bool idsOnly = false, noSpecial = false, skipSpecial = false;
  app.add_option("source", path,
                 "a bundle (.mgb) compiled from a folder with tokenizer.json or tokenizer.model, a tokenizer.json, or "
                 "a SentencePiece model (a name ending in .model)")
      ->required();
  auto* textOpt = app.add_option("--text", text, "text to encode");
  auto* fileOpt = app.add_option("--file", file, "encode the contents of this file");
  auto* decodeOpt = app.add_option("--decode", decodeIds, "token ids to decode, comma-separated (e.g. 1,5,9)");
  auto* batchOpt =
      app.add_option("--batch", batch, "encode each line of a JSON-lines file of strings; print JSON lines");
  textOpt->excludes(fileOpt)->excludes(decodeOpt)->excludes(batchOpt);
  fileOpt->excludes(decodeOpt)->excludes(batchOpt);
  decodeOpt->excludes(batchOpt);
  app.add_flag("--ids-only", idsOnly, "print only the ids, comma-separated");
  app.add_flag("--no-special-tokens", noSpecial, "do not add the post-processor's special tokens (BOS)");
  app.add_flag("--skip-special", skipSpecial, "--decode: leave special tokens out of the text");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  if (textOpt->count() + fileOpt->count() + decodeOpt->count() + batchOpt->count() == 0)
    return fail(kExitUsage, "nothing to do: give --text, --file, --decode or --batch");
  std::vector<int64_t> ids;
  if (decodeOpt->count() && !parseIds(decodeIds, &ids))
    return fail(kExitUsage, "--decode '" + decodeIds + "' is not a comma-separated list of token ids");
  if (std::string problem = fileio::notAFile(path); !problem.empty()) return fail(kExitIo, problem);
  try {
    BundleTokenizer bt = loadTokenizer(path);
    if (!bt.tokenizer)
      return fail(
          kExitBadInput,
          path + ": the bundle has no tokenizer (its checkpoint folder had no tokenizer.json or tokenizer.model)");
    const tok::TextTokenizer& t = *bt.tokenizer;
    if (batchOpt->count()) {
      runBatch(t, batch, !noSpecial);
      return kExitOk;
    }
    if (decodeOpt->count()) {
      std::printf("%s\n", t.decode(ids, skipSpecial).c_str());
      return kExitOk;
    }
    if (fileOpt->count()) text = hf::readTextFile(file);
    ids = t.encode(text, !noSpecial);
    if (!idsOnly)
      for (int64_t id : ids) {
        const std::string* s = t.idToToken(id);
        std::printf("%8lld  %s\n", (long long)id, nlohmann::json(s ? *s : "").dump().c_str());
      }
    std::printf("%s\n", joinIds(ids).c_str());
  } catch (const Error& e) {
    return fail(kExitBadInput, e.what());
  }
  return kExitOk;
}

}  // namespace mgc
