// Output comparison with the tolerances of ONNX's own backend tests
// (numpy.testing.assert_allclose(rtol=1e-3, atol=1e-7 .. 1e-4)): floats pass
// when |got - want| <= atol + rtol * |want| (NaN matches NaN, infinities must
// match exactly); integers and bools must be equal.
#pragma once

#include <string>

#include "ir/types.h"

namespace mgc::conformance {

struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-4;
};

struct CompareResult {
  bool ok = true;
  int64_t mismatches = 0;
  std::string message;  // empty when ok; else names the first bad element
};

CompareResult compareTensors(const HostTensor& got, const HostTensor& want, const Tolerance& tol);

}  // namespace mgc::conformance
