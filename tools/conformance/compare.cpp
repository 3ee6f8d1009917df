#include "tools/conformance/compare.h"

#include <cmath>
#include <sstream>

namespace mgc::conformance {

namespace {

bool floatClose(double got, double want, const Tolerance& tol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  if (!std::isfinite(got)) return false;
  return std::fabs(got - want) <= tol.atol + tol.rtol * std::fabs(want);
}

}  // namespace

CompareResult compareTensors(const HostTensor& got, const HostTensor& want, const Tolerance& tol) {
  CompareResult r;
  if (got.type.shape != want.type.shape) {
    r.ok = false;
    r.message = "shape " + shapeStr(got.type.shape) + ", expected " + shapeStr(want.type.shape);
    return r;
  }
  const bool exact = !isFloat(want.type.dtype);
  int64_t firstBad = -1;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const bool same = exact ? got.getI(i) == want.getI(i) : floatClose(got.getF(i), want.getF(i), tol);
    if (same) continue;
    if (firstBad < 0) firstBad = i;
    ++r.mismatches;
  }
  if (r.mismatches == 0) return r;
  r.ok = false;
  std::ostringstream msg;
  msg.precision(9);
  msg << r.mismatches << " of " << want.numel() << " elements differ; first at flat index " << firstBad
      << ": got ";
  if (exact)
    msg << got.getI(firstBad) << ", expected " << want.getI(firstBad);
  else
    msg << got.getF(firstBad) << ", expected " << want.getF(firstBad);
  r.message = msg.str();
  return r;
}

}  // namespace mgc::conformance
