// Checkpoint folders end to end: tiny random Llama / Qwen2 / Qwen3
// checkpoints (make_checkpoints.py, generated into the build folder by a
// CTest fixture step) compiled with mgc, run on Vulkan through libmgrt with
// the validation layer on, logits compared with the PyTorch reference
// implementation of transformers' forward pass.
//
// Error metric as tests/models: max|got - want| / max|want|.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "compiler/driver.h"
#include "formats/npy.h"
#include "runtime/include/mgrt.h"

namespace {

constexpr double kMaxNormalizedError = 1e-4;

std::string fixturesDir() {
  const char* env = std::getenv("MGC_HF_FIXTURES");
  return env && *env ? env : MGC_HF_FIXTURES;
}

mgb::npy::Array loadNpy(const std::string& path) {
  mgb::npy::Array a;
  std::string err;
  bool ok = mgb::npy::readFile(path, &a, &err);
  INFO(path << ": " << err << " (run ctest, or make_checkpoints.py --out DIR)");
  REQUIRE(ok);
  return a;
}

#define REQUIRE_MGRT(call)                                                           \
  do {                                                                               \
    mgrt_status status_ = (call);                                                    \
    INFO(#call << ": " << mgrt_status_string(status_) << ": " << mgrt_last_error()); \
    REQUIRE(status_ == MGRT_OK);                                                     \
  } while (0)

// max|got - want| / max|want| (inf on a non-finite got); *maxWantOut gets max|want|.
double normalizedError(const float* got, const float* want, size_t n, double* maxWantOut = nullptr) {
  double maxDiff = 0, maxWant = 0;
  for (size_t i = 0; i < n; ++i) {
    double d = std::isfinite(got[i]) ? std::fabs(double(got[i]) - double(want[i])) : INFINITY;
    maxDiff = std::max(maxDiff, d);
    maxWant = std::max(maxWant, std::fabs(double(want[i])));
  }
  if (maxWantOut) *maxWantOut = maxWant;
  return maxDiff / std::max(maxWant, 1e-6);
}

void runCheckpoint(const std::string& name) {
  const std::string dir = fixturesDir() + "/" + name;
  mgb::npy::Array ids = loadNpy(dir + "/input_ids.npy");
  mgb::npy::Array want = loadNpy(dir + "/logits.npy");
  REQUIRE(ids.dtype == mgb::npy::DType::I64);
  REQUIRE(want.dtype == mgb::npy::DType::F32);
  REQUIRE(ids.shape.size() == 2);

  mgc::CompileOptions opts;
  opts.frontend.seqLen = ids.shape[1];
  std::vector<uint8_t> bundle;
  try {
    bundle = mgc::compileFile(dir, opts).bundle;
  } catch (const std::exception& e) {
    FAIL("compile " << dir << ": " << e.what());
  }

  mgrt_context_options co{-1, 1, 0};
  mgrt_context* ctx = nullptr;
  REQUIRE_MGRT(mgrt_context_create(&co, &ctx));
  std::unique_ptr<mgrt_context, void (*)(mgrt_context*)> ctxGuard(ctx, mgrt_context_destroy);
  std::vector<float> got(want.data.size() / sizeof(float));
  {
    mgrt_model* model = nullptr;
    REQUIRE_MGRT(mgrt_model_load(ctx, bundle.data(), bundle.size(), &model));
    std::unique_ptr<mgrt_model, void (*)(mgrt_model*)> modelGuard(model, mgrt_model_destroy);
    mgrt_session* s = nullptr;
    REQUIRE_MGRT(mgrt_session_create(model, "infer", &s));
    std::unique_ptr<mgrt_session, void (*)(mgrt_session*)> sessionGuard(s, mgrt_session_destroy);
    REQUIRE_MGRT(mgrt_session_set_input(s, "input_ids", ids.data.data(), ids.data.size()));
    REQUIRE_MGRT(mgrt_session_run(s));
    REQUIRE_MGRT(mgrt_session_get_output(s, "logits", got.data(), got.size() * sizeof(float)));
  }
  double maxWant = 0;
  const double err =
      normalizedError(got.data(), reinterpret_cast<const float*>(want.data.data()), got.size(), &maxWant);
  std::printf("checkpoint %-14s logits worst normalized error %.3e (max|ref| %.3g)\n", name.c_str(), err, maxWant);
  std::fflush(stdout);
  CHECK(err <= kMaxNormalizedError);
  CHECK(mgrt_context_validation_messages(ctx) == 0);
}

// A generation bundle (--max-seq 48, prefill chunks of 16): the prompt of
// 20 tokens in two prefill runs (the second padded), then one decode run
// per token of the reference's greedy continuation (teacher forcing); the
// logits of the last prompt token and of every decode step are compared
// with the reference's, which recomputed the whole sequence each time.
//
// With packed weights (--weights F): the reference is the model whose
// linear layers hold the dequantized values (make_checkpoints.py
// packed_model), along the same token sequence, gen_logits_F.npy.
void runGeneration(const std::string& name, mgc::WeightPacking packing = {}, std::set<std::string> disabledPasses = {}) {
  const std::string dir = fixturesDir() + "/" + name;
  const bool packed = packing.format != mgc::WeightFormat::F32;
  const std::string suffix = packed ? std::string("_") + mgc::weightFormatInfo(packing.format).name : "";
  mgb::npy::Array prompt = loadNpy(dir + "/gen_prompt.npy"), ids = loadNpy(dir + "/gen_ids.npy"),
                  want = loadNpy(dir + "/gen_logits" + suffix + ".npy");
  REQUIRE(want.shape.size() == 2);
  const int64_t P = prompt.shape.at(0), N = ids.shape.at(0), vocab = want.shape[1], chunk = 16;
  REQUIRE(P > chunk);  // two prefill runs
  const int64_t* promptIds = reinterpret_cast<const int64_t*>(prompt.data.data());
  const int64_t* genIds = reinterpret_cast<const int64_t*>(ids.data.data());
  const float* w = reinterpret_cast<const float*>(want.data.data());

  std::vector<uint8_t> bundle;
  try {
    mgc::CompileOptions opts;
    opts.frontend.linear = packing;
    opts.disabledPasses = std::move(disabledPasses);
    bundle = mgc::compileGenerationFile(dir, 48, chunk, opts).bundle;
  } catch (const std::exception& e) {
    FAIL("compile " << dir << ": " << e.what());
  }
  mgrt_context_options co{-1, 1, 0};
  mgrt_context* ctx = nullptr;
  REQUIRE_MGRT(mgrt_context_create(&co, &ctx));
  std::unique_ptr<mgrt_context, void (*)(mgrt_context*)> ctxGuard(ctx, mgrt_context_destroy);
  double worst = 0;
  {
    mgrt_model* model = nullptr;
    REQUIRE_MGRT(mgrt_model_load(ctx, bundle.data(), bundle.size(), &model));
    std::unique_ptr<mgrt_model, void (*)(mgrt_model*)> modelGuard(model, mgrt_model_destroy);
    mgrt_session *prefill = nullptr, *decode = nullptr;
    REQUIRE_MGRT(mgrt_session_create(model, "prefill", &prefill));
    std::unique_ptr<mgrt_session, void (*)(mgrt_session*)> g1(prefill, mgrt_session_destroy);
    REQUIRE_MGRT(mgrt_session_create(model, "decode", &decode));
    std::unique_ptr<mgrt_session, void (*)(mgrt_session*)> g2(decode, mgrt_session_destroy);
    std::vector<float> logits(size_t(chunk * vocab));
    for (int64_t start = 0; start < P; start += chunk) {
      std::vector<int64_t> chunkIds(size_t(chunk), 0);
      for (int64_t t = start; t < std::min(P, start + chunk); ++t) chunkIds[size_t(t - start)] = promptIds[t];
      REQUIRE_MGRT(mgrt_session_set_input(prefill, "input_ids", chunkIds.data(), chunkIds.size() * sizeof(int64_t)));
      REQUIRE_MGRT(mgrt_session_set_input(prefill, "position", &start, sizeof start));
      REQUIRE_MGRT(mgrt_session_run(prefill));
      REQUIRE_MGRT(mgrt_session_get_output(prefill, "logits", logits.data(), logits.size() * sizeof(float)));
    }
    const int64_t lastRow = (P - 1) % chunk;
    worst = normalizedError(logits.data() + lastRow * vocab, w, size_t(vocab));
    for (int64_t k = 0; k + 1 < N; ++k) {
      int64_t position = P + k;
      REQUIRE_MGRT(mgrt_session_set_input(decode, "input_ids", &genIds[k], sizeof(int64_t)));
      REQUIRE_MGRT(mgrt_session_set_input(decode, "position", &position, sizeof position));
      REQUIRE_MGRT(mgrt_session_run(decode));
      REQUIRE_MGRT(mgrt_session_get_output(decode, "logits", logits.data(), size_t(vocab) * sizeof(float)));
      worst = std::max(worst, normalizedError(logits.data(), w + (k + 1) * vocab, size_t(vocab)));
    }
  }
  std::printf("generation %-10s%-9s prefill + %lld decode steps, worst normalized error %.3e\n", name.c_str(),
              suffix.c_str(), (long long)(N - 1), worst);
  std::fflush(stdout);
  CHECK(worst <= kMaxNormalizedError);
  CHECK(mgrt_context_validation_messages(ctx) == 0);
}

}  // namespace

TEST_CASE("hf generation: packed weights match PyTorch with the dequantized weights", "[hf][models][generation][packed]") {
  using mgc::WeightFormat;
  for (WeightFormat f : {WeightFormat::F16, WeightFormat::Int8, WeightFormat::Int4, WeightFormat::Ternary}) {
    INFO("llama --weights " << mgc::weightFormatInfo(f).name);
    runGeneration("llama", {f, 32});
  }
  // Already ternary (BitNet-style weights, make_checkpoints.py ternarized):
  // packed without loss, so gen_logits_ternary.npy is the f32 model's own.
  INFO("llama_ternary --weights ternary");
  runGeneration("llama_ternary", {WeightFormat::Ternary, 32});
  INFO("qwen2 (tied lm_head, biases) --weights int8 --group-size 64");
  runGeneration("qwen2", {WeightFormat::Int8, 64});
  INFO("qwen3 (q/k norms) --weights int4");
  runGeneration("qwen3", {WeightFormat::Int4, 32});
}

// 4160 intermediates: the decode step's SwiGLU moves into up's epilogue
// (fuse-swiglu-epilogue) — f32 (matvec), and int4 (qmatvec) with
// fuse-gated-mlp off, which would otherwise take this small model's MLP.
TEST_CASE("hf generation: a long MLP row (SwiGLU in up's epilogue) matches PyTorch", "[hf][models][generation]") {
  runGeneration("llama_wide");
  runGeneration("llama_wide", {mgc::WeightFormat::Int4, 32}, {"fuse-gated-mlp"});
}

TEST_CASE("hf generation: Llama prefill + decode over the KV cache match PyTorch", "[hf][models][generation]") {
  runGeneration("llama");
}

TEST_CASE("hf generation: Qwen2 (tied) prefill + decode match PyTorch", "[hf][models][generation]") {
  runGeneration("qwen2");
}

TEST_CASE("hf generation: Qwen3 (q/k norms) prefill + decode match PyTorch", "[hf][models][generation]") {
  runGeneration("qwen3");
}

TEST_CASE("hf: Llama (GQA, llama3 RoPE scaling, separate lm_head) matches PyTorch", "[hf][models]") {
  runCheckpoint("llama");
}

TEST_CASE("hf: sharded Llama checkpoint matches PyTorch", "[hf][models]") { runCheckpoint("llama_sharded"); }

TEST_CASE("hf: Llama with BF16 weights matches PyTorch", "[hf][models]") { runCheckpoint("llama_bf16"); }

TEST_CASE("hf: Qwen2 (q/k/v biases, tied embeddings) matches PyTorch", "[hf][models]") { runCheckpoint("qwen2"); }

TEST_CASE("hf: Qwen2 with F16 weights matches PyTorch", "[hf][models]") { runCheckpoint("qwen2_f16"); }

TEST_CASE("hf: Qwen3 (q/k norms, head_dim 32, linear RoPE scaling) matches PyTorch", "[hf][models]") {
  runCheckpoint("qwen3");
}
