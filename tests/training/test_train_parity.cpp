// Step parity with PyTorch 1.13: 20 steps of SGD (momentum 0.9, weight decay
// 1e-3) and AdamW (lr 1e-2, weight decay 0.05) on an MLP and on a small CNN
// with BatchNorm (training mode). Same loss sequence and final state
// (parameters and running statistics) within 1e-4 relative.
// Fixtures: tools/gen_train_fixtures.py.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "compiler/driver.h"
#include "test_train_util.h"

using namespace mgc;
using namespace mgc::test;

namespace {

OptimizerOptions optimizer(const std::string& name) {
  OptimizerOptions o;
  if (name == "sgd") {
    o.kind = OptimizerKind::Sgd;
    o.lr = 0.05;
    o.momentum = 0.9;
    o.weightDecay = 1e-3;
  } else {
    o.kind = OptimizerKind::AdamW;
    o.lr = 1e-2;
    o.weightDecay = 0.05;
  }
  return o;
}

// max |a - b| / max |b|: relative to the tensor's scale.
double relError(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double diff = 0, scale = 1e-12;
  for (size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::fabs(double(a[i]) - double(b[i])));
    scale = std::max(scale, std::fabs(double(b[i])));
  }
  return diff / scale;
}

void checkParity(const std::string& model, const std::string& opt) {
  TrainOptions to;
  to.optimizer = optimizer(opt);
  TrainCompileResult r = compileTraining(loadTrainableModel(fixture(model + ".onnx")), model, to);
  TrainModel m(r.compile.bundle);
  mgb::npy::Array x = loadNpy(fixture(model + "_x.npy")), labels = loadNpy(fixture(model + "_labels.npy"));
  mgb::npy::Array expected = loadNpy(fixture(model + "_" + opt + "_losses.npy"));
  const int steps = int(expected.data.size() / 4);
  std::vector<float> losses = m.steps(x, labels, 0, steps);
  const float* want = reinterpret_cast<const float*>(expected.data.data());
  double worstLoss = 0, worstState = 0;
  for (int s = 0; s < steps; ++s) worstLoss = std::max(worstLoss, double(std::fabs(losses[size_t(s)] - want[s]) / std::fabs(want[s])));
  for (int s = 0; s < steps; ++s) {
    INFO(model << " " << opt << " step " << s << ": mgc " << losses[size_t(s)] << " vs PyTorch " << want[s]);
    CHECK(std::fabs(losses[size_t(s)] - want[s]) <= 1e-4 * std::fabs(want[s]));
  }
  for (const auto& [name, values] : loadSafetensorsF32(fixture(model + "_" + opt + "_final.safetensors"))) {
    double e = relError(m.state(name), values);
    worstState = std::max(worstState, e);
    INFO(model << " " << opt << " final '" << name << "': relative error " << e);
    CHECK(e <= 1e-4);
  }
  std::printf("parity %s %s: %d steps, worst loss error %.2e, worst state error %.2e (relative)\n", model.c_str(),
              opt.c_str(), steps, worstLoss, worstState);
}

}  // namespace

TEST_CASE("step parity with PyTorch: MLP, SGD with momentum", "[training][parity]") { checkParity("mlp", "sgd"); }
TEST_CASE("step parity with PyTorch: MLP, AdamW", "[training][parity]") { checkParity("mlp", "adamw"); }
TEST_CASE("step parity with PyTorch: CNN + BatchNorm, SGD with momentum", "[training][parity]") {
  checkParity("cnn_bn", "sgd");
}
TEST_CASE("step parity with PyTorch: CNN + BatchNorm, AdamW", "[training][parity]") { checkParity("cnn_bn", "adamw"); }

TEST_CASE("a training bundle has train_step and infer over shared state", "[training]") {
  TrainOptions to;
  to.optimizer = optimizer("adamw");
  TrainCompileResult r = compileTraining(loadTrainableModel(fixture("mlp.onnx")), "mlp", to);
  TrainModel m(r.compile.bundle);
  REQUIRE(mgrt_model_entry_point_count(m.model) == 2);
  CHECK(std::string(mgrt_model_entry_point_name(m.model, 0)) == "train_step");
  CHECK(std::string(mgrt_model_entry_point_name(m.model, 1)) == "infer");
  // Parameters, both Adam moments per parameter, and the step counter.
  CHECK(mgrt_model_state_count(m.model) == 4 * 3 + 1);
  CHECK(r.trainPeakBytes > 0);
  CHECK(r.trainPeakBytes < r.trainNaiveBytes);

  // infer sees the weights train_step wrote: write a weight, infer changes.
  mgrt_session* infer = nullptr;
  REQUIRE(mgrt_session_create(m.model, "infer", &infer) == MGRT_OK);
  std::vector<float> x(8 * 20, 0.5f), y1(8 * 5), y2(8 * 5);
  REQUIRE(mgrt_session_set_input(infer, "x", x.data(), x.size() * 4) == MGRT_OK);
  REQUIRE(mgrt_session_run(infer) == MGRT_OK);
  REQUIRE(mgrt_session_get_output(infer, "logits", y1.data(), y1.size() * 4) == MGRT_OK);
  std::vector<float> bias = m.state("fc2.bias");
  bias[0] += 1.0f;
  REQUIRE(mgrt_model_write_state(m.model, "fc2.bias", bias.data(), bias.size() * 4) == MGRT_OK);
  REQUIRE(mgrt_session_run(infer) == MGRT_OK);
  REQUIRE(mgrt_session_get_output(infer, "logits", y2.data(), y2.size() * 4) == MGRT_OK);
  CHECK(y2[0] == Approx(y1[0] + 1.0f).epsilon(1e-5));
  CHECK(y2[1] == y1[1]);
  // Wrong size and unknown names are refused with a message.
  CHECK(mgrt_model_write_state(m.model, "fc2.bias", bias.data(), 4) == MGRT_INVALID_ARGUMENT);
  CHECK(std::string(mgrt_last_error()).find("fc2.bias") != std::string::npos);
  CHECK(mgrt_model_read_state(m.model, "nope", bias.data(), 4) == MGRT_INVALID_ARGUMENT);
  mgrt_session_destroy(infer);
}
