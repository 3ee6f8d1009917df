// mgc generate BUNDLE.mgb (--prompt TEXT | --prompt-file FILE | --prompt-ids 1,5,9) [--max-tokens N]
//   [--temperature T --top-k K --top-p P --seed S --repetition-penalty R] [--print-ids] [--ignore-eos]
//   [--no-special-tokens]
// mgc bench-decode BUNDLE.mgb [--tokens N]
// Token-by-token generation over a generation bundle (mgc compile
// CHECKPOINT_FOLDER --max-seq N): the prompt through `prefill` in chunks,
// then one `decode` run per new token, the KV cache staying on the device.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <sstream>

#include "compiler/cli/bundle_file.h"
#include "compiler/cli/bundle_tokenizer.h"
#include "compiler/cli/commands.h"
#include "compiler/cli/generator.h"
#include "compiler/cli/sampler.h"
#include "compiler/cli/token_ids.h"
#include "compiler/hf/json_text.h"
#include "compiler/tokenizer/stream_decoder.h"
#include "formats/file_read.h"
#include "ir/types.h"

namespace mgc {

namespace {

using Clock = std::chrono::steady_clock;

int report(const char* cmd, const RunnerError& e) {
  std::fprintf(stderr, "mgc %s: error: %s\n", cmd, e.message.c_str());
  return e.exitCode;
}

double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// Weight bytes the `decode` entry point reads per run: each Weights-arena
// range its dispatches bind, once; for a gather, the bytes it writes (the
// rows it reads) instead of its whole table. The bundle was verified by
// openBundle, so indices are in range.
uint64_t decodeWeightBytes(const mgb::Bundle& b) {
  std::set<std::pair<uint32_t, uint64_t>> seen;  // (arena, offset)
  uint64_t bytes = 0;
  if (!b.entry_points() || !b.arenas() || !b.kernels()) return 0;
  for (const mgb::EntryPoint* e : *b.entry_points()) {
    if (!e->name() || e->name()->str() != "decode" || !e->dispatches()) continue;
    for (const mgb::Dispatch* d : *e->dispatches()) {
      if (!d->bindings() || d->bindings()->size() == 0) continue;
      const mgb::Kernel* k = b.kernels()->Get(d->kernel());
      const bool gather = k->name() && k->name()->str() == "gather";
      for (uint32_t i = 0; i < d->bindings()->size(); ++i) {
        const mgb::BufferRange* r = d->bindings()->Get(i);
        if (b.arenas()->Get(r->arena())->kind() != mgb::ArenaKind::Weights) continue;
        if (gather && i == 0) {
          bytes += d->bindings()->Get(d->bindings()->size() - 1)->size();
          continue;
        }
        if (seen.insert({r->arena(), r->offset()}).second) bytes += r->size();
      }
    }
  }
  return bytes;
}

}  // namespace

int generateMain(int argc, char** argv) {
  CLI::App app{"Generate tokens with a generation bundle (mgc compile FOLDER --max-seq N)", "mgc generate"};
  std::string path, promptIds, prompt, promptFile;
  int64_t maxTokens = 32;
  SamplerOptions so;
  bool printIds = false, validation = false, ignoreEos = false, noSpecial = false;
  int device = -1;
  app.add_option("bundle", path, "generation bundle (.mgb)")->required();
  auto* idsOpt = app.add_option("--prompt-ids", promptIds, "the prompt as token ids, comma-separated (e.g. 1,5,9)");
  auto* textOpt = app.add_option("--prompt", prompt, "the prompt as text (needs a tokenizer in the bundle)");
  auto* fileOpt =
      app.add_option("--prompt-file", promptFile, "the prompt as text, from a file (needs a tokenizer in the bundle)");
  idsOpt->excludes(textOpt)->excludes(fileOpt);
  textOpt->excludes(fileOpt);
  app.add_option("--max-tokens", maxTokens, "tokens to generate (default 32)")->check(CLI::Range(int64_t(0), int64_t(1) << 20));
  app.add_option("--temperature", so.temperature, "0 (default): greedy; > 0: sample from softmax(logits / T)")
      ->check(CLI::Range(0.0, 100.0));
  app.add_option("--top-k", so.topK, "sample among the K most likely tokens (0: all)")->check(CLI::NonNegativeNumber);
  app.add_option("--top-p", so.topP, "sample among the most likely tokens holding probability P (default 1)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--seed", so.seed, "sampling seed (default 0): same seed, same tokens");
  app.add_option("--repetition-penalty", so.repetitionPenalty,
                 "divide the positive logits of tokens already in the context by R, multiply the negative ones "
                 "(default 1: none; transformers' repetition_penalty)")
      ->check(CLI::Range(0.01, 100.0));
  app.add_flag("--print-ids", printIds, "print the generated ids (not the prompt's), comma-separated, on the last line");
  app.add_flag("--ignore-eos", ignoreEos, "do not stop at the bundle's end-of-sequence ids");
  app.add_flag("--no-special-tokens", noSpecial, "text prompts: do not add the tokenizer's special tokens (BOS)");
  app.add_option("--device", device, "Vulkan device index (default: MGRT_DEVICE, else the first GPU)");
  app.add_flag("--validation", validation, "enable the Vulkan validation layer");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  const bool textPrompt = textOpt->count() || fileOpt->count();
  if (!textPrompt && !idsOpt->count()) return report("generate", {kExitUsage, "no prompt: give --prompt, --prompt-file or --prompt-ids"});
  std::vector<int64_t> ids;
  if (idsOpt->count() && !parseIds(promptIds, &ids))
    return report("generate", {kExitUsage, "--prompt-ids '" + promptIds + "' is not a comma-separated list of token ids"});
  if (std::string problem = fileio::notAFile(path); !problem.empty()) return report("generate", {kExitIo, problem});
  BundleTokenizer bt;
  try {
    bt = loadTokenizer(path);
    if (textPrompt && !bt.tokenizer)
      return report("generate", {kExitUsage, "text prompts need a tokenizer in the bundle, and " + path +
                                                 " has none (its checkpoint folder had no tokenizer.json or "
                                                 "tokenizer.model); give token ids with --prompt-ids"});
    if (fileOpt->count()) prompt = hf::readTextFile(promptFile);
    if (textPrompt) ids = bt.tokenizer->encode(prompt, !noSpecial);
  } catch (const Error& e) {
    return report("generate", {kExitBadInput, e.what()});
  }
  if (ids.empty()) return report("generate", {kExitUsage, "the prompt is empty: it encodes to no tokens"});

  Generator gen;
  if (RunnerError e = gen.open(path, device, validation); e.exitCode) return report("generate", e);
  const int64_t total = int64_t(ids.size()) + maxTokens;
  // The last generated token is never fed back, so it needs no cache row.
  if (total - 1 > gen.maxSeq())
    return report("generate", {kExitUsage, std::to_string(ids.size()) + " prompt tokens + " + std::to_string(maxTokens) +
                                               " new ones need " + std::to_string(total - 1) +
                                               " positions; this bundle holds " + std::to_string(gen.maxSeq()) +
                                               " (compile with a larger --max-seq)"});
  Sampler sampler(so);
  std::vector<float> logits;
  auto t0 = Clock::now();
  if (RunnerError e = gen.prefill(ids, &logits); e.exitCode) return report("generate", e);
  const double prefillMs = msSince(t0);
  // With a tokenizer, the text is printed as the tokens arrive (special
  // tokens left out, incomplete UTF-8 held back until it completes).
  std::unique_ptr<tok::StreamDecoder> stream;
  if (bt.tokenizer) stream = std::make_unique<tok::StreamDecoder>(*bt.tokenizer, true);
  std::vector<int64_t> out;
  bool stopped = false;
  t0 = Clock::now();
  std::vector<int64_t> context = ids;  // the repetition penalty's tokens so far
  for (int64_t k = 0; k < maxTokens; ++k) {
    out.push_back(sampler.next(logits.data(), int64_t(logits.size()), context));
    context.push_back(out.back());
    if (stream) {
      std::fputs(stream->push(out.back()).c_str(), stdout);
      std::fflush(stdout);
    }
    stopped = !ignoreEos && std::count(bt.eosTokenIds.begin(), bt.eosTokenIds.end(), out.back());
    if (stopped || k + 1 == maxTokens) break;
    if (RunnerError e = gen.decode(out.back(), int64_t(ids.size()) + k, &logits); e.exitCode)
      return report("generate", e);
  }
  const double decodeMs = msSince(t0);
  if (stream) std::printf("\n");
  std::printf("%s: %zu prompt tokens in %.2f ms (prefill), %zu new tokens", path.c_str(), ids.size(), prefillMs,
              out.size());
  if (out.size() > 1) std::printf(", %.3f ms/token (decode)", decodeMs / double(out.size() - 1));
  std::printf(" on %s%s\n", gen.deviceName().c_str(), stopped ? ", stopped at end-of-sequence" : "");
  if (printIds) std::printf("%s\n", joinIds(out).c_str());
  return kExitOk;
}

int benchDecodeMain(int argc, char** argv) {
  CLI::App app{"Measure decode speed of a generation bundle", "mgc bench-decode"};
  std::string path;
  int64_t tokens = 128, warmup = 64;
  int device = -1;
  app.add_option("bundle", path, "generation bundle (.mgb)")->required();
  app.add_option("--tokens", tokens, "decode steps to time (default 128; at most --max-seq - 1)")
      ->check(CLI::Range(int64_t(1), int64_t(1) << 20));
  app.add_option("--warmup", warmup,
                 "untimed decode steps first (default 64, and at least 0.5 s of them), so that the GPU has left its "
                 "idle clocks; 0: none")
      ->check(CLI::Range(int64_t(0), int64_t(1) << 20));
  app.add_option("--device", device, "Vulkan device index (default: MGRT_DEVICE, else the first GPU)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  Generator gen;
  if (RunnerError e = gen.open(path, device, false); e.exitCode) return report("bench-decode", e);
  // Bytes a decode step reads: the weights its dispatches bind (a gather
  // reads only the rows it writes: one embedding row, not the table), and
  // the KV cache rows of the positions so far (attention skips the rows
  // its mask hides: kernels/src/attention.glsl), counted below at the
  // middle step.
  uint64_t weightBytes = 0, cacheBytes = 0;
  {
    std::vector<uint8_t> file;
    std::string err;
    if (!fileio::readAll(path, &file, &err)) return report("bench-decode", {kExitIo, err});
    const mgb::Bundle* b = openBundle(file, path, &err);
    if (!b) return report("bench-decode", {kExitBadInput, err});
    weightBytes = decodeWeightBytes(*b);
    if (b->tensors() && b->state())
      for (uint32_t t : *b->state())
        if (t < b->tensors()->size() && b->tensors()->Get(t)->name() &&
            b->tensors()->Get(t)->name()->str().rfind("kv.", 0) == 0)
          cacheBytes += b->tensors()->Get(t)->size();
  }
  tokens = std::min(tokens, gen.maxSeq() - 1);
  if (tokens < 1) return report("bench-decode", {kExitUsage, path + ": --max-seq 1 leaves no position to decode"});
  std::vector<float> logits;
  Sampler greedy({});
  // Warm-up steps walk positions 1, 2, ... and start over past the cache;
  // each rewrites the rows it attends to, so the timed walk below (after a
  // fresh prefill) reads what it wrote itself. A GPU raises its clocks some
  // 0.3 s into steady work (an H200 idles at 345 MHz): 64 steps of a fast
  // model are over sooner, so the warm-up also lasts 0.5 s.
  const auto warmupStart = Clock::now();
  int64_t warmed = 0;
  for (int64_t k = 0; k < warmup || (warmup > 0 && msSince(warmupStart) < 500.0); ++k, ++warmed) {
    if (k % tokens == 0)
      if (RunnerError e = gen.prefill({0}, &logits); e.exitCode) return report("bench-decode", e);
    if (RunnerError e = gen.decode(greedy.next(logits.data(), int64_t(logits.size())), 1 + k % tokens, &logits);
        e.exitCode)
      return report("bench-decode", e);
  }
  if (RunnerError e = gen.prefill({0}, &logits); e.exitCode) return report("bench-decode", e);
  std::vector<double> wall, gpu, setInputs, runs, getLogits;
  int64_t token = greedy.next(logits.data(), int64_t(logits.size()));
  for (int64_t k = 0; k < tokens; ++k) {
    auto t0 = Clock::now();
    if (RunnerError e = gen.decode(token, 1 + k, &logits); e.exitCode) return report("bench-decode", e);
    wall.push_back(msSince(t0));
    gpu.push_back(gen.lastDecodeGpuMs());
    const Generator::HostSplit split = gen.lastHostSplit();
    setInputs.push_back(split.setInputs);
    runs.push_back(split.run);
    getLogits.push_back(split.getLogits);
    token = greedy.next(logits.data(), int64_t(logits.size()));
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double w = median(wall), g = median(gpu);
  std::printf("%s on %s: %lld decode steps (positions 1..%lld of %lld) after %lld untimed\n", path.c_str(),
              gen.deviceName().c_str(), (long long)tokens, (long long)tokens, (long long)gen.maxSeq(),
              (long long)warmed);
  std::printf("decode: %.3f ms/token wall (median), %.3f ms GPU, %.1f tokens/s\n", w, g, 1000.0 / w);
  // Where the wall time beyond the GPU's goes (medians of each step).
  std::printf("host: set inputs %.3f ms, run %.3f ms (submit, GPU, wait), read logits %.3f ms\n", median(setInputs),
              median(runs), median(getLogits));
  // The middle step decodes position 1 + tokens / 2: its attention reads
  // the rows of positions 0 .. that one.
  const int64_t middle = 1 + tokens / 2;
  const double cacheRead = double(cacheBytes) * double(middle + 1) / double(gen.maxSeq());
  const double bytes = double(weightBytes) + cacheRead;
  std::printf("bytes/token: %.1f MB (weights %.1f MB + KV cache %.1f MB), %.1f GB/s at the GPU time (the cache rows "
              "of positions 0..%lld of %lld)\n",
              bytes / 1e6, double(weightBytes) / 1e6, cacheRead / 1e6, g > 0 ? bytes / (g * 1e-3) / 1e9 : 0.0,
              (long long)middle, (long long)gen.maxSeq());
  return kExitOk;
}

}  // namespace mgc
