// Checkpoints: save → a fresh model → load gives the same next losses,
// bit for bit, as an uninterrupted run; truncated or mismatched checkpoints
// are refused with a message naming the tensor and leave the state as it was.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "compiler/driver.h"
#include "formats/safetensors.h"
#include "test_train_util.h"

using namespace mgc;
using namespace mgc::test;

namespace {

std::vector<uint8_t> mlpBundle() {
  TrainOptions to;
  to.optimizer.kind = OptimizerKind::AdamW;
  to.optimizer.lr = 1e-2;
  to.optimizer.weightDecay = 0.05;
  to.optimizer.schedule = LrSchedule::Cosine;
  to.optimizer.warmup = 3;
  to.optimizer.totalSteps = 20;
  to.optimizer.clipNorm = 1.0;
  return compileTraining(loadTrainableModel(fixture("mlp.onnx")), "mlp", to).compile.bundle;
}

std::vector<uint8_t> readAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

void writeAll(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

}  // namespace

TEST_CASE("training resumes bit-exactly from a checkpoint", "[training][checkpoint]") {
  const std::vector<uint8_t> bundle = mlpBundle();
  mgb::npy::Array x = loadNpy(fixture("mlp_x.npy")), labels = loadNpy(fixture("mlp_labels.npy"));
  const std::string path = "build-test-ckpt.safetensors";

  std::vector<float> uninterrupted;
  {
    TrainModel a(bundle);
    a.steps(x, labels, 0, 10);
    REQUIRE(mgrt_model_save_state(a.model, path.c_str()) == MGRT_OK);
    uninterrupted = a.steps(x, labels, 10, 10);
  }
  TrainModel b(bundle);
  REQUIRE(mgrt_model_load_state(b.model, path.c_str()) == MGRT_OK);
  CHECK(b.state("opt.step") == std::vector<float>{10.0f});
  std::vector<float> resumed = b.steps(x, labels, 10, 10);
  CHECK(resumed == uninterrupted);  // bit-exact
  std::remove(path.c_str());
}

TEST_CASE("truncated or mismatched checkpoints are refused, naming the tensor", "[training][checkpoint]") {
  const std::vector<uint8_t> bundle = mlpBundle();
  TrainModel m(bundle);
  const std::string good = "build-test-good.safetensors", bad = "build-test-bad.safetensors";
  REQUIRE(mgrt_model_save_state(m.model, good.c_str()) == MGRT_OK);
  std::vector<uint8_t> bytes = readAll(good);
  safetensors::Header h;
  std::string err;
  REQUIRE(safetensors::parseHeader(bytes.data(), bytes.size(), &h, &err));
  const std::vector<float> before = m.state("fc1.weight");

  SECTION("truncated") {
    const safetensors::TensorInfo* last = &h.tensors.back();
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + std::ptrdiff_t(h.dataOffset + last->end - 4));
    writeAll(bad, cut);
    CHECK(mgrt_model_load_state(m.model, bad.c_str()) == MGRT_INVALID_ARGUMENT);
    std::string msg = mgrt_last_error();
    CHECK(msg.find("'" + last->name + "'") != std::string::npos);
    CHECK(msg.find("truncated") != std::string::npos);
  }
  SECTION("a tensor with another shape") {
    std::vector<safetensors::TensorData> ts;
    std::vector<float> zeros(1000, 0.0f);
    for (const auto& t : h.tensors) {
      std::vector<int64_t> shape = t.shape;
      if (t.name == "fc2.weight") shape = {5, 15};
      uint64_t n = 1;
      for (int64_t d : shape) n *= uint64_t(d);
      ts.push_back({t.name, "F32", shape, zeros.data(), n * 4});
    }
    writeAll(bad, safetensors::serialize(ts, {}));
    CHECK(mgrt_model_load_state(m.model, bad.c_str()) == MGRT_INVALID_ARGUMENT);
    CHECK(std::string(mgrt_last_error()).find("'fc2.weight'") != std::string::npos);
  }
  SECTION("a missing tensor") {
    std::vector<safetensors::TensorData> ts;
    for (const auto& t : h.tensors)
      if (t.name != "opt.step") ts.push_back({t.name, t.dtype, t.shape, bytes.data() + h.dataOffset + t.begin, t.end - t.begin});
    writeAll(bad, safetensors::serialize(ts, {}));
    CHECK(mgrt_model_load_state(m.model, bad.c_str()) == MGRT_INVALID_ARGUMENT);
    CHECK(std::string(mgrt_last_error()).find("'opt.step'") != std::string::npos);
  }
  SECTION("garbage") {
    writeAll(bad, {1, 2, 3});
    CHECK(mgrt_model_load_state(m.model, bad.c_str()) == MGRT_INVALID_ARGUMENT);
  }
  CHECK(m.state("fc1.weight") == before);  // nothing was written
  std::remove(good.c_str());
  std::remove(bad.c_str());
}

TEST_CASE("a checkpoint write replaces the file atomically", "[training][checkpoint]") {
  TrainModel m(mlpBundle());
  const std::string path = "build-test-atomic.safetensors";
  writeAll(path, {'o', 'l', 'd'});
  REQUIRE(mgrt_model_save_state(m.model, path.c_str()) == MGRT_OK);
  std::vector<uint8_t> bytes = readAll(path);
  safetensors::Header h;
  std::string err;
  CHECK(safetensors::parseHeader(bytes.data(), bytes.size(), &h, &err));
  CHECK(h.tensors.size() == size_t(mgrt_model_state_count(m.model)));
  // A path in a missing folder fails cleanly and leaves nothing behind.
  CHECK(mgrt_model_save_state(m.model, "no-such-dir/x.safetensors") == MGRT_IO_ERROR);
  std::remove(path.c_str());
}
