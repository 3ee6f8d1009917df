// mgc_fuzz::cli (fuzz_entries.h): the `mgc run` / `mgc train` command line
// and the readers behind it, driven from bytes. Kept apart from
// fuzz_entries.cpp because it links the CLI's own sources.
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/cli/cli_args.h"
#include "compiler/cli/commands.h"
#include "compiler/cli/trainer.h"
#include "formats/idx.h"
#include "tests/fuzz/fuzz_entries.h"

namespace mgc_fuzz {
namespace {

[[noreturn]] void contractBroken(const char* what) {
  std::fprintf(stderr, "fuzz contract broken: %s\n", what);
  std::abort();
}

// The inputs of a small training bundle: train_step takes x f32 [4, 2, 3]
// and labels i64 [4]; infer takes x.
const int64_t kXShape[] = {4, 2, 3};
const int64_t kLabelShape[] = {4};
const std::vector<mgrt_tensor_info> kTrainInputs = {{"x", MGRT_F32, 3, kXShape, 4 * 2 * 3 * 4},
                                                    {"labels", MGRT_I64, 1, kLabelShape, 4 * 8}};
const std::vector<mgrt_tensor_info> kInferInputs = {kTrainInputs[0]};

void checkSamples(const mgc::Samples& s) {
  for (const mgc::Column& c : s.columns)
    if (c.data.size() != size_t(s.rows) * c.rowBytes) contractBroken("accepted column size differs from rows x row");
}

void checkRefusal(const std::string& e, int code) {
  if (e.empty()) return;
  if (code != mgc::kExitUsage && code != mgc::kExitBadInput) contractBroken("npyColumns exit code");
}

}  // namespace

void cli(const uint8_t* data, size_t size) {
  if (size == 0) return;
  const bool train = data[0] & 1;
  const std::string rest(reinterpret_cast<const char*>(data + 1), size - 1);
  const size_t nul = rest.find('\0');
  const std::string text = rest.substr(0, nul);
  const std::vector<uint8_t> file = nul == std::string::npos ? std::vector<uint8_t>()
                                                             : std::vector<uint8_t>(rest.begin() + nul + 1, rest.end());
  std::vector<std::string> words{train ? "mgc train" : "mgc run"};
  for (size_t at = 0; at <= text.size() && words.size() < 64;) {
    const size_t nl = std::min(text.find('\n', at), text.size());
    words.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  const int argc = int(words.size());

  // Every named file holds the same bytes, except names starting "missing".
  const mgc::NpyLoader load = [&](const std::string& name, mgb::npy::Array* a, std::string* err) {
    if (name.rfind("missing", 0) == 0) {
      *err = "cannot open file";
      return false;
    }
    if (!mgb::npy::read(file.data(), file.size(), a, err)) {
      if (err->empty()) contractBroken("npy refusal without a message");
      return false;
    }
    return true;
  };
  std::ostringstream out, err;
  if (!train) {
    mgc::RunArgs a;
    const int code = mgc::parseRunArgs(argc, argv.data(), &a, out, err);
    if (code >= 0) {
      if (code != mgc::kExitOk && code != mgc::kExitUsage) contractBroken("run parse exit code");
      return;
    }
    for (const std::string& spec : a.inputSpecs) {
      std::string name, path, why;
      mgb::npy::Array arr;
      if (mgc::splitSpec(spec, &name, &path) && (name.empty() || spec.size() != name.size() + 1 + path.size()))
        contractBroken("splitSpec split wrongly");
      if (!path.empty()) load(path, &arr, &why);
    }
    return;
  }
  mgc::TrainArgs a;
  const int code = mgc::parseTrainArgs(argc, argv.data(), &a, out, err);
  if (code >= 0) {
    if (code != mgc::kExitOk && code != mgc::kExitUsage) contractBroken("train parse exit code");
    return;
  }
  if (a.dataset.empty() == a.dataSpecs.empty()) contractBroken("train accepted --dataset and --data together or neither");
  mgc::Samples samples, test;
  int exitCode = 0;
  std::string e = mgc::npyColumns(a.dataSpecs, kTrainInputs, load, &samples, &exitCode);
  checkRefusal(e, exitCode);
  if (e.empty()) checkSamples(samples);
  if (!a.testSpecs.empty()) {
    e = mgc::npyColumns(a.testSpecs, kInferInputs, load, &test, &exitCode);
    checkRefusal(e, exitCode);
    mgb::npy::Array labels;
    std::string why;
    std::vector<int64_t> values;
    if (e.empty() && load(a.testLabels, &labels, &why)) {
      e = mgc::npyLabels(a.testLabels, labels, test.rows, &values);
      if (e.empty() && values.size() != size_t(test.rows)) contractBroken("npyLabels count");
    }
  }
  if (!a.dataset.empty()) {
    // --dataset DIR: the same bytes as its images (IDX), with zero labels.
    try {
      idx::Array images = idx::parse(file, a.dataset);
      // A real label file holds at least a byte per row; an images file
      // with a zero-sized dim can declare billions of rows in a few bytes,
      // and zero labels for those would be this harness's allocation.
      if (uint64_t(images.rows()) > file.size()) return;
      idx::Array labels;
      labels.shape = {images.rows()};
      labels.values.assign(size_t(images.rows()), 0.0f);
      idx::Dataset d = idx::makeDataset(images, labels, a.dataset);
      mgc::Samples s;
      if (mgc::datasetColumns(d, kTrainInputs, true, &s).empty()) checkSamples(s);
      if (mgc::datasetColumns(d, kInferInputs, false, &s).empty()) checkSamples(s);
    } catch (const std::runtime_error& ex) {
      if (std::strlen(ex.what()) == 0) contractBroken("idx refusal without a message");
    }
  }
}

}  // namespace mgc_fuzz
