// Dropout in training mode: the dropout_mask op (statistics, determinism,
// GPU == CPU reference bit for bit), the importer's marker, and an MLP with
// Dropout trained end to end (loss falls, infer is deterministic and
// dropout-free, a checkpoint resumes bit-exactly).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "compiler/driver.h"
#include "compiler/frontends.h"
#include "ir/eval.h"
#include "test_train_util.h"

using namespace mgc;
using namespace mgc::test;

namespace {

// A graph: %step (f32 scalar input) → dropout_mask → output.
Graph maskGraph(double ratio, int64_t seed, const Shape& shape) {
  Graph g;
  g.name = "mask";
  ValueId step = g.addInput("step", TensorType{DType::F32, {}});
  NodeId n = g.addNode(Op::DropoutMask, "mask", {step}, {{"ratio", ratio}, {"seed", seed}, {"shape", shape}});
  g.outputs = g.nodes[size_t(n)].outputs;
  return g;
}

HostTensor evalMask(const Graph& g, float step) {
  HostTensor s(TensorType{DType::F32, {}});
  s.setF(0, step);
  return evalNode(g, g.nodes[0], {&s}).at(0);
}

double zeroFraction(const HostTensor& m) {
  int64_t zeros = 0;
  for (int64_t i = 0; i < m.numel(); ++i) zeros += m.getF(i) == 0.0;
  return double(zeros) / double(m.numel());
}

double mean(const HostTensor& m) {
  double sum = 0;
  for (int64_t i = 0; i < m.numel(); ++i) sum += m.getF(i);
  return sum / double(m.numel());
}

double differingFraction(const HostTensor& a, const HostTensor& b) {
  int64_t diff = 0;
  for (int64_t i = 0; i < a.numel(); ++i) diff += a.getF(i) != b.getF(i);
  return double(diff) / double(a.numel());
}

TrainOptions adam(uint64_t seed = 0) {
  TrainOptions to;
  to.optimizer.kind = OptimizerKind::Adam;
  to.optimizer.lr = 1e-2;
  to.seed = seed;
  return to;
}

std::vector<float> runInfer(mgrt_model* model, const mgb::npy::Array& x, int batch) {
  mgrt_session* s = nullptr;
  REQUIRE(mgrt_session_create(model, "infer", &s) == MGRT_OK);
  mgrt_tensor_info xi, yi;
  REQUIRE(mgrt_session_input_info(s, 0, &xi) == MGRT_OK);
  REQUIRE(mgrt_session_output_info(s, 0, &yi) == MGRT_OK);
  REQUIRE(mgrt_session_set_input(s, xi.name, x.data.data() + size_t(batch) * xi.bytes, xi.bytes) == MGRT_OK);
  if (mgrt_session_run(s) != MGRT_OK) FAIL("infer: " << mgrt_last_error());
  std::vector<float> y(yi.bytes / 4);
  REQUIRE(mgrt_session_get_output(s, yi.name, y.data(), yi.bytes) == MGRT_OK);
  mgrt_session_destroy(s);
  return y;
}

}  // namespace

TEST_CASE("dropout_mask: drop rate, scale, and one mask per (seed, step)", "[dropout]") {
  for (double ratio : {0.5, 0.2}) {
    INFO("ratio " << ratio);
    Graph g = maskGraph(ratio, 11, {100, 100});
    HostTensor m0 = evalMask(g, 0.0f), m1 = evalMask(g, 1.0f);
    // 10,000 Bernoulli draws: the standard deviation of the zero fraction is
    // at most 0.005; 0.03 is six of them.
    CHECK(std::fabs(zeroFraction(m0) - ratio) < 0.03);
    CHECK(std::fabs(zeroFraction(m1) - ratio) < 0.03);
    CHECK(std::fabs(mean(m0) - 1.0) < 0.06);
    const float keep = float(1.0 / (1.0 - ratio));
    for (int64_t i = 0; i < m0.numel(); ++i) REQUIRE((m0.getF(i) == 0.0 || m0.getF(i) == double(keep)));
    // Same step: same mask (a resumed run redraws it exactly); another step
    // or seed: an independent one (two masks differ where exactly one drops:
    // 2 r (1 - r) of the elements).
    const double independent = 2 * ratio * (1 - ratio);
    CHECK(evalMask(g, 1.0f).data == m1.data);
    CHECK(std::fabs(differingFraction(m0, m1) - independent) < 0.03);
    CHECK(std::fabs(differingFraction(m1, evalMask(maskGraph(ratio, 12, {100, 100}), 1.0f)) - independent) < 0.03);
  }
  HostTensor none = evalMask(maskGraph(0.0, 5, {1000}), 3.0f);
  CHECK(zeroFraction(none) == 0.0);
  CHECK(mean(none) == 1.0);
}

