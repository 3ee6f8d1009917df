// mgrt_model_has_check / mgrt_model_verify: run the bundle's self-check
// (verified at load: verify_check.cpp) in a session of its own and compare
// every output with the reference the compiler stored.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "runtime/core/dtype.h"
#include "runtime/core/objects.h"
#include "runtime/core/status.h"

using namespace mgrt;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

template <class T>
T load(const uint8_t* data, uint64_t i) {
  T v;
  std::memcpy(&v, data + sizeof(T) * i, sizeof(T));  // the data has no alignment
  return v;
}

// Element i of `data` (external dtype t) as a double / as the integer it holds.
double floatAt(mgb::DType t, const uint8_t* data, uint64_t i) {
  switch (t) {
    case mgb::DType::F32:
      return load<float>(data, i);
    case mgb::DType::F64:
      return load<double>(data, i);
    case mgb::DType::F16:
      return halfToFloat(load<uint16_t>(data, i));
    default:
      return mgb::dtype::bf16ToFloat(load<uint16_t>(data, i));  // BF16, the last float type
  }
}

int64_t intAt(mgb::DType t, const uint8_t* data, uint64_t i) {
  const size_t w = externalElementSize(t);
  uint64_t bits = 0;
  std::memcpy(&bits, data + w * i, w);  // little-endian
  const bool isSigned = t == mgb::DType::I8 || t == mgb::DType::I16 || t == mgb::DType::I32 || t == mgb::DType::I64;
  if (isSigned && w < 8 && (bits >> (8 * w - 1)) & 1) bits |= ~uint64_t(0) << (8 * w);  // sign-extend
  return int64_t(bits);
}

struct Errors {
  double maxAbs = 0, maxRel = 0, worst = 0;
};

void addFloat(double want, double got, Errors* e) {
  if (std::isnan(want) || std::isnan(got) || std::isinf(want) || std::isinf(got)) {
    if ((std::isnan(want) && std::isnan(got)) || want == got) return;
    e->maxAbs = e->worst = kInf;
    return;
  }
  const double d = std::fabs(got - want);
  e->maxAbs = std::max(e->maxAbs, d);
  if (want != 0) e->maxRel = std::max(e->maxRel, d / std::fabs(want));
  e->worst = std::max(e->worst, d / std::max(1.0, std::fabs(want)));
}

void addInt(int64_t want, int64_t got, Errors* e) {
  if (want == got) return;
  const double d = std::fabs(double(got) - double(want));
  e->maxAbs = std::max(e->maxAbs, d);
  if (want != 0) e->maxRel = std::max(e->maxRel, d / std::fabs(double(want)));
  e->worst = kInf;  // integers must be exact
}

Errors compare(mgb::DType t, const uint8_t* want, const uint8_t* got, uint64_t numel) {
  Errors e;
  const bool isFloat = mgb::dtype::isFloat(shared(t));
  for (uint64_t i = 0; i < numel; ++i) {
    if (isFloat)
      addFloat(floatAt(t, want, i), floatAt(t, got, i), &e);
    else
      addInt(intAt(t, want, i), intAt(t, got, i), &e);
  }
  return e;
}

struct SessionGuard {
  mgrt_session* s = nullptr;
  ~SessionGuard() { mgrt_session_destroy(s); }
};

mgrt_status runCheck(mgrt_model* m, double tolerance, mgrt_verify_report* report, mgrt_check_output* outputs,
                     int capacity) {
  const mgb::Bundle& b = *m->bundle.manifest;
  const mgb::Check& c = *b.check();
  const mgb::EntryPoint& e = *checkEntryPoint(b);  // verified at load
  if (tolerance < 0 || std::isnan(tolerance)) tolerance = c.tolerance();
  SessionGuard session;
  MGRT_TRY(mgrt_session_create(m, e.name()->c_str(), &session.s));
  const uint32_t numIn = e.inputs() ? e.inputs()->size() : 0;
  for (uint32_t i = 0; i < numIn; ++i) {
    const mgb::Tensor& t = *b.tensors()->Get(e.inputs()->Get(i));
    const auto* data = c.inputs()->Get(i)->data();  // verified: the tensor's size
    const mgrt_status s =
        mgrt_session_set_input(session.s, t.name()->c_str(), data ? data->data() : nullptr, data ? data->size() : 0);
    if (s != MGRT_OK) return failMessage(s, "check input '" + t.name()->str() + "': " + lastError());
  }
  MGRT_TRY(mgrt_session_run(session.s));

  *report = mgrt_verify_report{e.name()->c_str(), tolerance, 0, 0, 0, 1};
  const uint32_t numOut = e.outputs() ? e.outputs()->size() : 0;
  std::vector<uint8_t> got;
  for (uint32_t i = 0; i < numOut; ++i) {
    const mgb::Tensor& t = *b.tensors()->Get(e.outputs()->Get(i));
    const auto* want = c.outputs()->Get(i)->data();
    const size_t bytes = want ? want->size() : 0;
    got.assign(std::max<size_t>(bytes, 1), 0);
    MGRT_TRY(mgrt_session_get_output(session.s, t.name()->c_str(), got.data(), bytes));
    const size_t width = externalElementSize(t.dtype());
    const Errors err = compare(t.dtype(), bytes ? want->data() : got.data(), got.data(), bytes / width);
    const int passed = err.worst <= tolerance ? 1 : 0;
    if (int(i) < capacity && outputs)
      outputs[i] = mgrt_check_output{t.name()->c_str(), err.maxAbs, err.maxRel, err.worst, passed};
    report->outputs++;
    report->failed_outputs += 1 - passed;
    report->worst_error = std::max(report->worst_error, err.worst);
  }
  report->passed = report->failed_outputs == 0 ? 1 : 0;
  return MGRT_OK;
}

}  // namespace

int mgrt_model_has_check(const mgrt_model* m) { return m && m->bundle.manifest->check() ? 1 : 0; }

mgrt_status mgrt_model_verify(mgrt_model* m, double tolerance, mgrt_verify_report* report, mgrt_check_output* outputs,
                              int capacity) {
  MGRT_API_GUARD({
    if (!m || !report || capacity < 0 || (capacity > 0 && !outputs))
      return fail(MGRT_INVALID_ARGUMENT, "mgrt_model_verify: null argument or negative capacity");
    if (!m->bundle.manifest->check())
      return fail(MGRT_INVALID_ARGUMENT,
                  "the bundle carries no self-check (compile it with mgc compile --embed-check)");
    return runCheck(m, tolerance, report, outputs, capacity);
  })
}
