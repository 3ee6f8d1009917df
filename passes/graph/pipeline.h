// The pass pipeline: the ordered list of named stages every compile runs.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/matmul.h"

namespace mgc {

struct Pass {
  const char* name;  // as in --print-ir-after=NAME and the report
  std::function<void(Graph&)> run;
};

// The graph-level pipeline in order: verify → const-fold → canonicalize →
// canonicalize-patterns → const-fold → conv1x1-grads → fuse-conv-epilogue → fuse-prologue →
// split-long-rows → fuse-state-write → fuse-attention-cache → fuse-elementwise → dce (the list in
// pipeline.cpp is the truth). Program
// builders (passes/program/) run before it on new entry points; memory
// planning and scheduling (passes/plan/) after lowering, from the driver.
const std::vector<Pass>& graphPipeline();

// Passes outside the pipeline, run only when named (`mgc opt --pass NAME`)
// or by a compile option: mark-precision-fp16 / -bf16 (--precision).
const std::vector<Pass>& optionalPasses();

// A graph pass by name (as in `mgc opt --pass NAME`), from the pipeline or
// the optional ones, or null.
const Pass* findPass(const std::string& name);

// The pass that marks products for `--precision p` (null for F32).
const Pass* precisionPass(MatMulPrecision p);

}  // namespace mgc
