#include "test_train_util.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>

#include "formats/safetensors.h"

namespace mgc::test {

mgrt_context* gpu() {
  struct Holder {
    mgrt_context* ctx = nullptr;
    Holder() {
      const char* v = std::getenv("MGRT_VALIDATION");
      mgrt_context_options opts{-1, v && *v == '1' ? 1 : 0, 0};
      if (mgrt_context_create(&opts, &ctx) != MGRT_OK) FAIL("mgrt_context_create: " << mgrt_last_error());
    }
    ~Holder() { mgrt_context_destroy(ctx); }
  };
  static Holder holder;
  return holder.ctx;
}

std::string fixture(const std::string& name) { return std::string(MGC_TRAIN_FIXTURES) + "/" + name; }

mgb::npy::Array loadNpy(const std::string& path) {
  mgb::npy::Array a;
  std::string err;
  if (!mgb::npy::readFile(path, &a, &err)) FAIL(path << ": " << err);
  return a;
}

std::map<std::string, std::vector<float>> loadSafetensorsF32(const std::string& path) {
  std::vector<uint8_t> bytes;
  std::string err;
  safetensors::Header h;
  if (!safetensors::readFile(path, &bytes, &err) || !safetensors::parseHeader(bytes.data(), bytes.size(), &h, &err))
    FAIL(path << ": " << err);
  std::map<std::string, std::vector<float>> out;
  for (const auto& t : h.tensors) {
    REQUIRE(t.dtype == "F32");
    std::vector<float> v((t.end - t.begin) / 4);
    std::memcpy(v.data(), bytes.data() + h.dataOffset + t.begin, v.size() * 4);
    out[t.name] = std::move(v);
  }
  return out;
}

TrainModel::TrainModel(const std::vector<uint8_t>& bundle) {
  if (mgrt_model_load(gpu(), bundle.data(), bundle.size(), &model) != MGRT_OK) FAIL("load: " << mgrt_last_error());
  if (mgrt_session_create(model, "train_step", &train) != MGRT_OK) FAIL("session: " << mgrt_last_error());
}

TrainModel::~TrainModel() {
  mgrt_session_destroy(train);
  mgrt_model_destroy(model);
}

std::vector<float> TrainModel::steps(const mgb::npy::Array& x, const mgb::npy::Array& labels, int first, int count) {
  mgrt_tensor_info xi, li;
  REQUIRE(mgrt_session_input_info(train, 0, &xi) == MGRT_OK);
  REQUIRE(mgrt_session_input_info(train, 1, &li) == MGRT_OK);
  std::vector<float> losses;
  for (int s = first; s < first + count; ++s) {
    REQUIRE(x.data.size() >= (s + 1) * xi.bytes);
    REQUIRE(mgrt_session_set_input(train, xi.name, x.data.data() + s * xi.bytes, xi.bytes) == MGRT_OK);
    REQUIRE(mgrt_session_set_input(train, li.name, labels.data.data() + s * li.bytes, li.bytes) == MGRT_OK);
    if (mgrt_session_run(train) != MGRT_OK) FAIL("run: " << mgrt_last_error());
    float loss = 0;
    REQUIRE(mgrt_session_get_output(train, "loss", &loss, 4) == MGRT_OK);
    losses.push_back(loss);
  }
  return losses;
}

std::vector<float> TrainModel::state(const std::string& name) {
  for (int i = 0; i < mgrt_model_state_count(model); ++i) {
    mgrt_tensor_info info;
    REQUIRE(mgrt_model_state_info(model, i, &info) == MGRT_OK);
    if (name != info.name) continue;
    std::vector<float> v(info.bytes / 4);
    REQUIRE(mgrt_model_read_state(model, info.name, v.data(), info.bytes) == MGRT_OK);
    return v;
  }
  FAIL("no state tensor " << name);
  return {};
}

}  // namespace mgc::test
