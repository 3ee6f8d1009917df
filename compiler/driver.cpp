// The driver: import → graph passes → lowering → memory plan → schedule →
// bundle. Each phase is timed for the report. Lowering and bundle building
// live in bundle_builder.cpp (shared with driver_train.cpp).
#include "compiler/driver.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/onnx/import.h"
#include "compiler/bundle_builder.h"
#include "compiler/report.h"
#include "passes/pipeline.h"

namespace mgc {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(path + ": cannot open file");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

Graph loadModel(const std::string& path) {
  if (endsWith(path, ".mgir")) return parseGraph(readFile(path), path);
  return importOnnx(path);
}

void runGraphPipeline(Graph& g, const std::string& source, const CompileOptions& opts,
                      std::vector<PhaseTime>* phases, const std::string& phaseSuffix) {
  for (const Pass& pass : graphPipeline()) {
    auto t0 = Clock::now();
    try {
      pass.run(g);
    } catch (const Error& e) {
      throw Error(source + ": pass '" + pass.name + "': " + e.what());
    }
    if (phases) phases->push_back({pass.name + phaseSuffix, msSince(t0)});
    if (opts.printIrAfterAll)
      std::fprintf(stderr, "// ----- IR after %s%s -----\n%s\n", pass.name, phaseSuffix.c_str(), printGraph(g, true).c_str());
  }
}

namespace {

CompileResult compileImpl(Graph g, const std::string& source, const CompileOptions& opts,
                          std::vector<PhaseTime> phases) {
  CompileResult result;
  result.phases = std::move(phases);
  ReportBuilder report(source);
  report.recordImportedOps(g);

  runGraphPipeline(g, source, opts, &result.phases);

  // Lowering, memory plan, schedule, bundle (shared with compileTraining).
  BundleBuilder builder(source, &report);
  builder.addEntryPoint("infer", g, &result.phases);
  result.bundle = builder.finish(&result.phases);

  report.recordPhases(result.phases);
  result.reportJson = report.json();
  result.summary = report.summary();
  return result;
}

}  // namespace

CompileResult compileGraph(Graph g, const std::string& source, const CompileOptions& opts) {
  return compileImpl(std::move(g), source, opts, {});
}

CompileResult compileFile(const std::string& path, const CompileOptions& opts) {
  auto t0 = Clock::now();
  Graph g = loadModel(path);
  return compileImpl(std::move(g), path, opts, {{"import", msSince(t0)}});
}

}  // namespace mgc
