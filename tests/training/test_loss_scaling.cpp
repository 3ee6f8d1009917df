// Dynamic loss scaling (OptimizerOptions::lossScale, docs/precision.md), on
// the device: scaling by a power of two changes nothing in f32 (every
// gradient is exactly scale times the unscaled one and is unscaled exactly),
// a step whose gradients hold an inf or NaN is skipped (parameters, moments
// and the step counter as they were) and halves the scale, and finite steps
// in a row double it. Fixture: the MLP of test_train_parity.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "compiler/driver.h"
#include "test_train_util.h"

using namespace mgc;
using namespace mgc::test;

namespace {

OptimizerOptions optimizer(OptimizerKind kind, double lossScale, int64_t interval = 2000) {
  OptimizerOptions o;
  o.kind = kind;
  o.lr = kind == OptimizerKind::Sgd ? 0.05 : 1e-2;
  o.momentum = kind == OptimizerKind::Sgd ? 0.9 : 0.0;
  o.weightDecay = 0.01;
  o.lossScale = lossScale;
  o.lossScaleInterval = interval;
  return o;
}

std::vector<uint8_t> bundle(const OptimizerOptions& o) {
  TrainOptions to;
  to.optimizer = o;
  return compileTraining(loadTrainableModel(fixture("mlp.onnx")), "mlp", to).compile.bundle;
}

const char* const kParams[] = {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"};

}  // namespace

TEST_CASE("loss scaling by a power of two trains exactly as without it", "[training][loss_scale]") {
  mgb::npy::Array x = loadNpy(fixture("mlp_x.npy")), labels = loadNpy(fixture("mlp_labels.npy"));
  for (OptimizerKind kind : {OptimizerKind::Sgd, OptimizerKind::AdamW}) {
    INFO((kind == OptimizerKind::Sgd ? "sgd" : "adamw"));
    TrainModel plain(bundle(optimizer(kind, 0))), scaled(bundle(optimizer(kind, 65536)));
    CHECK(plain.steps(x, labels, 0, 8) == scaled.steps(x, labels, 0, 8));
    for (const char* p : kParams) {
      INFO(p);
      CHECK(plain.state(p) == scaled.state(p));
    }
    CHECK(scaled.state("opt.loss_scale") == std::vector<float>{65536.0f});
    CHECK(scaled.state("opt.loss_scale.good_steps") == std::vector<float>{8.0f});
    CHECK(scaled.state("opt.step") == plain.state("opt.step"));
  }
}

TEST_CASE("a step with an inf or NaN gradient is skipped and halves the scale; finite steps double it",
          "[training][loss_scale]") {
  mgb::npy::Array x = loadNpy(fixture("mlp_x.npy")), labels = loadNpy(fixture("mlp_labels.npy"));
  REQUIRE(x.dtype == mgb::npy::DType::F32);
  for (OptimizerKind kind : {OptimizerKind::Sgd, OptimizerKind::AdamW}) {
    INFO((kind == OptimizerKind::Sgd ? "sgd" : "adamw"));
    TrainModel m(bundle(optimizer(kind, 1024, /*interval=*/2)));
    TrainModel reference(bundle(optimizer(kind, 0)));
    // Batch 1's first element is inf: its loss and gradients are not finite.
    mgrt_tensor_info xi;
    REQUIRE(mgrt_session_input_info(m.train, 0, &xi) == MGRT_OK);
    mgb::npy::Array poisoned = x;
    REQUIRE(poisoned.data.size() >= 2 * xi.bytes);
    reinterpret_cast<float*>(poisoned.data.data())[xi.bytes / 4] = std::numeric_limits<float>::infinity();
    // Step 0 is clean: the scale stays (1 finite step of the 2 that double it).
    m.steps(poisoned, labels, 0, 1);
    reference.steps(x, labels, 0, 1);
    CHECK(m.state("opt.loss_scale") == std::vector<float>{1024.0f});
    std::map<std::string, std::vector<float>> before;
    for (const char* p : kParams) before[p] = m.state(p);
    // Step 1 overflows: nothing moves, the counter stays, the scale halves.
    std::vector<float> loss = m.steps(poisoned, labels, 1, 1);
    CHECK(!std::isfinite(loss[0]));
    for (const char* p : kParams) {
      INFO(p);
      CHECK(m.state(p) == before[p]);
    }
    CHECK(m.state("opt.step") == std::vector<float>{1.0f});
    CHECK(m.state("opt.loss_scale") == std::vector<float>{512.0f});
    CHECK(m.state("opt.loss_scale.good_steps") == std::vector<float>{0.0f});
    // The next steps are the reference's steps 1 and 2 (the skipped batch is
    // dropped): the same losses, and two finite steps double the scale.
    std::vector<float> next = m.steps(x, labels, 2, 2), want = reference.steps(x, labels, 2, 2);
    CHECK(next == want);
    for (const char* p : kParams) {
      INFO(p);
      CHECK(m.state(p) == reference.state(p));
    }
    CHECK(m.state("opt.step") == std::vector<float>{3.0f});
    CHECK(m.state("opt.loss_scale") == std::vector<float>{1024.0f});
    CHECK(m.state("opt.loss_scale.good_steps") == std::vector<float>{0.0f});
  }
}
