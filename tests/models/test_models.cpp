// End-to-end model tests: each fixture folder (tools/gen_fixtures.py) holds
// model.onnx, input_N.npy, output_N.npy and manifest.txt ("input|output N
// onnx_name"). The model is compiled with mgc, run on Vulkan through libmgrt
// with the validation layer on, and every output is compared with PyTorch's.
//
// Error metric, per output: max|got - want| / max(max|want|, 1e-6), i.e. the
// worst absolute error relative to the output's scale. Elementwise relative
// error would blow up on outputs near zero, which every logit vector has.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/driver.h"
#include "formats/npy.h"
#include "runtime/include/mgrt.h"

namespace {

constexpr double kMaxNormalizedError = 1e-4;

struct ManifestEntry {
  bool isInput;
  int index;
  std::string name;  // the ONNX (and bundle) tensor name
};

std::vector<ManifestEntry> readManifest(const std::string& dir) {
  std::ifstream f(dir + "/manifest.txt");
  INFO("fixture folder " << dir << " (run ctest, or tools/gen_fixtures.py --out DIR)");
  REQUIRE(f.good());
  std::vector<ManifestEntry> entries;
  std::string kind, name;
  int index;
  while (f >> kind >> index >> name) entries.push_back({kind == "input", index, name});
  REQUIRE(!entries.empty());
  return entries;
}

// MGC_GENERATED_FIXTURES (env) overrides the build folder CTest fills.
std::string generatedFixturesDir() {
  const char* env = std::getenv("MGC_GENERATED_FIXTURES");
  return env && *env ? env : MGC_GENERATED_FIXTURES;
}

mgb::npy::Array loadNpy(const std::string& path) {
  mgb::npy::Array a;
  std::string err;
  bool ok = mgb::npy::readFile(path, &a, &err);
  INFO(path << ": " << err);
  REQUIRE(ok);
  return a;
}

std::string runtimeError(const char* call, mgrt_status s) {
  return std::string(call) + ": " + mgrt_status_string(s) + ": " + mgrt_last_error();
}

#define REQUIRE_MGRT(call)                              \
  do {                                                  \
    mgrt_status status_ = (call);                       \
    INFO(runtimeError(#call, status_));                 \
    REQUIRE(status_ == MGRT_OK);                        \
  } while (0)

struct ContextDeleter {
  void operator()(mgrt_context* c) const { mgrt_context_destroy(c); }
};
struct ModelDeleter {
  void operator()(mgrt_model* m) const { mgrt_model_destroy(m); }
};
struct SessionDeleter {
  void operator()(mgrt_session* s) const { mgrt_session_destroy(s); }
};

struct OutputError {
  std::string name;
  double normalized = 0;  // max|got-want| / max(max|want|, 1e-6); inf on NaN or Inf
  double maxAbsWant = 0;
};

OutputError compareOutput(const std::string& name, const std::vector<float>& got, const mgb::npy::Array& want) {
  const float* w = reinterpret_cast<const float*>(want.data.data());
  double maxDiff = 0, maxWant = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double d = std::fabs(double(got[i]) - double(w[i]));
    if (!std::isfinite(got[i])) d = INFINITY;  // NaN would compare false below
    maxDiff = std::max(maxDiff, d);
    maxWant = std::max(maxWant, std::fabs(double(w[i])));
  }
  return {name, maxDiff / std::max(maxWant, 1e-6), maxWant};
}

// Compiles, runs and checks one fixture (every output within `tolerance`,
// the metric above); returns the compile report (JSON).
std::string runFixture(const std::string& model, const std::string& dir, const mgc::CompileOptions& compileOpts = {},
                       double tolerance = kMaxNormalizedError) {
  const std::vector<ManifestEntry> manifest = readManifest(dir);

  std::vector<uint8_t> bundle;
  std::string report;
  try {
    mgc::CompileResult r = mgc::compileFile(dir + "/model.onnx", compileOpts);
    bundle = std::move(r.bundle);
    report = std::move(r.reportJson);
  } catch (const std::exception& e) {
    FAIL("compile " << model << ": " << e.what());
  }
  REQUIRE(!bundle.empty());

  mgrt_context_options opts{-1, 1, 0};
  mgrt_context* rawCtx = nullptr;
  REQUIRE_MGRT(mgrt_context_create(&opts, &rawCtx));
  std::unique_ptr<mgrt_context, ContextDeleter> ctx(rawCtx);
  std::vector<OutputError> errors;
  {
    mgrt_model* rawModel = nullptr;
    REQUIRE_MGRT(mgrt_model_load(ctx.get(), bundle.data(), bundle.size(), &rawModel));
    std::unique_ptr<mgrt_model, ModelDeleter> m(rawModel);
    mgrt_session* rawSession = nullptr;
    REQUIRE_MGRT(mgrt_session_create(m.get(), "infer", &rawSession));
    std::unique_ptr<mgrt_session, SessionDeleter> s(rawSession);

    for (const ManifestEntry& e : manifest) {
      if (!e.isInput) continue;
      mgb::npy::Array in = loadNpy(dir + "/input_" + std::to_string(e.index) + ".npy");
      REQUIRE(in.dtype == mgb::npy::DType::F32);
      REQUIRE_MGRT(mgrt_session_set_input(s.get(), e.name.c_str(), in.data.data(), in.data.size()));
    }
    REQUIRE_MGRT(mgrt_session_run(s.get()));
    for (const ManifestEntry& e : manifest) {
      if (e.isInput) continue;
      mgb::npy::Array want = loadNpy(dir + "/output_" + std::to_string(e.index) + ".npy");
      REQUIRE(want.dtype == mgb::npy::DType::F32);
      std::vector<float> got(want.data.size() / sizeof(float));
      REQUIRE_MGRT(mgrt_session_get_output(s.get(), e.name.c_str(), got.data(), got.size() * sizeof(float)));
      errors.push_back(compareOutput(e.name, got, want));
    }
  }  // session and model destroyed: teardown is validated too

  for (const OutputError& e : errors) {
    std::printf("model %-13s output %-8s worst normalized error %.3e (max|ref| %.3g)\n", model.c_str(),
                e.name.c_str(), e.normalized, e.maxAbsWant);
    std::fflush(stdout);
    INFO(model << " output " << e.name);
    CHECK(e.normalized <= tolerance);
  }
  CHECK(mgrt_context_validation_messages(ctx.get()) == 0);
  return report;
}

}  // namespace

TEST_CASE("mlp 784-256-128-10 matches PyTorch", "[models]") {
  runFixture("mlp", std::string(MGC_COMMITTED_FIXTURES) + "/mlp");
}

TEST_CASE("pre-norm transformer encoder matches PyTorch", "[models]") {
  runFixture("transformer", std::string(MGC_COMMITTED_FIXTURES) + "/transformer");
}

// The accelerated mode (--precision, ir/matmul.h): every tiled product of
// the encoder rounds its operands to fp16 / bf16 (8 and 11 bits fewer
// mantissa than f32) and sums in f32; outputs stay within 10x the error
// measured when this was written (fp16 2.0e-4, bf16 1.4e-3; fp32 2.4e-7) of
// PyTorch's fp32, and the report shows the reduced-precision kernels ran.
TEST_CASE("pre-norm transformer encoder in the accelerated mode stays near PyTorch fp32", "[models]") {
  for (auto [precision, kernel, tolerance] : {std::tuple{mgc::MatMulPrecision::F16, "matmul_f16", 2e-3},
                                              std::tuple{mgc::MatMulPrecision::BF16, "matmul_bf16", 1e-2}}) {
    INFO("precision " << mgc::precisionName(precision));
    mgc::CompileOptions opts;
    opts.precision = precision;
    const std::string report = runFixture(std::string("transformer ") + mgc::precisionName(precision),
                                          std::string(MGC_COMMITTED_FIXTURES) + "/transformer", opts, tolerance);
    const nlohmann::json j = nlohmann::json::parse(report);
    int reduced = 0;
    for (const auto& d : j["dispatches"]) reduced += d["kernel"] == kernel;
    CHECK(reduced >= 4);  // the encoder's projections and MLP
  }
}

TEST_CASE("resnet18 matches PyTorch", "[models][generated]") {
  runFixture("resnet18", generatedFixturesDir() + "/resnet18");
}

// The accelerated mode's convolutions (Conv{precision="fp16"}:
// conv2d_f16_splitk): every implicit-GEMM conv of ResNet-18 but the 7x7 stem
// (147 weights per channel: not whole vec4s) rounds x and w to fp16; the
// logits stay within ~6x the error measured when this was written
// (1.7e-3: twenty layers of rounded activations) of PyTorch's fp32.
TEST_CASE("resnet18 in the accelerated mode stays near PyTorch fp32", "[models][generated]") {
  mgc::CompileOptions opts;
  opts.precision = mgc::MatMulPrecision::F16;
  const nlohmann::json j = nlohmann::json::parse(
      runFixture("resnet18 fp16", generatedFixturesDir() + "/resnet18", opts, 1e-2));
  int reduced = 0;
  for (const auto& d : j["dispatches"]) reduced += d["kernel"] == "conv2d_f16_splitk";
  CHECK(reduced == 19);  // 20 convs (16 3x3, 3 1x1 downsamples, the stem), the stem in f32
}

TEST_CASE("RMSNorm in three exported spellings: one fused dispatch each, matches PyTorch", "[models][generated]") {
  nlohmann::json report = nlohmann::json::parse(runFixture("rms_norms", generatedFixturesDir() + "/rms_norms"));
  std::vector<std::string> kernels;
  for (const auto& d : report.at("dispatches")) kernels.push_back(d.at("kernel").get<std::string>());
  CHECK(kernels == std::vector<std::string>{"layernorm", "layernorm", "layernorm"});
}

TEST_CASE("mobilenet_v2 matches PyTorch", "[models][generated]") {
  runFixture("mobilenet_v2", generatedFixturesDir() + "/mobilenet_v2");
}

TEST_CASE("attention in three exported spellings: one fused dispatch each, matches PyTorch", "[models][generated]") {
  // nn.MultiheadAttention over 70 positions (batch 8) and causal GQA self-attention
  // over 40 (attention_tiled24: grids of few blocks), cross-attention of 20
  // queries with a mask input (attention); no scores tensor, no softmax.
  nlohmann::json report = nlohmann::json::parse(runFixture("attentions", generatedFixturesDir() + "/attentions"));
  std::map<std::string, int> kernels;
  for (const auto& d : report.at("dispatches")) ++kernels[d.at("kernel").get<std::string>()];
  CHECK(kernels["attention_tiled24"] == 2);
  CHECK(kernels["attention"] == 1);
  CHECK(kernels.count("softmax") == 0);
}

// The accelerated mode's attention (Attention{precision="fp16"}:
// attention_f16): the batch-8 nn.MultiheadAttention (64 workgroups of 64
// rows) rounds q, k, v and its weights to fp16; the two smaller grids stay
// f32. Every output stays within ~5x the error measured when this was
// written (6.1e-4) of PyTorch's fp32.
TEST_CASE("attention in the accelerated mode stays near PyTorch fp32", "[models][generated]") {
  mgc::CompileOptions opts;
  opts.precision = mgc::MatMulPrecision::F16;
  nlohmann::json report = nlohmann::json::parse(
      runFixture("attentions fp16", generatedFixturesDir() + "/attentions", opts, 3e-3));
  std::map<std::string, int> kernels;
  for (const auto& d : report.at("dispatches")) ++kernels[d.at("kernel").get<std::string>()];
  CHECK(kernels["attention_f16"] == 1);
  CHECK(kernels["attention_tiled24"] == 1);
  CHECK(kernels["attention"] == 1);
}
