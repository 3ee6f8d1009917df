// The training loop behind `mgc train` and `mgc demo`: a training bundle
// (entry points train_step + infer, see compiler/driver_train.h) driven
// through libmgrt's C API, exactly as an app would, over in-memory data.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/include/mgrt.h"

namespace mgc {

// One column of samples per bundle input: `rows` samples of `rowBytes` bytes
// each in `dtype` (the input's external dtype).
struct Column {
  std::string name;
  mgrt_dtype dtype = MGRT_F32;
  std::vector<uint8_t> data;
  size_t rowBytes = 0;
};

struct Samples {
  std::vector<Column> columns;  // by bundle input name
  int64_t rows = 0;
};

struct TrainLoopOptions {
  int epochs = 1;
  int64_t maxSteps = -1;  // stop after this global step (counting resumed ones); -1: no limit
  uint64_t seed = 0;
  bool shuffle = true;
  std::string checkpoint;  // saved at the end of every epoch and at the end
  bool resume = false;     // load `checkpoint` first and continue from its step
  std::string logCsv;      // step,epoch,loss,accuracy per step
  bool progress = true;    // progress line on stderr
};

struct TrainLoopResult {
  int64_t steps = 0;        // steps run by this call
  int64_t globalStep = 0;   // value of opt.step at the end
  double lastLoss = 0, lastEpochAccuracy = -1;
  std::vector<float> losses;  // of every step run
  double samplesPerSecond = 0;
  double testAccuracy = -1;  // when a test set was given
};

class Trainer {
 public:
  Trainer() = default;
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  // Loads the bundle and creates a session per entry point. "" on success,
  // else the message; *exitCode gets the CLI exit code.
  std::string open(const std::string& bundlePath, int device, int* exitCode);

  // Train-step inputs: the last is the target (labels), the others the model's.
  const std::vector<mgrt_tensor_info>& trainInputs() const { return trainInputs_; }
  const std::vector<mgrt_tensor_info>& inferInputs() const { return inferInputs_; }
  int64_t batch() const;  // first axis of the train step's first input
  std::string deviceName() const;

  std::string train(const Samples& data, const TrainLoopOptions& o, TrainLoopResult* r, int* exitCode);
  // Accuracy of argmax(infer output 0) against integer labels over `data`
  // (the infer inputs' columns); the last partial batch is padded.
  std::string evaluate(const Samples& data, const std::vector<int64_t>& labels, double* accuracy, int* exitCode);

  mgrt_model* model() const { return model_; }
  mgrt_session* trainSession() const { return trainSession_; }

 private:
  std::string fail(mgrt_status s, const std::string& what, int* exitCode) const;
  mgrt_context* ctx_ = nullptr;
  mgrt_model* model_ = nullptr;
  mgrt_session* trainSession_ = nullptr;
  mgrt_session* inferSession_ = nullptr;
  std::vector<mgrt_tensor_info> trainInputs_, inferInputs_;
};

size_t dtypeBytes(mgrt_dtype t);

}  // namespace mgc

namespace idx {
struct Dataset;
}

namespace mgc {

// "fashion-mnist" / "mnist" → Debian's dataset folder; anything else is a folder.
std::string datasetDir(const std::string& name);
// An IDX dataset as columns for `inputs`: the images go to the (f32) model
// inputs; with `withTarget`, the last input gets the labels.
std::string datasetColumns(const idx::Dataset& d, const std::vector<mgrt_tensor_info>& inputs, bool withTarget,
                           Samples* out);

}  // namespace mgc
