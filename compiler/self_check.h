// The bundle's self-check (mgc compile --embed-check; mgb.fbs Check):
// deterministic reference inputs for one entry point and the outputs the CPU
// reference evaluator (ir/eval.h) computes for them on the final graph, the
// one the bundle's kernels were lowered from. mgc verify and
// mgrt_model_verify run the inputs on a device and compare.
#pragma once

#include <string>

#include "formats/bundle_writer.h"
#include "ir/graph.h"

namespace mgc {

// Default tolerance: |got - want| <= tol * max(1, |want|) per element.
constexpr double kDefaultCheckTolerance = 1e-3;

// Why the graph cannot carry a check ("" when it can): an entry point that
// reads or writes state would give a result that depends on, or changes,
// the model's state.
std::string selfCheckRefusal(const Graph& g);

// The reference inputs: per input (seeded by its index, reproducible),
// floats uniform in [-1, 1); an integer input used as an index (Gather,
// GatherElements, ScatterElements, StateWrite's offset, also through
// Reshape, Transpose, Slice, Expand, Concat, Cast, Identity) uniform in
// [0, the smallest bound of its uses), other integers in [1, 8), bools 0/1.
std::map<std::string, HostTensor> referenceInputs(const Graph& g);

// Inputs, reference outputs and tolerance of the entry point `name` (a
// graph after the pass pipeline, no state). Throws mgc::Error naming
// `source` when the evaluator cannot run it.
mgb::CheckEntry makeSelfCheck(const Graph& g, const std::string& name, double tolerance, const std::string& source);

}  // namespace mgc
