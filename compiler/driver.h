// The compiler driver: file in, bundle bytes and report out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace mgc {

struct CompileOptions {
  bool printIrAfterAll = false;  // print IR to stderr after every pass
  bool verifyEachPass = true;
};

struct PhaseTime {
  std::string name;
  double ms;
};

struct CompileResult {
  std::vector<uint8_t> bundle;        // the .mgb file image
  std::vector<PhaseTime> phases;      // time per compile phase
  std::string reportJson;             // machine-readable report (see docs/cli.md)
  std::string summary;                // short human summary
};

// Loads an ONNX model (.onnx) or text IR (.mgir) by extension/magic.
Graph loadModel(const std::string& path);

// Runs the pass pipeline, lowers to kernels, plans memory, writes a bundle.
// `source` names the model in messages and the report.
CompileResult compileGraph(Graph g, const std::string& source, const CompileOptions& opts = {});
CompileResult compileFile(const std::string& path, const CompileOptions& opts = {});

// The graph pass pipeline (passes/pipeline.h) over g, each pass timed into
// `phases` (name + phaseSuffix). Errors name `source` and the pass.
void runGraphPipeline(Graph& g, const std::string& source, const CompileOptions& opts,
                      std::vector<PhaseTime>* phases, const std::string& phaseSuffix = "");

}  // namespace mgc
