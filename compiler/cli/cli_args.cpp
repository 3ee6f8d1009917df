#include "compiler/cli/cli_args.h"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <cstring>

#include "compiler/cli/commands.h"

namespace mgc {

namespace {

int parsed(CLI::App& app, int argc, char** argv, std::ostream& out, std::ostream& err) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err) == 0 ? kExitOk : kExitUsage;
  }
  return -1;
}

// $XDG_CACHE_HOME/mgc, else $HOME/.cache/mgc, else none.
std::string defaultPipelineCacheDir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/mgc";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.cache/mgc";
  return "";
}

int usage(std::ostream& err, const std::string& msg) {
  err << "mgc train: error: " << msg << "\n";
  return kExitUsage;
}

}  // namespace

int parseRunArgs(int argc, char** argv, RunArgs* a, std::ostream& out, std::ostream& err) {
  CLI::App app{"Run a .mgb bundle with libmgrt", "mgc run"};
  app.add_option("bundle", a->bundle, "bundle file (.mgb)")->required();
  app.add_option("-i,--input", a->inputSpecs, "NAME=FILE.npy, once per model input");
  app.add_option("--output-dir", a->outDir, "write each output as DIR/<name>.npy");
  app.add_option("--device", a->device, "Vulkan device index (default: env MGRT_DEVICE, else the first discrete GPU)");
  app.add_option("--iterations", a->iterations, "timed runs (the median is printed)")->check(CLI::Range(1, 100000));
  app.add_option("--warmup", a->warmup, "untimed runs before timing")->check(CLI::Range(0, 100000));
  app.add_flag("--validation", a->validation, "enable the Vulkan validation layer");
  app.add_option("--entry", a->entry, "entry point to run (default infer; train_step runs training steps)");
  app.add_option("--profile", a->profile, "write a Chrome/Perfetto trace of the last run here and print its top kernels");
  a->cacheDir = defaultPipelineCacheDir();
  app.add_option("--pipeline-cache", a->cacheDir,
                 "folder for compiled pipelines kept between runs (default: $XDG_CACHE_HOME/mgc, else ~/.cache/mgc)");
  app.add_flag("--no-pipeline-cache", a->noCache, "compile every pipeline afresh; read and write no cache");
  int code = parsed(app, argc, argv, out, err);
  a->cacheDirGiven = app.count("--pipeline-cache") > 0;
  return code;
}

int parseTrainArgs(int argc, char** argv, TrainArgs* a, std::ostream& out, std::ostream& err) {
  CLI::App app{"Train a bundle made by `mgc compile --train`", "mgc train"};
  app.add_option("bundle", a->bundle, "training bundle (.mgb)")->required();
  app.add_option("--dataset", a->dataset, "fashion-mnist, mnist, or a folder of MNIST-format IDX files (gzipped or not)");
  app.add_option("--data", a->dataSpecs, "NAME=FILE.npy: samples for a train_step input (first axis = samples)");
  app.add_option("--test-data", a->testSpecs, "NAME=FILE.npy: test samples for an infer input");
  app.add_option("--test-labels", a->testLabels, "FILE.npy: integer class of each test sample");
  app.add_option("--test-limit", a->testLimit, "evaluate only the first N test samples");
  app.add_option("--epochs", a->epochs, "passes over the training data")->check(CLI::Range(1, 1000000));
  app.add_option("--steps", a->steps, "stop after this many steps in all (resumed ones included)");
  app.add_option("--batch", a->batch, "must equal the bundle's batch size (fixed at compile time)");
  app.add_option("--checkpoint", a->checkpoint, "save the state here (safetensors) after every epoch");
  app.add_flag("--resume", a->resume, "load --checkpoint first and continue where it stopped");
  app.add_flag("--no-shuffle", a->noShuffle, "visit samples in file order (exact, reproducible)");
  app.add_option("--seed", a->seed, "shuffling seed (epoch e uses seed + e)");
  app.add_option("--log", a->logCsv, "write step,epoch,loss,accuracy of every step as CSV");
  app.add_option("--device", a->device, "Vulkan device index (default: env MGRT_DEVICE, else the first discrete GPU)");
  app.add_flag("-q,--quiet", a->quiet, "no progress line");
  app.add_option("--profile", a->profile, "write a Chrome/Perfetto trace of the last train step here and print its top kernels");
  if (int code = parsed(app, argc, argv, out, err); code >= 0) return code;
  if (a->dataset.empty() == a->dataSpecs.empty()) return usage(err, "give either --dataset or --data");
  if (a->resume && a->checkpoint.empty()) return usage(err, "--resume needs --checkpoint");
  if (!a->testSpecs.empty() && a->testLabels.empty()) return usage(err, "--test-data needs --test-labels");
  return -1;
}