TEST_CASE("dropout_mask refuses a ratio outside [0, 1) and a bad step", "[dropout]") {
  CHECK_THROWS_WITH(maskGraph(1.0, 0, {4}), Catch::Contains("ratio must be in [0, 1)"));
  Graph g;
  ValueId step = g.addInput("step", TensorType{DType::F32, {1}});
  CHECK_THROWS_WITH(g.addNode(Op::DropoutMask, "m", {step}, {{"ratio", 0.5}, {"shape", Shape{4}}}),
                    Catch::Contains("step must be an f32 scalar"));
}

TEST_CASE("dropout_mask on the GPU equals the CPU reference bit for bit", "[dropout][gpu]") {
  Graph g = maskGraph(0.3, 123456789, {7, 1001});
  std::vector<uint8_t> bundle = compileGraph(g, "mask").bundle;
  mgrt_model* model = nullptr;
  mgrt_session* s = nullptr;
  REQUIRE(mgrt_model_load(gpu(), bundle.data(), bundle.size(), &model) == MGRT_OK);
  REQUIRE(mgrt_session_create(model, "infer", &s) == MGRT_OK);
  mgrt_tensor_info yi;
  REQUIRE(mgrt_session_output_info(s, 0, &yi) == MGRT_OK);
  std::vector<uint8_t> previous;
  for (float step : {0.0f, 1.0f, 2.0f, 1000.0f, 16777216.0f}) {
    INFO("step " << step);
    REQUIRE(mgrt_session_set_input(s, "step", &step, 4) == MGRT_OK);
    REQUIRE(mgrt_session_run(s) == MGRT_OK);
    std::vector<uint8_t> got(yi.bytes);
    REQUIRE(mgrt_session_get_output(s, yi.name, got.data(), got.size()) == MGRT_OK);
    HostTensor ref = evalMask(g, step);
    REQUIRE(got.size() == ref.data.size());
    CHECK(std::memcmp(got.data(), ref.data.data(), got.size()) == 0);
    CHECK(got != previous);
    previous = got;
  }
  mgrt_session_destroy(s);
  mgrt_model_destroy(model);
}

TEST_CASE("training imports keep Dropout as a marker; inference imports drop it", "[dropout][onnx]") {
  auto markers = [](const Graph& g) {
    int k = 0;
    for (const Node& n : g.nodes)
      if (n.op == Op::Identity && n.attrs.count("dropout_ratio")) {
        ++k;
        CHECK(n.f("dropout_ratio") == 0.5);
      }
    return k;
  };
  CHECK(markers(loadTrainableModel(fixture("mlp_dropout.onnx"))) == 1);
  // Inference: a training-mode Dropout is still refused, as before.
  CHECK_THROWS_WITH(importModel(fixture("mlp_dropout.onnx")), Catch::Contains("training_mode"));
  TrainingProgram p = buildTrainingProgram(loadTrainableModel(fixture("mlp_dropout.onnx")), adam());
  CHECK(p.dropouts == 1);
  CHECK(markers(p.infer) == 0);
  int masks = 0;
  for (const Node& n : p.trainStep.nodes) masks += n.op == Op::DropoutMask;
  CHECK(masks == 1);
}

