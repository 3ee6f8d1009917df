// mgc verify BUNDLE.mgb [--device N] [--validation] [--tolerance X]
// Runs the bundle's self-check (mgc compile --embed-check) through libmgrt's
// mgrt_model_verify, exactly as an app would on its device, and prints each
// output's worst errors and the verdict. Exit 0: pass; kExitMismatch: an
// output differs from the compiler's reference (docs/cli.md).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include "compiler/cli/commands.h"
#include "compiler/cli/runner.h"
#include "formats/file_read.h"

namespace mgc {

namespace {

int report(const RunnerError& e) {
  std::fprintf(stderr, "mgc verify: error: %s\n", e.message.c_str());
  return e.exitCode;
}

// The C handles, released in reverse order whatever happens.
struct Handles {
  mgrt_context* ctx = nullptr;
  mgrt_model* model = nullptr;
  ~Handles() {
    mgrt_model_destroy(model);
    mgrt_context_destroy(ctx);
  }
};

void printOutcome(const mgrt_verify_report& r, const std::vector<mgrt_check_output>& outputs) {
  std::printf(
      "check: entry point '%s', %d outputs, tolerance %g (|got - want| <= tol * max(1, |want|); integers exact)\n",
      r.entry_point, r.outputs, r.tolerance);
  for (const mgrt_check_output& o : outputs)
    std::printf("  %-24s max abs %.3g  max rel %.3g  error %.3g  %s\n", o.name, o.max_abs_error, o.max_rel_error,
                o.worst_error, o.passed ? "PASS" : "FAIL");
  if (r.passed)
    std::printf("PASS: every output within tolerance (worst error %.3g)\n", r.worst_error);
  else
    std::printf("FAIL: %d of %d outputs differ from the compiler's reference (worst error %.3g)\n", r.failed_outputs,
                r.outputs, r.worst_error);
}

}  // namespace

int verifyMain(int argc, char** argv) {
  CLI::App app{"Run a bundle's embedded self-check (mgc compile --embed-check) on a device", "mgc verify"};
  std::string path;
  int device = -1;
  bool validation = false;
  double tolerance = -1;
  app.add_option("bundle", path, "bundle compiled with --embed-check (.mgb)")->required();
  app.add_option("--device", device, "Vulkan device index (default: env MGRT_DEVICE, else the first discrete GPU)");
  app.add_flag("--validation", validation, "enable the Vulkan validation layer; any message fails the check");
  app.add_option("--tolerance", tolerance, "replace the bundle's tolerance: |got - want| <= X * max(1, |want|)")
      ->check(CLI::Range(0.0, 1e30));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }

  std::vector<uint8_t> bundle;
  std::string readError;
  if (!fileio::readAll(path, &bundle, &readError)) return report({kExitIo, readError});

  Handles h;
  mgrt_context_options opts{device, validation ? 1 : 0, 0};
  if (mgrt_status s = mgrt_context_create(&opts, &h.ctx)) return report(runtimeError(s, "cannot open a Vulkan device"));
  if (mgrt_status s = mgrt_model_load(h.ctx, bundle.data(), bundle.size(), &h.model))
    return report(runtimeError(s, path));
  if (!mgrt_model_has_check(h.model))
    return report(
        {kExitBadInput, path + ": the bundle carries no self-check (compile it with mgc compile --embed-check)"});

  std::printf("device: %s\n", mgrt_context_device_name(h.ctx));
  mgrt_verify_report r{};
  std::vector<mgrt_check_output> outputs(64);
  if (mgrt_status s = mgrt_model_verify(h.model, tolerance, &r, outputs.data(), int(outputs.size())))
    return report(runtimeError(s, path));
  if (r.outputs > int(outputs.size())) {  // more outputs than the first guess: run again with room for all
    outputs.resize(size_t(r.outputs));
    if (mgrt_status s = mgrt_model_verify(h.model, tolerance, &r, outputs.data(), int(outputs.size())))
      return report(runtimeError(s, path));
  }
  outputs.resize(size_t(r.outputs));
  printOutcome(r, outputs);
  if (int n = mgrt_context_validation_messages(h.ctx); n > 0)
    return report({kExitDevice, std::to_string(n) + " Vulkan validation messages"});
  return r.passed ? kExitOk : kExitMismatch;
}

}  // namespace mgc