bool splitSpec(const std::string& spec, std::string* name, std::string* file) {
  const size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  *name = spec.substr(0, eq);
  *file = spec.substr(eq + 1);
  return true;
}

std::string npyColumns(const std::vector<std::string>& specs, const std::vector<mgrt_tensor_info>& inputs,
                       const NpyLoader& load, Samples* out, int* code) {
  out->rows = -1;
  for (const std::string& spec : specs) {
    std::string name, file, err;
    if (!splitSpec(spec, &name, &file)) {
      *code = kExitUsage;
      return "--data '" + spec + "' is not NAME=FILE.npy";
    }
    const mgrt_tensor_info* in = nullptr;
    for (const mgrt_tensor_info& i : inputs)
      if (name == i.name) in = &i;
    if (!in) {
      *code = kExitUsage;
      return "the bundle has no input '" + name + "'";
    }
    mgb::npy::Array a;
    if (!load(file, &a, &err)) {
      *code = kExitBadInput;
      return file + ": " + err;
    }
    if (int(a.dtype) != int(in->dtype) || a.shape.empty()) {
      *code = kExitBadInput;
      return file + ": input '" + name + "' needs " + mgb::npy::dtypeName(mgb::npy::DType(in->dtype)) +
             " samples along the first axis, got " + mgb::npy::dtypeName(a.dtype) + " of rank " +
             std::to_string(a.shape.size());
    }
    Column c;
    c.name = name;
    c.dtype = in->dtype;
    c.rowBytes = in->bytes / size_t(in->rank ? in->shape[0] : 1);
    if (a.data.size() != size_t(a.shape[0]) * c.rowBytes) {
      // Samples along the first axis, each shaped like one batch row of the
      // input: targets of any rank ([S], [S, T], [S, H, W]) work this way.
      std::string want = "[S";
      for (int d = 1; d < in->rank; ++d) want += ", " + std::to_string(in->shape[d]);
      std::string got = "[";
      for (size_t d = 0; d < a.shape.size(); ++d) got += (d ? ", " : "") + std::to_string(a.shape[d]);
      *code = kExitBadInput;
      return file + ": input '" + name + "' takes samples shaped " + want + "] (S samples, " +
             std::to_string(c.rowBytes) + " bytes each), got " + got + "]";
    }
    if (out->rows >= 0 && out->rows != a.shape[0]) {
      *code = kExitBadInput;
      return file + ": " + std::to_string(a.shape[0]) + " samples, the other --data files have " +
             std::to_string(out->rows);
    }
    out->rows = a.shape[0];
    c.data = std::move(a.data);
    out->columns.push_back(std::move(c));
  }
  return "";
}

std::string npyLabels(const std::string& file, const mgb::npy::Array& a, int64_t rows, std::vector<int64_t>* labels) {
  if (a.dtype != mgb::npy::DType::I64 || a.shape.size() != 1 || a.shape[0] != rows)
    return file + ": needs i64 [" + std::to_string(rows) + "] class indices";
  labels->resize(size_t(rows));
  std::memcpy(labels->data(), a.data.data(), size_t(rows) * sizeof(int64_t));
  return "";
}

}  // namespace mgc
