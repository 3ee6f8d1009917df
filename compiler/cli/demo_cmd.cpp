// mgc demo: the main job on the shipped example. Compiles examples/cnn.onnx
// (a Fashion-MNIST CNN exported from PyTorch), runs it on the default device
// through libmgrt, and compares the logits with PyTorch's.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "compiler/cli/commands.h"
#include "compiler/cli/runner.h"
#include "compiler/driver.h"

#ifndef MGC_SOURCE_DIR
#define MGC_SOURCE_DIR "."
#endif

namespace mgc {

namespace {

const char* kClasses[] = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                          "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

int fail(int code, const std::string& msg) {
  std::fprintf(stderr, "mgc demo: error: %s\n", msg.c_str());
  return code;
}

}  // namespace

int demoMain(int argc, char** argv) {
  CLI::App app{"Compile and run the shipped example CNN, compare with PyTorch", "mgc demo"};
  std::string dir = std::string(MGC_SOURCE_DIR) + "/examples";
  int device = -1, iterations = 20;
  app.add_option("--examples", dir, "folder with cnn.onnx, cnn_input.npy, cnn_expected.npy");
  app.add_option("--device", device, "Vulkan device index");
  app.add_option("--iterations", iterations, "timed runs")->check(CLI::Range(1, 100000));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }

  std::string model = dir + "/cnn.onnx";
  std::printf("== compile %s\n", model.c_str());
  CompileResult r;
  try {
    r = compileFile(model);
  } catch (const Error& e) {
    return fail(kExitBadInput, e.what());
  }
  std::printf("%s", r.summary.c_str());

  mgb::npy::Array x, expected;
  std::string err;
  if (!mgb::npy::readFile(dir + "/cnn_input.npy", &x, &err)) return fail(kExitIo, dir + "/cnn_input.npy: " + err);
  if (!mgb::npy::readFile(dir + "/cnn_expected.npy", &expected, &err))
    return fail(kExitIo, dir + "/cnn_expected.npy: " + err);

  std::printf("== run\n");
  Runner runner;
  if (RunnerError e = runner.open(r.bundle, model, device, false); e.exitCode) return fail(e.exitCode, e.message);
  std::printf("device: %s\n", runner.deviceName().c_str());
  if (RunnerError e = runner.setInput("x", x, "cnn_input.npy"); e.exitCode) return fail(e.exitCode, e.message);
  double ms = 0;
  if (RunnerError e = runner.run(&ms); e.exitCode) return fail(e.exitCode, e.message);  // warm-up
  std::vector<double> wall, gpu;
  for (int i = 0; i < iterations; ++i) {
    if (RunnerError e = runner.run(&ms); e.exitCode) return fail(e.exitCode, e.message);
    wall.push_back(ms);
    gpu.push_back(runner.gpuMs());
  }
  std::sort(wall.begin(), wall.end());
  std::sort(gpu.begin(), gpu.end());
  std::printf("run: %.3f ms wall, %.3f ms GPU (median of %d, batch %lld)\n", wall[wall.size() / 2],
              gpu[gpu.size() / 2], iterations, (long long)x.shape[0]);

  std::string name;
  mgb::npy::Array y;
  if (RunnerError e = runner.output(0, &name, &y); e.exitCode) return fail(e.exitCode, e.message);
  if (y.data.size() != expected.data.size()) return fail(kExitBadInput, "output size differs from cnn_expected.npy");
  const float* got = reinterpret_cast<const float*>(y.data.data());
  const float* want = reinterpret_cast<const float*>(expected.data.data());
  size_t n = y.data.size() / 4, classes = 10;
  double maxErr = 0, maxRef = 0;
  for (size_t i = 0; i < n; ++i) {
    maxErr = std::max(maxErr, double(std::fabs(got[i] - want[i])));
    maxRef = std::max(maxRef, double(std::fabs(want[i])));
  }
  std::printf("== result (random weights: the classes are arbitrary, the numbers must match PyTorch)\n");
  for (size_t b = 0; b * classes < n; ++b) {
    size_t best = size_t(std::max_element(got + b * classes, got + (b + 1) * classes) - (got + b * classes));
    size_t ref = size_t(std::max_element(want + b * classes, want + (b + 1) * classes) - (want + b * classes));
    std::printf("  image %zu: class %zu (%s)%s\n", b, best, kClasses[best], best == ref ? "" : "  <- PyTorch differs");
  }
  double rel = maxErr / std::max(maxRef, 1e-6);
  std::printf("max |mgc - PyTorch| = %.3g (relative %.3g): %s\n", maxErr, rel, rel <= 1e-4 ? "match" : "MISMATCH");
  return rel <= 1e-4 ? kExitOk : kExitBadInput;
}

}  // namespace mgc
