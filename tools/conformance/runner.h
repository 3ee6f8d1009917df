// Runs one ONNX backend test (model.onnx + test_data_set_0) through mgc:
// compile → load on the shared mgrt context → run "infer" → compare.
#pragma once

#include <string>
#include <vector>

#include "runtime/include/mgrt.h"
#include "tools/conformance/compare.h"
#include "tools/conformance/isolated_compile.h"

namespace mgc::conformance {

struct TestCase {
  std::string category;  // "node", "pytorch-converted", ...
  std::string name;      // "test_abs"
  std::string dir;       // folder holding model.onnx and test_data_set_0/
};

enum class Status { Passed, Failed, Unsupported };
const char* statusName(Status s);

struct TestResult {
  TestCase test;
  Status status = Status::Failed;
  std::string stage;   // where it ended: compile, inputs, load, session, run, outputs, compare, validation
  std::string reason;  // empty when passed
  bool crashed = false;  // the compiler child died (signal, timeout, sanitizer)
  std::vector<std::string> boundInputs;  // run-time inputs compiled in as constants (bind_inputs.h)
  double ms = 0;
};

// Every test folder (holding model.onnx) of the given categories under
// root, sorted by category order then name.
std::vector<TestCase> discoverTests(const std::string& root, const std::vector<std::string>& categories);

struct RunnerOptions {
  Tolerance tolerance;
  bool isolateCompile = true;
  int compileTimeoutSeconds = 120;
  // Inputs mgc needs as constants are bound from the test data (bind_inputs.h).
  bool bindConstantInputs = true;
};

class Runner {
 public:
  // ctx may be null: then tests stop after compiling ("compile-only").
  Runner(mgrt_context* ctx, RunnerOptions opts) : ctx_(ctx), opts_(opts) {}
  TestResult run(const TestCase& test);

 private:
  void execute(const TestCase& test, TestResult* r);
  CompileOutcome compile(const TestCase& test, TestResult* r);
  mgrt_context* ctx_;
  RunnerOptions opts_;
};

}  // namespace mgc::conformance
