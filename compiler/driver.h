// The compiler driver: ONE compile path for a program of N entry points
// over shared state. compileProgram runs the graph pass pipeline over each
// entry point, then lowers, plans and writes them all into one bundle
// (bundle_builder.h), timing every phase for the report. The entry points
// come from a frontend (frontends.h) and, for training, from
// buildTrainingProgram (driver_train.h); language models are meant to add
// prefill + decode the same way.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "compiler/bundle_builder.h"
#include "compiler/frontends.h"
#include "ir/graph.h"
#include "compiler/phase_time.h"
#include "compiler/self_check.h"
#include "passes/graph/pipeline.h"

namespace mgc {

struct CompileOptions {
  bool printIrAfterAll = false;  // print IR to stderr after every pass
  bool verifyEachPass = false;   // run the verifier after every pass (--verify-each)
  FrontendOptions frontend;      // compileFile: how the frontend imports (--seq)
  // --embed-check: the first entry point's reference inputs and outputs go
  // into the bundle (compiler/self_check.h), with this tolerance.
  bool embedCheck = false;
  double checkTolerance = kDefaultCheckTolerance;
  // false: CompileResult::bundle stays empty and CompileResult::pieces holds
  // the file, its weights left in the compiled constants (`mgc compile`
  // writes them to the file from there: one copy of the weights fewer).
  bool assembleBundle = true;
  // Kernels that declare specialization constants get a copy per distinct
  // set of the params words they stand for (kernels/specialize.h); false:
  // one generic copy of each kernel (--no-specialize).
  bool specializeKernels = true;
  // --precision fp16|bf16: the accelerated mode (ir/matmul.h); F32 is
  // strict fp32, the default.
  MatMulPrecision precision = MatMulPrecision::F32;
  // --disable-pass NAME: pipeline passes not to run (an A/B of one
  // optimization; `verify` always runs).
  std::set<std::string> disabledPasses;
};

struct CompileResult {
  std::vector<uint8_t> bundle;        // the .mgb file image (empty: see CompileOptions::assembleBundle)
  mgb::BundleImage pieces;            // the file in pieces when not assembled
  std::vector<PhaseTime> phases;      // time per compile phase
  std::string reportJson;             // machine-readable report (see docs/cli.md)
  std::string summary;                // short human summary
  std::vector<std::string> warnings;  // for stderr (e.g. a check that could not be embedded)
};

struct EntryPoint {
  std::string name;  // "infer", "train_step", ...
  Graph graph;
};

struct Program {
  std::string source;                   // names the model in messages and the report
  std::vector<EntryPoint> entryPoints;  // in bundle order; names unique
  std::vector<PhaseTime> phases;        // time already spent (import, program building)
  std::string tokenizer = {};           // tokenizer.json text stored in the bundle, or empty
  std::string tokenizerModel = {};      // else a SentencePiece tokenizer.model's bytes, or empty
  std::vector<int64_t> eosTokenIds = {};  // stored with it: ids that end a generation
};

struct ProgramResult {
  CompileResult compile;
  std::vector<EntryPoint> entryPoints;  // after the pass pipeline
  std::vector<EntryPointStats> stats;   // per entry point, in order
  uint64_t stateBytes = 0;
};

// `imported` is the graph the report's "imported" census counts; null means
// the first entry point as given (a program that is the imported graph).
// With several entry points, messages name the entry point
// ("model.onnx (train_step): pass 'verify': ...") and its pass phases get a
// ":name" suffix.
ProgramResult compileProgram(Program program, const CompileOptions& opts = {}, const Graph* imported = nullptr);

// Convenience: one entry point, "infer".
CompileResult compileGraph(Graph g, const std::string& source, const CompileOptions& opts = {});
// importModel (frontends.h) + compileGraph, the import timed.
CompileResult compileFile(const std::string& path, const CompileOptions& opts = {});

// A Hugging Face checkpoint folder → a generation bundle: entry points
// prefill (chunk tokens) and decode (one token) over a KV cache of maxSeq
// positions (compiler/hf/import.h, docs/llm.md).
CompileResult compileGenerationFile(const std::string& dir, int64_t maxSeq, int64_t chunk,
                                    const CompileOptions& opts = {});

// The graph pass pipeline (passes/graph/pipeline.h) over g, each pass timed into
// `phases` (name + phaseSuffix). Errors name `source` and the pass. With
// opts.verifyEachPass the verifier runs after every pass, and a graph it
// rejects is reported as the fault of the pass that made it.
void runGraphPipeline(Graph& g, const std::string& source, const CompileOptions& opts,
                      std::vector<PhaseTime>* phases, const std::string& phaseSuffix = "");
// The same over any list of passes (runGraphPipeline: graphPipeline()).
void runPasses(Graph& g, const std::vector<Pass>& passes, const std::string& source, const CompileOptions& opts,
               std::vector<PhaseTime>* phases, const std::string& phaseSuffix = "");

}  // namespace mgc
