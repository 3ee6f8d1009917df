// Helpers for the training tests: compile a training bundle, run steps of
// train_step through the C API, read state.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/driver_train.h"
#include "formats/npy.h"
#include "runtime/include/mgrt.h"

namespace mgc::test {

mgrt_context* gpu();  // one context per test process (validation per MGRT_VALIDATION)

std::string fixture(const std::string& name);
mgb::npy::Array loadNpy(const std::string& path);
std::map<std::string, std::vector<float>> loadSafetensorsF32(const std::string& path);

// A loaded training bundle with a train_step session.
struct TrainModel {
  mgrt_model* model = nullptr;
  mgrt_session* train = nullptr;
  explicit TrainModel(const std::vector<uint8_t>& bundle);
  ~TrainModel();
  TrainModel(const TrainModel&) = delete;
  TrainModel& operator=(const TrainModel&) = delete;
  // Runs steps [first, first + count) over batches of x / labels in order
  // (batch b = rows b*B .. b*B+B-1); returns each step's loss.
  std::vector<float> steps(const mgb::npy::Array& x, const mgb::npy::Array& labels, int first, int count);
  std::vector<float> state(const std::string& name);
};

}  // namespace mgc::test