TEST_CASE("an MLP with Dropout trains, infers without dropout and resumes bit-exactly", "[dropout][training]") {
  TrainCompileResult r = compileTraining(loadTrainableModel(fixture("mlp_dropout.onnx")), "mlp_dropout", adam());
  mgb::npy::Array x = loadNpy(fixture("mlp_x.npy")), labels = loadNpy(fixture("mlp_labels.npy"));
  const std::string path = "build-test-dropout.safetensors";
  // Learnable targets (the fixture's labels are random): the class is the
  // argmax of the first 5 features.
  const float* xs = reinterpret_cast<const float*>(x.data.data());
  REQUIRE(labels.data.size() == 160 * 8);
  for (size_t row = 0; row < 160; ++row) {
    int64_t best = 0;
    for (int64_t c = 1; c < 5; ++c)
      if (xs[row * 20 + size_t(c)] > xs[row * 20 + size_t(best)]) best = c;
    std::memcpy(labels.data.data() + row * 8, &best, 8);
  }

  TrainModel a(r.compile.bundle);
  // infer before any step: the plain MLP on the initial weights.
  const std::vector<float> w1 = a.state("fc1.weight"), b1 = a.state("fc1.bias");
  const std::vector<float> w2 = a.state("fc2.weight"), b2 = a.state("fc2.bias");
  const std::vector<float> y0 = runInfer(a.model, x, 0);
  REQUIRE(y0.size() == 8 * 5);
  double worst = 0;
  for (int row = 0; row < 8; ++row) {
    std::vector<double> h(32);
    for (int j = 0; j < 32; ++j) {
      double v = b1[size_t(j)];
      for (int k = 0; k < 20; ++k) v += double(xs[row * 20 + k]) * w1[size_t(j * 20 + k)];
      h[size_t(j)] = std::max(v, 0.0);
    }
    for (int c = 0; c < 5; ++c) {
      double v = b2[size_t(c)];
      for (int j = 0; j < 32; ++j) v += h[size_t(j)] * w2[size_t(c * 32 + j)];
      worst = std::max(worst, std::fabs(v - double(y0[size_t(row * 5 + c)])));
    }
  }
  CHECK(worst < 1e-4);
  CHECK(runInfer(a.model, x, 0) == y0);  // deterministic

  // Four epochs over the 20 batches; the loss falls despite the noise.
  std::vector<float> losses;
  for (int epoch = 0; epoch < 3; ++epoch) {
    std::vector<float> l = a.steps(x, labels, 0, 20);
    losses.insert(losses.end(), l.begin(), l.end());
  }
  std::vector<float> more = a.steps(x, labels, 0, 10);
  REQUIRE(mgrt_model_save_state(a.model, path.c_str()) == MGRT_OK);
  std::vector<float> uninterrupted = a.steps(x, labels, 10, 10);
  losses.insert(losses.end(), more.begin(), more.end());
  losses.insert(losses.end(), uninterrupted.begin(), uninterrupted.end());
  double first = 0, last = 0;
  for (int k = 0; k < 5; ++k) first += losses[size_t(k)], last += losses[losses.size() - 1 - size_t(k)];
  INFO("first 5 losses sum " << first << ", last 5 " << last);
  CHECK(last < 0.6 * first);
  CHECK(a.state("opt.step") == std::vector<float>{80.0f});
  CHECK(runInfer(a.model, x, 3) == runInfer(a.model, x, 3));

  TrainModel b(r.compile.bundle);
  REQUIRE(mgrt_model_load_state(b.model, path.c_str()) == MGRT_OK);
  CHECK(b.steps(x, labels, 10, 10) == uninterrupted);  // bit-exact: same masks
  std::remove(path.c_str());

  // The mask really is random per seed: another --seed, other losses; the
  // same seed, the same bundle.
  TrainModel c(compileTraining(loadTrainableModel(fixture("mlp_dropout.onnx")), "mlp_dropout", adam(1)).compile.bundle);
  CHECK(c.steps(x, labels, 0, 5) != std::vector<float>(losses.begin(), losses.begin() + 5));
  CHECK(compileTraining(loadTrainableModel(fixture("mlp_dropout.onnx")), "mlp_dropout", adam()).compile.bundle ==
        r.compile.bundle);
}
