// The driver: import → graph passes (per entry point) → lowering → memory
// plan → schedule → bundle. Each phase is timed for the report. Lowering
// and bundle building live in bundle_builder.cpp.
#include "compiler/driver.h"

#include "compiler/checkpoint_tokenizer.h"

#include <chrono>
#include <cstdio>
#include <set>

#include "compiler/frontends.h"
#include "compiler/hf/import.h"
#include "ir/printer.h"
#include "compiler/report.h"
#include "passes/graph/passes.h"

namespace mgc {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// The folder's tokenizer.json (checked) and stop ids, for the bundle.
void attachTokenizer(const std::string& dir, Program* p) {
  CheckpointTokenizer t = readCheckpointTokenizer(dir);
  p->tokenizer = std::move(t.json);
  p->eosTokenIds = std::move(t.eosTokenIds);
}

}  // namespace

void runGraphPipeline(Graph& g, const std::string& source, const CompileOptions& opts,
                      std::vector<PhaseTime>* phases, const std::string& phaseSuffix) {
  runPasses(g, graphPipeline(), source, opts, phases, phaseSuffix);
}

void runPasses(Graph& g, const std::vector<Pass>& passes, const std::string& source, const CompileOptions& opts,
               std::vector<PhaseTime>* phases, const std::string& phaseSuffix) {
  for (const Pass& pass : passes) {
    auto t0 = Clock::now();
    try {
      pass.run(g);
      if (opts.verifyEachPass) verifyGraph(g);
    } catch (const Error& e) {
      throw Error(source + ": pass '" + pass.name + "': " + e.what());
    }
    if (phases) phases->push_back({pass.name + phaseSuffix, msSince(t0)});
    if (opts.printIrAfterAll)
      std::fprintf(stderr, "// ----- IR after %s%s -----\n%s\n", pass.name, phaseSuffix.c_str(), printGraph(g, true).c_str());
  }
}

ProgramResult compileProgram(Program program, const CompileOptions& opts, const Graph* imported) {
  if (program.entryPoints.empty()) throw Error(program.source + ": the program has no entry point");
  std::set<std::string> names;
  for (const EntryPoint& e : program.entryPoints)
    if (!names.insert(e.name).second) throw Error(program.source + ": entry point '" + e.name + "' is defined twice");

  ProgramResult r;
  r.compile.phases = std::move(program.phases);
  ReportBuilder report(program.source);
  report.recordImportedOps(imported ? *imported : program.entryPoints.front().graph);

  // One entry point keeps the plain names ("model.onnx", "const-fold") that
  // single-model compiles have always reported.
  const bool qualify = program.entryPoints.size() > 1;
  for (EntryPoint& e : program.entryPoints)
    runGraphPipeline(e.graph, qualify ? program.source + " (" + e.name + ")" : program.source, opts, &r.compile.phases,
                     qualify ? ":" + e.name : "");

  BundleBuilder builder(program.source, &report);
  for (const EntryPoint& e : program.entryPoints) builder.addEntryPoint(e.name, e.graph, &r.compile.phases);
  builder.setTokenizer(std::move(program.tokenizer), std::move(program.eosTokenIds));
  r.compile.bundle = builder.finish(&r.compile.phases);
  r.stats = builder.stats();
  r.stateBytes = builder.stateBytes();
  r.entryPoints = std::move(program.entryPoints);

  report.recordPhases(r.compile.phases);
  r.compile.reportJson = report.json();
  r.compile.summary = report.summary();
  return r;
}

CompileResult compileGraph(Graph g, const std::string& source, const CompileOptions& opts) {
  Program p{source, {}, {}};
  p.entryPoints.push_back({"infer", std::move(g)});
  return compileProgram(std::move(p), opts).compile;
}

CompileResult compileFile(const std::string& path, const CompileOptions& opts) {
  auto t0 = Clock::now();
  Program p{path, {}, {}};
  p.entryPoints.push_back({"infer", importModel(path, opts.frontend)});
  if (hf::isCheckpointDir(path)) attachTokenizer(path, &p);
  p.phases.push_back({"import", msSince(t0)});
  return compileProgram(std::move(p), opts).compile;
}

CompileResult compileGenerationFile(const std::string& dir, int64_t maxSeq, int64_t chunk, const CompileOptions& opts) {
  if (!hf::isCheckpointDir(dir))
    throw Error(dir + ": a generation bundle (--max-seq) is built from a Hugging Face checkpoint folder (config.json + "
                      "safetensors)");
  auto t0 = Clock::now();
  hf::GenerationGraphs gg = hf::importCheckpointForGeneration(dir, maxSeq, chunk, opts.frontend.linear);
  Program p{dir, {}, {}};
  attachTokenizer(dir, &p);
  p.phases.push_back({"import", msSince(t0)});
  p.entryPoints.push_back({"prefill", std::move(gg.prefill)});
  p.entryPoints.push_back({"decode", std::move(gg.decode)});
  return compileProgram(std::move(p), opts).compile;
}

}  // namespace mgc
