// The training driver: training program (passes/program/training.h) → its two entry
// points → compileProgram (driver.h).
#include "compiler/driver_train.h"

#include <chrono>
#include <cstdio>

#include "compiler/frontends.h"

namespace mgc {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::string mib(uint64_t bytes) {
  char buf[32];
  if (bytes < (uint64_t(1) << 20)) std::snprintf(buf, sizeof buf, "%.1f KiB", double(bytes) / 1024.0);
  else std::snprintf(buf, sizeof buf, "%.2f MiB", double(bytes) / (1024.0 * 1024.0));
  return buf;
}

TrainCompileResult compileTrainingTimed(Graph forward, const std::string& source, const TrainOptions& train,
                                        const CompileOptions& opts, std::vector<PhaseTime> phases) {
  TrainCompileResult r;
  auto t0 = Clock::now();
  // fp16 products need loss scaling (docs/precision.md): on by default at
  // PyTorch GradScaler's initial scale.
  TrainOptions to = train;
  if (opts.precision == MatMulPrecision::F16 && to.optimizer.lossScale == 0) to.optimizer.lossScale = 65536.0;
  try {
    r.program = buildTrainingProgram(forward, to);
  } catch (const Error& e) {
    throw Error(source + ": " + e.what());
  }
  phases.push_back({"training-program", msSince(t0)});

  Program p{source, {}, std::move(phases)};
  p.entryPoints.push_back({"train_step", std::move(r.program.trainStep)});
  p.entryPoints.push_back({"infer", std::move(r.program.infer)});
  ProgramResult pr = compileProgram(std::move(p), opts, &forward);
  r.program.trainStep = std::move(pr.entryPoints[0].graph);
  r.program.infer = std::move(pr.entryPoints[1].graph);
  r.compile = std::move(pr.compile);
  const EntryPointStats& ts = pr.stats[0];
  r.trainPeakBytes = ts.activationBytes;
  r.trainNaiveBytes = ts.naiveActivationBytes;
  r.inferPeakBytes = pr.stats[1].activationBytes;
  r.stateBytes = pr.stateBytes;

  std::string& summary = r.compile.summary;
  while (!summary.empty() && summary.back() == '\n') summary.pop_back();
  summary += "\n  training: " + std::to_string(r.program.parameters.size()) + " parameters" +
             (r.program.frozen.empty() ? "" : " (" + std::to_string(r.program.frozen.size()) + " frozen)") +
             ", state " + mib(r.stateBytes) + "; train_step " + std::to_string(ts.dispatches) +
             " dispatches, activations peak " + mib(r.trainPeakBytes) + " (no reuse: " + mib(r.trainNaiveBytes) + ")";
  if (to.optimizer.lossScale > 0) {
    char line[96];
    std::snprintf(line, sizeof line, "; dynamic loss scaling from %g", to.optimizer.lossScale);
    summary += line;
  }
  summary += "\n";
  return r;
}

}  // namespace

Graph loadTrainableModel(const std::string& path) {
  FrontendOptions fo;
  fo.keepParameters = true;
  return importModel(path, fo);
}

TrainCompileResult compileTraining(Graph forward, const std::string& source, const TrainOptions& train,
                                   const CompileOptions& opts) {
  return compileTrainingTimed(std::move(forward), source, train, opts, {});
}

TrainCompileResult compileTrainingFile(const std::string& path, const TrainOptions& train,
                                       const CompileOptions& opts) {
  auto t0 = Clock::now();
  Graph g = loadTrainableModel(path);
  return compileTrainingTimed(std::move(g), path, train, opts, {{"import", msSince(t0)}});
}

}  // namespace mgc
