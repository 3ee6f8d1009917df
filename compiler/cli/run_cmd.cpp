// mgc run BUNDLE.mgb --input NAME=FILE.npy ... [--output-dir DIR] [--profile FILE]
// Loads the bundle through libmgrt's C API, runs it, writes each output as
// DIR/<name>.npy, and prints the device and the run time; with --profile,
// a trace of the last run and its top kernels (profile.h).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "compiler/cli/cli_args.h"
#include "compiler/cli/commands.h"
#include "compiler/cli/profile.h"
#include "compiler/cli/runner.h"
#include "formats/file_read.h"

namespace mgc {

namespace {

// Output names come from the model ("onnx::Gemm_12", "a/b"): keep file names safe.
std::string fileNameFor(const std::string& tensor) {
  std::string r;
  for (char c : tensor) r += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
  if (r.empty() || r[0] == '.') r = "_" + r;
  return r;
}

int report(const RunnerError& e) {
  std::fprintf(stderr, "mgc run: error: %s\n", e.message.c_str());
  return e.exitCode;
}

}  // namespace

int runMain(int argc, char** argv) {
  RunArgs args;
  if (int code = parseRunArgs(argc, argv, &args); code >= 0) return code;
  const std::string& path = args.bundle;
  const std::string& outDir = args.outDir;
  const int iterations = args.iterations;

  std::vector<uint8_t> bundle;
  std::string readError;
  if (!fileio::readAll(path, &bundle, &readError)) return report({kExitIo, readError});

  if (!outDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(outDir, ec);
    if (ec || !std::filesystem::is_directory(outDir))
      return report({kExitIo, outDir + ": cannot create output folder (" + ec.message() + ")"});
  }

  Runner runner;
  if (RunnerError e = runner.open(bundle, path, args.device, args.validation, args.noCache ? "" : args.cacheDir, args.entry);
      e.exitCode)
    return report(e);
  if (!args.profile.empty())
    if (std::string e = enableProfiling(runner.session()); !e.empty())
      return report({kExitDevice, "--profile: " + e + "; no trace written"});
  // A default folder that cannot be made (a read-only home) is no news;
  // anything else about the cache is.
  const std::string note = runner.pipelineCacheNote();
  if (!note.empty() && (args.cacheDirGiven || runner.pipelineCacheState() != "off"))
    std::fprintf(stderr, "mgc run: warning: %s\n", note.c_str());

  std::vector<std::string> given;
  for (const std::string& spec : args.inputSpecs) {
    std::string name, file;
    if (!splitSpec(spec, &name, &file)) return report({kExitUsage, "--input '" + spec + "' is not NAME=FILE.npy"});
    mgb::npy::Array a;
    std::string err;
    if (std::string problem = fileio::notAFile(file); !problem.empty()) return report({kExitIo, problem});
    if (!mgb::npy::readFile(file, &a, &err)) return report({kExitBadInput, err});  // err names the file
    if (RunnerError e = runner.setInput(name, a, file); e.exitCode) return report(e);
    given.push_back(name);
  }
  for (const mgrt_tensor_info& info : runner.inputs())
    if (std::find(given.begin(), given.end(), info.name) == given.end())
      return report({kExitBadInput, path + ": input '" + std::string(info.name) + "' (" +
                                        describe(info.dtype, info.shape, info.rank) + ") not given; use --input " +
                                        info.name + "=FILE.npy"});

  double ms = 0;
  for (int i = 0; i < args.warmup; ++i)
    if (RunnerError e = runner.run(&ms); e.exitCode) return report(e);
  std::vector<double> times, gpu, submits;
  for (int i = 0; i < iterations; ++i) {
    double submitMs = 0;
    if (RunnerError e = runner.run(&ms, &submitMs); e.exitCode) return report(e);
    times.push_back(ms);
    gpu.push_back(runner.gpuMs());
    submits.push_back(submitMs);
  }
  std::sort(times.begin(), times.end());
  std::sort(gpu.begin(), gpu.end());
  std::sort(submits.begin(), submits.end());

  std::printf("device: %s\n", runner.deviceName().c_str());
  std::printf("load: %.1f ms (model + session; pipeline cache: %s)\n", runner.openMs(),
              runner.pipelineCacheState().c_str());
  std::printf("run: %.3f ms wall, %.3f ms GPU (median of %d; the submit call %.3f ms)\n", times[times.size() / 2],
              gpu[gpu.size() / 2], iterations, submits[submits.size() / 2]);
  for (int i = 0; i < runner.outputCount(); ++i) {
    std::string name;
    mgb::npy::Array out;
    if (RunnerError e = runner.output(i, &name, &out); e.exitCode) return report(e);
    std::printf("output %s: %s", name.c_str(), describe(mgrt_dtype(out.dtype), out.shape.data(), int(out.shape.size())).c_str());
    if (outDir.empty()) {
      std::printf("\n");
      continue;
    }
    std::string file = (std::filesystem::path(outDir) / (fileNameFor(name) + ".npy")).string(), err;
    if (!mgb::npy::writeFile(file, out, &err)) return report({kExitIo, file + ": " + err});
    std::printf(" -> %s\n", file.c_str());
  }
  if (!args.profile.empty())
    if (std::string e = reportProfile(runner.session(), args.profile, "mgc run " + path + " on " + runner.deviceName());
        !e.empty())
      return report({kExitIo, "--profile: " + e});
  if (args.validation && runner.validationMessages() > 0)
    return report({kExitDevice, std::to_string(runner.validationMessages()) + " Vulkan validation messages"});
  return kExitOk;
}

}  // namespace mgc
