// Helpers for the reference-evaluator tests: build tensors, run one op
// through evalGraph, compare results.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/eval.h"

namespace evaltest {

using mgc::Attrs;
using mgc::DType;
using mgc::HostTensor;
using mgc::Op;
using mgc::Shape;
using mgc::numel;

// A tensor of `dtype` filled from doubles (stored with setF) or int64s (setI).
HostTensor tensor(DType dtype, const Shape& shape, const std::vector<double>& values);
HostTensor itensor(DType dtype, const Shape& shape, const std::vector<int64_t>& values);
// Deterministic pseudo-random values in [lo, hi) (own generator: portable).
HostTensor randomTensor(DType dtype, const Shape& shape, uint32_t seed, double lo = -2.0, double hi = 2.0);

// Marks an absent optional input in run(): rank 0 with no data.
extern const HostTensor kAbsent;

// Builds a graph with one graph input per tensor, one node, and runs it
// through evalGraph (so both entry points are exercised).
HostTensor run(Op op, const std::vector<HostTensor>& inputs, Attrs attrs = {});

std::vector<double> values(const HostTensor& t);
std::vector<int64_t> ivalues(const HostTensor& t);

// Elementwise |got - want| <= atol + rtol * |want| (NaN matches NaN); fails
// with the first mismatching index.
void checkClose(const HostTensor& got, const std::vector<double>& want, double rtol = 1e-6, double atol = 1e-6);
void checkExact(const HostTensor& got, const std::vector<int64_t>& want);

// Row-major multi-index helpers for independent reference loops.
std::vector<int64_t> unravel(int64_t index, const Shape& shape);
int64_t ravel(const std::vector<int64_t>& coord, const Shape& shape);

}  // namespace evaltest
