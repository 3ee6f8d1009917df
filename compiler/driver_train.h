// compileTraining: a forward model → a training bundle with two entry points
// over shared state: "train_step" (inputs: the model's inputs + labels;
// outputs: loss, prediction; updates parameters, optimizer moments, running
// statistics and the step counter) and "infer" (the model as it was).
// A thin layer over compileProgram (driver.h): it builds the two entry
// points and adds the training line to the summary.
#pragma once

#include <string>

#include "compiler/driver.h"
#include "passes/program/training.h"

namespace mgc {

struct TrainCompileResult {
  CompileResult compile;
  TrainingProgram program;  // the graphs after the pass pipeline
  uint64_t trainPeakBytes = 0;   // activations arena of train_step (planned)
  uint64_t trainNaiveBytes = 0;  // the same with one buffer per tensor
  uint64_t inferPeakBytes = 0;
  uint64_t stateBytes = 0;
};

// importModel for training (frontends.h): ONNX parameters are kept as named
// constants (FrontendOptions::keepParameters) instead of being folded into
// their users.
Graph loadTrainableModel(const std::string& path);

TrainCompileResult compileTraining(Graph forward, const std::string& source, const TrainOptions& train,
                                   const CompileOptions& opts = {});
TrainCompileResult compileTrainingFile(const std::string& path, const TrainOptions& train,
                                       const CompileOptions& opts = {});

}  // namespace mgc
