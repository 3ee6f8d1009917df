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

// The folder's tokenizer.json or tokenizer.model (checked) and stop ids,
// for the bundle.
void attachTokenizer(const std::string& dir, Program* p) {
  CheckpointTokenizer t = readCheckpointTokenizer(dir);
  p->tokenizer = std::move(t.json);
  p->tokenizerModel = std::move(t.model);
  p->eosTokenIds = std::move(t.eosTokenIds);
}

// --embed-check: the first entry point's check, or a warning saying why it
// cannot have one (the bundle is still written, without a check).
void embedSelfCheck(const Program& p, const CompileOptions& opts, BundleBuilder* builder, CompileResult* r) {
  auto t0 = Clock::now();
  const EntryPoint& e = p.entryPoints.front();
  if (std::string why = selfCheckRefusal(e.graph); !why.empty()) {
    r->warnings.push_back("--embed-check: entry point '" + e.name + "' gets no self-check: " + why +
                          "; the bundle carries none");
  } else {
    mgb::CheckEntry c = makeSelfCheck(e.graph, e.name, opts.checkTolerance, p.source);
    uint64_t bytes = 0;
    for (const auto* list : {&c.inputs, &c.outputs})
      for (const std::vector<uint8_t>& d : *list) bytes += d.size();
    char line[160];
    std::snprintf(line, sizeof line, "  check: entry point '%s', %zu inputs, %zu outputs, %llu bytes, tolerance %g\n",
                  e.name.c_str(), c.inputs.size(), c.outputs.size(), (unsigned long long)bytes, c.tolerance);
    r->summary += line;
    builder->setCheck(std::move(c));
  }
  r->phases.push_back({"embed-check", msSince(t0)});
}

}  // namespace

void runGraphPipeline(Graph& g, const std::string& source, const CompileOptions& opts,
                      std::vector<PhaseTime>* phases, const std::string& phaseSuffix) {
  runPasses(g, graphPipeline(), source, opts, phases, phaseSuffix);
  if (const Pass* p = precisionPass(opts.precision)) runPasses(g, {*p}, source, opts, phases, phaseSuffix);
}

void runPasses(Graph& g, const std::vector<Pass>& passes, const std::string& source, const CompileOptions& opts,
               std::vector<PhaseTime>* phases, const std::string& phaseSuffix) {
  for (const Pass& pass : passes) {
    if (opts.disabledPasses.count(pass.name) && std::string(pass.name) != "verify") continue;
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
  builder.setSpecializeKernels(opts.specializeKernels);
  for (const EntryPoint& e : program.entryPoints) builder.addEntryPoint(e.name, e.graph, &r.compile.phases);
  builder.setTokenizer(std::move(program.tokenizer), std::move(program.tokenizerModel), std::move(program.eosTokenIds));
  if (opts.embedCheck) embedSelfCheck(program, opts, &builder, &r.compile);
  mgb::BundleImage image = builder.finish(&r.compile.phases, opts.assembleBundle);
  if (opts.assembleBundle) r.compile.bundle = std::move(image.bytes);
  else r.compile.pieces = std::move(image);
  r.stats = builder.stats();
  r.stateBytes = builder.stateBytes();
  r.entryPoints = std::move(program.entryPoints);

  report.recordPhases(r.compile.phases);
  r.compile.reportJson = report.json();
  r.compile.summary = report.summary() + r.compile.summary;  // + the check line, if any
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
