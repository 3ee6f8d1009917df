#include "tools/conformance/runner.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <set>

#include <unistd.h>

#include "onnx/onnx_pb.h"
#include "tools/conformance/bind_inputs.h"
#include "tools/conformance/isolated_compile.h"
#include "tools/conformance/tensor_proto.h"

namespace fs = std::filesystem;

namespace mgc::conformance {

const char* statusName(Status s) {
  switch (s) {
    case Status::Passed: return "passed";
    case Status::Failed: return "failed";
    case Status::Unsupported: return "unsupported";
  }
  return "?";
}

std::vector<TestCase> discoverTests(const std::string& root, const std::vector<std::string>& categories) {
  std::vector<TestCase> tests;
  for (const std::string& cat : categories) {
    fs::path dir = fs::path(root) / cat;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<TestCase> inCat;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (fs::exists(entry.path() / "model.onnx"))
        inCat.push_back({cat, entry.path().filename().string(), entry.path().string()});
    std::sort(inCat.begin(), inCat.end(), [](const TestCase& a, const TestCase& b) { return a.name < b.name; });
    tests.insert(tests.end(), inCat.begin(), inCat.end());
  }
  return tests;
}

namespace {

// A model outside what mgc handles is "unsupported", not "failed": the
// compiler says so ("unsupported", "not supported" op / dtype / attribute),
// or the model needs dynamic shapes (a symbolic dimension, or a shape-like
// input such as Reshape's shape fed at run time: "must be a constant"), or a
// non-tensor value (sequence, optional). Any other mgc::Error is a failure.
bool saysUnsupported(const std::string& message) {
  static const std::regex re("unsupported|not supported|dynamic|static shape|must be a constant|is not a tensor",
                             std::regex::icase);
  return std::regex_search(message, re);
}

// The runtime-visible interface of the ONNX graph: its non-initializer
// inputs and its outputs, in order (input_N.pb belongs to input N).
struct ModelIo {
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<bool> inputIsBf16, outputIsBf16;  // declared BFLOAT16
};

bool declaredBf16(const onnx::ValueInfoProto& v) {
  return v.type().has_tensor_type() && v.type().tensor_type().elem_type() == onnx::TensorProto::BFLOAT16;
}

// NumPy has no bfloat16: onnx's backend tests store a BFLOAT16 value's test
// data as UINT16 bit patterns. Such data becomes BF16 with the same bits.
void bf16FromBits(HostTensor* t) {
  if (t->type.dtype == DType::U16) t->type.dtype = DType::BF16;
}

bool readModelIo(const std::string& path, ModelIo* io, std::string* err) {
  std::ifstream f(path, std::ios::binary);
  onnx::ModelProto model;
  if (!f || !model.ParseFromIstream(&f)) {
    *err = "cannot parse " + path;
    return false;
  }
  std::set<std::string> initializers;
  for (const auto& init : model.graph().initializer()) initializers.insert(init.name());
  for (const auto& in : model.graph().input())
    if (!initializers.count(in.name())) {
      io->inputs.push_back(in.name());
      io->inputIsBf16.push_back(declaredBf16(in));
    }
  for (const auto& out : model.graph().output()) {
    io->outputs.push_back(out.name());
    io->outputIsBf16.push_back(declaredBf16(out));
  }
  return true;
}

std::string lastError(const char* call, mgrt_status s) {
  return std::string(call) + ": " + mgrt_status_string(s) + ": " + mgrt_last_error();
}

Shape infoShape(const mgrt_tensor_info& info) { return Shape(info.shape, info.shape + info.rank); }

struct ModelDeleter {
  void operator()(mgrt_model* m) const { mgrt_model_destroy(m); }
};
struct SessionDeleter {
  void operator()(mgrt_session* s) const { mgrt_session_destroy(s); }
};

int indexOf(const std::vector<std::string>& names, const std::string& name) {
  auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : int(it - names.begin());
}

void fail(TestResult* r, const char* stage, std::string reason) {
  r->status = Status::Failed;
  r->stage = stage;
  r->reason = std::move(reason);
}

void unsupported(TestResult* r, const char* stage, std::string reason) {
  r->status = Status::Unsupported;
  r->stage = stage;
  r->reason = std::move(reason);
}

}  // namespace

TestResult Runner::run(const TestCase& test) {
  TestResult r;
  r.test = test;
  auto start = std::chrono::steady_clock::now();
  const int validationBefore = ctx_ ? mgrt_context_validation_messages(ctx_) : 0;
  try {
    execute(test, &r);  // returns with the model and session destroyed: teardown is validated too
  } catch (const std::exception& e) {
    fail(&r, "harness", std::string("exception: ") + e.what());
  }
  const int validation = ctx_ ? mgrt_context_validation_messages(ctx_) - validationBefore : 0;
  if (validation > 0 && r.status != Status::Failed)
    fail(&r, "validation", std::to_string(validation) + " Vulkan validation message(s)");
  r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return r;
}

// Compiles the test's model; with bindConstantInputs, inputs the compiler
// says must be constants are bound from test_data_set_0 and the model is
// compiled again (a few rounds: a bound input can unblock a node that then
// needs another one).
CompileOutcome Runner::compile(const TestCase& test, TestResult* r) {
  const std::string modelPath = test.dir + "/model.onnx";
  CompileOutcome compiled = compileModel(modelPath, opts_.isolateCompile, opts_.compileTimeoutSeconds);
  if (!opts_.bindConstantInputs) return compiled;
  const fs::path tmpDir = fs::temp_directory_path() / ("mgc-conformance-" + std::to_string(getpid()));
  const std::string boundPath = (tmpDir / "model.onnx").string();
  for (int round = 0; round < 4 && compiled.kind == CompileOutcome::Kind::Error; ++round) {
    std::vector<std::string> names = inputsThatMustBeConstant(compiled.message);
    names.erase(std::remove_if(names.begin(), names.end(),
                               [&](const std::string& n) {
                                 return std::find(r->boundInputs.begin(), r->boundInputs.end(), n) !=
                                        r->boundInputs.end();
                               }),
                names.end());
    if (names.empty()) break;
    std::vector<std::string> all = r->boundInputs;
    all.insert(all.end(), names.begin(), names.end());
    std::error_code ec;
    fs::create_directories(tmpDir, ec);
    std::string err;
    if (!bindInputs(modelPath, all, test.dir + "/test_data_set_0", boundPath, &err)) break;  // keep the first error
    r->boundInputs = all;
    compiled = compileModel(boundPath, opts_.isolateCompile, opts_.compileTimeoutSeconds);
  }
  std::error_code ec;
  fs::remove_all(tmpDir, ec);
  return compiled;
}

void Runner::execute(const TestCase& test, TestResult* r) {
  const std::string modelPath = test.dir + "/model.onnx";
  CompileOutcome compiled = compile(test, r);
  switch (compiled.kind) {
    case CompileOutcome::Kind::Ok: break;
    case CompileOutcome::Kind::Error:
      if (saysUnsupported(compiled.message))
        return unsupported(r, "compile", compiled.message);
      return fail(r, "compile", compiled.message);
    case CompileOutcome::Kind::Exception: return fail(r, "compile", compiled.message);
    case CompileOutcome::Kind::Crash:
    case CompileOutcome::Kind::Timeout:
      r->crashed = true;
      return fail(r, "compile", compiled.message);
  }
  if (!ctx_) {  // compile-only mode
    r->status = Status::Passed;
    return;
  }

  ModelIo io;
  std::string err;
  if (!readModelIo(modelPath, &io, &err)) return fail(r, "inputs", err);
  const std::string data = test.dir + "/test_data_set_0/";
  std::vector<HostTensor> inputs(io.inputs.size()), expected(io.outputs.size());
  std::vector<bool> haveInput(io.inputs.size(), false), haveExpected(io.outputs.size(), false);
  for (size_t i = 0; i < io.inputs.size(); ++i) {
    bool unsup = false;
    std::string path = data + "input_" + std::to_string(i) + ".pb";
    if (!fs::exists(path)) continue;  // an omitted optional input
    if (!loadTensorProto(path, &inputs[i], &err, &unsup))
      return unsup ? unsupported(r, "inputs", err) : fail(r, "inputs", err);
    if (io.inputIsBf16[i]) bf16FromBits(&inputs[i]);
    haveInput[i] = true;
  }
  for (size_t i = 0; i < io.outputs.size(); ++i) {
    bool unsup = false;
    std::string path = data + "output_" + std::to_string(i) + ".pb";
    if (!fs::exists(path)) continue;
    if (!loadTensorProto(path, &expected[i], &err, &unsup))
      return unsup ? unsupported(r, "outputs", err) : fail(r, "outputs", err);
    if (io.outputIsBf16[i]) bf16FromBits(&expected[i]);
    haveExpected[i] = true;
  }

  mgrt_model* rawModel = nullptr;
  mgrt_status s = mgrt_model_load(ctx_, compiled.bundle.data(), compiled.bundle.size(), &rawModel);
  if (s == MGRT_UNSUPPORTED) return unsupported(r, "load", lastError("mgrt_model_load", s));
  if (s != MGRT_OK) return fail(r, "load", lastError("mgrt_model_load", s));
  std::unique_ptr<mgrt_model, ModelDeleter> model(rawModel);

  mgrt_session* rawSession = nullptr;
  s = mgrt_session_create(model.get(), "infer", &rawSession);
  if (s == MGRT_UNSUPPORTED) return unsupported(r, "session", lastError("mgrt_session_create", s));
  if (s != MGRT_OK) return fail(r, "session", lastError("mgrt_session_create", s));
  std::unique_ptr<mgrt_session, SessionDeleter> session(rawSession);

  for (int i = 0; i < mgrt_session_input_count(session.get()); ++i) {
    mgrt_tensor_info info{};
    if ((s = mgrt_session_input_info(session.get(), i, &info)) != MGRT_OK)
      return fail(r, "inputs", lastError("mgrt_session_input_info", s));
    int k = indexOf(io.inputs, info.name);
    if (k < 0 || !haveInput[size_t(k)])
      return fail(r, "inputs", std::string("bundle input '") + info.name + "' has no test data");
    if (inputs[size_t(k)].type.shape != infoShape(info))
      return fail(r, "inputs", std::string("bundle input '") + info.name + "' has shape " +
                                   shapeStr(infoShape(info)) + ", test data " +
                                   shapeStr(inputs[size_t(k)].type.shape));
    HostTensor in = convertTensor(inputs[size_t(k)], mgrtToMgcDType(info.dtype));
    if ((s = mgrt_session_set_input(session.get(), info.name, in.data.data(), in.data.size())) != MGRT_OK)
      return fail(r, "inputs", lastError("mgrt_session_set_input", s));
  }

  if ((s = mgrt_session_run(session.get())) != MGRT_OK) return fail(r, "run", lastError("mgrt_session_run", s));

  std::vector<bool> checked(io.outputs.size(), false);
  for (int i = 0; i < mgrt_session_output_count(session.get()); ++i) {
    mgrt_tensor_info info{};
    if ((s = mgrt_session_output_info(session.get(), i, &info)) != MGRT_OK)
      return fail(r, "outputs", lastError("mgrt_session_output_info", s));
    int k = indexOf(io.outputs, info.name);
    if (k < 0 || !haveExpected[size_t(k)]) continue;
    HostTensor got(TensorType{mgrtToMgcDType(info.dtype), infoShape(info)});
    if ((s = mgrt_session_get_output(session.get(), info.name, got.data.data(), got.data.size())) != MGRT_OK)
      return fail(r, "outputs", lastError("mgrt_session_get_output", s));
    CompareResult cmp = compareTensors(got, expected[size_t(k)], opts_.tolerance);
    if (!cmp.ok) return fail(r, "compare", "output '" + std::string(info.name) + "': " + cmp.message);
    checked[size_t(k)] = true;
  }
  for (size_t k = 0; k < io.outputs.size(); ++k)
    if (haveExpected[k] && !checked[k])
      return fail(r, "outputs", "model output '" + io.outputs[k] + "' is not a bundle output");
  r->status = Status::Passed;
}

}  // namespace mgc::conformance
