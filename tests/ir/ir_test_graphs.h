// Graphs for the IR tests, built through the Graph API (not text), so the
// printer and parser are tested against an independent construction.
#pragma once

#include "ir/graph.h"

namespace mgc::testing {

// One node of every op in the op table, with valid inputs and attributes.
Graph graphWithEveryOp();

// A constant of every dtype, with edge values (nan, inf, -0, denormals,
// extremes), in list, splat and hex form.
Graph graphWithEveryDType();

// A constant of `type` filled with a deterministic pattern.
HostTensor patternTensor(const TensorType& type, uint32_t seed);

}  // namespace mgc::testing
