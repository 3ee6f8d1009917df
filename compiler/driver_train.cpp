// The training driver: training program (passes/training.h) → the graph
// pipeline over each entry point → one bundle (bundle_builder.h).
#include "compiler/driver_train.h"

#include <chrono>
#include <cstdio>

#include "compiler/bundle_builder.h"
#include "compiler/ir/parser.h"
#include "compiler/onnx/import.h"
#include "compiler/report.h"

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

TrainCompileResult compileImpl(Graph forward, const std::string& source, const TrainOptions& train,
                               const CompileOptions& opts, std::vector<PhaseTime> phases) {
  TrainCompileResult r;
  r.compile.phases = std::move(phases);
  ReportBuilder report(source);
  report.recordImportedOps(forward);

  auto t0 = Clock::now();
  try {
    r.program = buildTrainingProgram(forward, train);
  } catch (const Error& e) {
    throw Error(source + ": " + e.what());
  }
  r.compile.phases.push_back({"training-program", msSince(t0)});

  runGraphPipeline(r.program.trainStep, source + " (train_step)", opts, &r.compile.phases, ":train_step");
  runGraphPipeline(r.program.infer, source + " (infer)", opts, &r.compile.phases, ":infer");

  BundleBuilder builder(source, &report);
  builder.addEntryPoint("train_step", r.program.trainStep, &r.compile.phases);
  builder.addEntryPoint("infer", r.program.infer, &r.compile.phases);
  r.compile.bundle = builder.finish(&r.compile.phases);
  const EntryPointStats& ts = builder.stats()[0];
  r.trainPeakBytes = ts.activationBytes;
  r.trainNaiveBytes = ts.naiveActivationBytes;
  r.inferPeakBytes = builder.stats()[1].activationBytes;
  r.stateBytes = builder.stateBytes();

  report.recordPhases(r.compile.phases);
  r.compile.reportJson = report.json();
  std::string summary = report.summary();
  while (!summary.empty() && summary.back() == '\n') summary.pop_back();
  r.compile.summary = summary + "\n  training: " + std::to_string(r.program.parameters.size()) +
                      " parameters" +
                      (r.program.frozen.empty() ? "" : " (" + std::to_string(r.program.frozen.size()) + " frozen)") +
                      ", state " + mib(r.stateBytes) + "; train_step " + std::to_string(ts.dispatches) +
                      " dispatches, activations peak " + mib(r.trainPeakBytes) + " (no reuse: " +
                      mib(r.trainNaiveBytes) + ")";
  return r;
}

}  // namespace

Graph loadTrainableModel(const std::string& path) {
  if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".mgir") == 0) return loadModel(path);
  ImportOptions io;
  io.keepParameters = true;
  return importOnnx(path, io);
}

TrainCompileResult compileTraining(Graph forward, const std::string& source, const TrainOptions& train,
                                   const CompileOptions& opts) {
  return compileImpl(std::move(forward), source, train, opts, {});
}

TrainCompileResult compileTrainingFile(const std::string& path, const TrainOptions& train,
                                       const CompileOptions& opts) {
  auto t0 = Clock::now();
  Graph g = loadTrainableModel(path);
  return compileImpl(std::move(g), path, train, opts, {{"import", msSince(t0)}});
}

}  // namespace mgc
