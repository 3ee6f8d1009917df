// mgc-conformance: runs the ONNX backend test suite (Debian's
// libonnx-testdata) through the mgc compiler and the Vulkan runtime.
//
//   mgc-conformance [--verbose] [--filter REGEX] [--json FILE] [--floor FILE]
//
// Exit status: 0 when the run completed (whatever the per-test results),
// 1 when --floor is given and fewer tests passed, 2 on a setup error (no test
// data, no device), 3 when the compiler crashed or hung on some test.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "kernels/program_codegen.h"
#include "runtime/include/mgrt.h"
#include "tools/conformance/runner.h"

#ifndef MGC_ONNX_TESTDATA
#define MGC_ONNX_TESTDATA "/usr/share/libonnx-testdata/data"
#endif

using namespace mgc::conformance;

namespace {

struct Counts {
  int passed = 0, failed = 0, unsupported = 0;
  void add(Status s) {
    switch (s) {
      case Status::Passed: ++passed; break;
      case Status::Failed: ++failed; break;
      case Status::Unsupported: ++unsupported; break;
    }
  }
  int total() const { return passed + failed + unsupported; }
};

std::vector<std::string> splitCommas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

void printSummary(const std::vector<std::string>& categories, const std::map<std::string, Counts>& perCategory,
                  const Counts& total, const std::map<std::string, int>& failedByStage, int crashes, double seconds) {
  std::printf("\n%-20s %8s %8s %12s %8s\n", "category", "passed", "failed", "unsupported", "total");
  for (const std::string& cat : categories) {
    auto it = perCategory.find(cat);
    if (it == perCategory.end()) continue;
    const Counts& c = it->second;
    std::printf("%-20s %8d %8d %12d %8d\n", cat.c_str(), c.passed, c.failed, c.unsupported, c.total());
  }
  std::printf("%-20s %8d %8d %12d %8d\n", "total", total.passed, total.failed, total.unsupported, total.total());
  if (!failedByStage.empty()) {
    std::printf("failed by stage:");
    for (const auto& [stage, n] : failedByStage) std::printf(" %s=%d", stage.c_str(), n);
    std::printf("\n");
  }
  if (crashes) std::printf("compiler crashes/timeouts: %d\n", crashes);
  std::printf("passed %d / failed %d / unsupported %d (%.1f s)\n", total.passed, total.failed, total.unsupported,
              seconds);
}

nlohmann::json toJson(const std::vector<TestResult>& results, const std::map<std::string, Counts>& perCategory,
                      const Counts& total, const std::string& device, double seconds) {
  auto counts = [](const Counts& c) {
    return nlohmann::json{{"passed", c.passed}, {"failed", c.failed}, {"unsupported", c.unsupported}};
  };
  nlohmann::json j;
  j["device"] = device;
  j["seconds"] = seconds;
  j["total"] = counts(total);
  for (const auto& [cat, c] : perCategory) j["categories"][cat] = counts(c);
  j["tests"] = nlohmann::json::array();
  for (const TestResult& r : results) {
    nlohmann::json t{{"category", r.test.category}, {"name", r.test.name}, {"status", statusName(r.status)},
                     {"ms", r.ms}};
    if (r.status != Status::Passed) {
      t["stage"] = r.stage;
      t["reason"] = r.reason;
    }
    if (r.crashed) t["crashed"] = true;
    if (!r.boundInputs.empty()) t["bound_inputs"] = r.boundInputs;
    j["tests"].push_back(std::move(t));
  }
  return j;
}

bool readFloor(const std::string& path, int* floor) {
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    *floor = std::atoi(line.c_str());
    return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs the ONNX backend tests through mgc and libmgrt"};
  std::string dataRoot = MGC_ONNX_TESTDATA, categoriesArg = "node,pytorch-converted,pytorch-operator,simple";
  std::string filter, jsonPath, floorPath;
  bool verbose = false, compileOnly = false, noIsolate = false, validation = false, noBind = false;
  RunnerOptions opts;
  app.add_option("--data", dataRoot, "ONNX backend test data root")->capture_default_str();
  app.add_option("--categories", categoriesArg, "comma-separated categories")->capture_default_str();
  app.add_option("--filter", filter, "only tests whose 'category/name' matches this regex");
  app.add_option("--json", jsonPath, "write per-test results to this JSON file");
  app.add_option("--floor", floorPath, "file with the minimum passed count; exit 1 below it");
  app.add_flag("-v,--verbose", verbose, "print one line per test");
  app.add_flag("--compile-only", compileOnly, "stop after compiling (no GPU needed)");
  app.add_flag("--no-isolate", noIsolate, "compile in-process instead of a forked child (for debuggers)");
  app.add_flag("--no-bind-inputs", noBind,
               "count tests whose shape-like inputs (Reshape's shape ...) are fed at run time as unsupported "
               "instead of compiling them in from the test data");
  app.add_flag("--validation", validation, "enable the Vulkan validation layer (also env MGRT_VALIDATION=1)");
  app.add_option("--timeout", opts.compileTimeoutSeconds, "compile time limit per test, seconds")->capture_default_str();
  app.add_option("--rtol", opts.tolerance.rtol)->capture_default_str();
  app.add_option("--atol", opts.tolerance.atol)->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  opts.isolateCompile = !noIsolate;
  // Every forked compile inherits glslang's built-in tables instead of
  // building them again (~0.1 s each).
  mgc::kern::warmUpCodegen();
  opts.bindConstantInputs = !noBind;
  if (const char* env = std::getenv("MGRT_VALIDATION")) validation = validation || std::string(env) == "1";

  const std::vector<std::string> categories = splitCommas(categoriesArg);
  std::vector<TestCase> tests = discoverTests(dataRoot, categories);
  if (tests.empty()) {
    std::fprintf(stderr, "mgc-conformance: no tests under %s (install libonnx-testdata)\n", dataRoot.c_str());
    return 2;
  }
  if (!filter.empty()) {
    const std::regex re(filter);
    std::vector<TestCase> kept;
    for (const TestCase& t : tests)
      if (std::regex_search(t.category + "/" + t.name, re)) kept.push_back(t);
    tests.swap(kept);
  }

  mgrt_context* ctx = nullptr;
  std::string device = "none (compile only)";
  if (!compileOnly) {
    mgrt_context_options copts{-1, validation ? 1 : 0, 0};
    if (mgrt_context_create(&copts, &ctx) != MGRT_OK) {
      std::fprintf(stderr, "mgc-conformance: cannot create a Vulkan context: %s\n", mgrt_last_error());
      return 2;
    }
    device = mgrt_context_device_name(ctx);
  }
  std::printf("mgc-conformance: %zu tests on %s%s\n", tests.size(), device.c_str(),
              validation ? " (validation on)" : "");

  Runner runner(ctx, opts);
  std::vector<TestResult> results;
  std::map<std::string, Counts> perCategory;
  std::map<std::string, int> failedByStage;
  Counts total;
  int crashes = 0, passedBound = 0;
  auto start = std::chrono::steady_clock::now();
  for (const TestCase& t : tests) {
    TestResult r = runner.run(t);
    perCategory[t.category].add(r.status);
    total.add(r.status);
    if (r.status == Status::Failed) ++failedByStage[r.stage];
    if (r.crashed) ++crashes;
    if (r.status == Status::Passed && !r.boundInputs.empty()) ++passedBound;
    if (verbose || r.crashed) {
      std::printf("[%s] %s: %s", t.category.c_str(), t.name.c_str(), statusName(r.status));
      if (!r.boundInputs.empty()) std::printf(" [%zu input(s) bound]", r.boundInputs.size());
      if (!r.reason.empty()) std::printf(" (%s) %s", r.stage.c_str(), r.reason.c_str());
      std::printf("\n");
      std::fflush(stdout);
    }
    results.push_back(std::move(r));
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (ctx) mgrt_context_destroy(ctx);

  printSummary(categories, perCategory, total, failedByStage, crashes, seconds);
  if (passedBound) std::printf("of the passed, %d ran with shape-like inputs bound from the test data\n", passedBound);
  if (!jsonPath.empty()) {
    std::ofstream(jsonPath) << toJson(results, perCategory, total, device, seconds).dump(1) << "\n";
  }
  if (crashes) return 3;
  if (!floorPath.empty()) {
    int floor = 0;
    if (!readFloor(floorPath, &floor)) {
      std::fprintf(stderr, "mgc-conformance: cannot read a number from %s\n", floorPath.c_str());
      return 2;
    }
    if (total.passed < floor) {
      std::printf("FAIL: %d passed, below the floor of %d in %s\n", total.passed, floor, floorPath.c_str());
      return 1;
    }
    std::printf("floor %d met (%d passed)\n", floor, total.passed);
  }
  return 0;
}
