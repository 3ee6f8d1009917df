// mgc generate BUNDLE.mgb --prompt-ids 1,5,9 [--max-tokens N] [--temperature T --top-k K --top-p P --seed S]
//   [--print-ids]
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
#include <sstream>

#include "compiler/cli/bundle_file.h"
#include "compiler/cli/commands.h"
#include "compiler/cli/generator.h"
#include "compiler/cli/sampler.h"

namespace mgc {

namespace {

using Clock = std::chrono::steady_clock;

int report(const char* cmd, const RunnerError& e) {
  std::fprintf(stderr, "mgc %s: error: %s\n", cmd, e.message.c_str());
  return e.exitCode;
}

// "1,5,9" → {1, 5, 9}; false on anything else.
bool parseIds(const std::string& text, std::vector<int64_t>* ids) {
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty() || item.size() > 18 || item.find_first_not_of("0123456789") != std::string::npos) return false;
    ids->push_back(std::stoll(item));
  }
  return !ids->empty();
}

std::string joinIds(const std::vector<int64_t>& ids) {
  std::string r;
  for (size_t i = 0; i < ids.size(); ++i) r += (i ? "," : "") + std::to_string(ids[i]);
  return r;
}

double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

}  // namespace

int generateMain(int argc, char** argv) {
  CLI::App app{"Generate tokens with a generation bundle (mgc compile FOLDER --max-seq N)", "mgc generate"};
  std::string path, promptIds, prompt, promptFile;
  int64_t maxTokens = 32;
  SamplerOptions so;
  bool printIds = false, validation = false;
  int device = -1;
  app.add_option("bundle", path, "generation bundle (.mgb)")->required();
  app.add_option("--prompt-ids", promptIds, "the prompt as token ids, comma-separated (e.g. 1,5,9)");
  app.add_option("--prompt", prompt, "the prompt as text (needs a tokenizer in the bundle)");
  app.add_option("--prompt-file", promptFile, "the prompt as text, from a file (needs a tokenizer in the bundle)");
  app.add_option("--max-tokens", maxTokens, "tokens to generate (default 32)")->check(CLI::Range(int64_t(0), int64_t(1) << 20));
  app.add_option("--temperature", so.temperature, "0 (default): greedy; > 0: sample from softmax(logits / T)")
      ->check(CLI::Range(0.0, 100.0));
  app.add_option("--top-k", so.topK, "sample among the K most likely tokens (0: all)")->check(CLI::NonNegativeNumber);
  app.add_option("--top-p", so.topP, "sample among the most likely tokens holding probability P (default 1)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--seed", so.seed, "sampling seed (default 0): same seed, same tokens");
  app.add_flag("--print-ids", printIds, "print the generated ids (not the prompt's), comma-separated, on the last line");
  app.add_option("--device", device, "Vulkan device index (default: MGRT_DEVICE, else the first GPU)");
  app.add_flag("--validation", validation, "enable the Vulkan validation layer");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  if (!prompt.empty() || !promptFile.empty())
    return report("generate", {kExitUsage, "text prompts need a tokenizer, which generation bundles do not carry yet; "
                                           "give token ids with --prompt-ids"});
  std::vector<int64_t> ids;
  if (promptIds.empty()) return report("generate", {kExitUsage, "no prompt: give --prompt-ids"});
  if (!parseIds(promptIds, &ids))
    return report("generate", {kExitUsage, "--prompt-ids '" + promptIds + "' is not a comma-separated list of token ids"});

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
  std::vector<int64_t> out;
  t0 = Clock::now();
  for (int64_t k = 0; k < maxTokens; ++k) {
    out.push_back(sampler.next(logits.data(), int64_t(logits.size())));
    if (k + 1 == maxTokens) break;
    if (RunnerError e = gen.decode(out.back(), int64_t(ids.size()) + k, &logits); e.exitCode)
      return report("generate", e);
  }
  const double decodeMs = msSince(t0);
  std::printf("%s: %zu prompt tokens in %.2f ms (prefill), %lld new tokens", path.c_str(), ids.size(), prefillMs,
              (long long)maxTokens);
  if (maxTokens > 1) std::printf(", %.3f ms/token (decode)", decodeMs / double(maxTokens - 1));
  std::printf(" on %s\n", gen.deviceName().c_str());
  if (printIds) std::printf("%s\n", joinIds(out).c_str());
  return kExitOk;
}

int benchDecodeMain(int argc, char** argv) {
  CLI::App app{"Measure decode speed of a generation bundle", "mgc bench-decode"};
  std::string path;
  int64_t tokens = 128;
  int device = -1;
  app.add_option("bundle", path, "generation bundle (.mgb)")->required();
  app.add_option("--tokens", tokens, "decode steps to time (default 128; at most --max-seq - 1)")
      ->check(CLI::Range(int64_t(1), int64_t(1) << 20));
  app.add_option("--device", device, "Vulkan device index (default: MGRT_DEVICE, else the first GPU)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  Generator gen;
  if (RunnerError e = gen.open(path, device, false); e.exitCode) return report("bench-decode", e);
  // Bytes a decode step reads: every weight, and the whole KV cache
  // (attention reads all of it; the mask hides the future).
  uint64_t weightBytes = 0, cacheBytes = 0;
  {
    std::ifstream f(path, std::ios::binary);
    std::vector<uint8_t> file((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::string err;
    const mgb::Bundle* b = openBundle(file, path, &err);
    if (!b) return report("bench-decode", {kExitBadInput, err});
    if (b->arenas())
      for (const mgb::Arena* a : *b->arenas())
        if (a->kind() == mgb::ArenaKind::Weights) weightBytes += a->size();
    if (b->tensors() && b->state())
      for (uint32_t t : *b->state())
        if (t < b->tensors()->size() && b->tensors()->Get(t)->name() &&
            b->tensors()->Get(t)->name()->str().rfind("kv.", 0) == 0)
          cacheBytes += b->tensors()->Get(t)->size();
  }
  tokens = std::min(tokens, gen.maxSeq() - 1);
  if (tokens < 1) return report("bench-decode", {kExitUsage, path + ": --max-seq 1 leaves no position to decode"});
  std::vector<float> logits;
  if (RunnerError e = gen.prefill({0}, &logits); e.exitCode) return report("bench-decode", e);
  std::vector<double> wall, gpu;
  Sampler greedy({});
  int64_t token = greedy.next(logits.data(), int64_t(logits.size()));
  for (int64_t k = 0; k < tokens; ++k) {
    auto t0 = Clock::now();
    if (RunnerError e = gen.decode(token, 1 + k, &logits); e.exitCode) return report("bench-decode", e);
    wall.push_back(msSince(t0));
    gpu.push_back(gen.lastDecodeGpuMs());
    token = greedy.next(logits.data(), int64_t(logits.size()));
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double w = median(wall), g = median(gpu);
  std::printf("%s on %s: %lld decode steps (positions 1..%lld of %lld)\n", path.c_str(), gen.deviceName().c_str(),
              (long long)tokens, (long long)tokens, (long long)gen.maxSeq());
  std::printf("decode: %.3f ms/token wall (median), %.3f ms GPU, %.1f tokens/s\n", w, g, 1000.0 / w);
  const double bytes = double(weightBytes + cacheBytes);
  std::printf("bytes/token: %.1f MB (weights %.1f MB + KV cache %.1f MB), %.1f GB/s at the GPU time\n", bytes / 1e6,
              double(weightBytes) / 1e6, double(cacheBytes) / 1e6, g > 0 ? bytes / (g * 1e-3) / 1e9 : 0.0);
  return kExitOk;
}

}  // namespace mgc
