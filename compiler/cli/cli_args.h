// The command-line surface of `mgc run` and `mgc train` that sits in front
// of a reader: option parsing (CLI11) and the NAME=FILE.npy specs, split
// from the commands so that tests/fuzz/fuzz_cli.cpp can drive them from
// fuzz bytes without a device. The commands call exactly these functions.
#pragma once

#include <cstdint>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "compiler/cli/trainer.h"  // Samples, Column (types only)
#include "formats/npy.h"
#include "runtime/include/mgrt.h"

namespace mgc {

struct RunArgs {
  std::string bundle, outDir, profile, entry = "infer";
  std::vector<std::string> inputSpecs;  // NAME=FILE.npy
  int device = -1, iterations = 1, warmup = 0;
  bool validation = false;
  // Pipeline cache folder (default: $XDG_CACHE_HOME/mgc, else ~/.cache/mgc);
  // cacheDirGiven: --pipeline-cache was on the command line.
  std::string cacheDir;
  bool noCache = false, cacheDirGiven = false;
};

struct TrainArgs {
  std::string bundle, dataset, checkpoint, logCsv, testLabels;
  std::vector<std::string> dataSpecs, testSpecs;  // NAME=FILE.npy
  int epochs = 1, device = -1;
  int64_t steps = -1, batch = 0, testLimit = -1;
  uint64_t seed = 0;
  bool resume = false, noShuffle = false, quiet = false;
  std::string profile;  // --profile FILE: a trace of the last step
};

// Parse argv. Return -1 to go on, else the exit code to return now (--help
// printed to `out`: kExitOk; a usage error printed to `err`: kExitUsage).
// parseTrainArgs also applies the cross-option rules (--dataset xor --data,
// --resume needs --checkpoint, --test-data needs --test-labels).
int parseRunArgs(int argc, char** argv, RunArgs* a, std::ostream& out = std::cout, std::ostream& err = std::cerr);
int parseTrainArgs(int argc, char** argv, TrainArgs* a, std::ostream& out = std::cout,
                   std::ostream& err = std::cerr);

// "NAME=FILE" → name, file. False when there is no '=' or NAME is empty.
bool splitSpec(const std::string& spec, std::string* name, std::string* file);

// Reads FILE.npy (the CLI passes mgb::npy::readFile; the fuzz target, bytes).
using NpyLoader = std::function<bool(const std::string& file, mgb::npy::Array* a, std::string* error)>;

// --data / --test-data specs → one column per named bundle input, checked
// against `inputs` (dtype, bytes per sample, same sample count in every
// file). "" on success, else the message; *code gets the exit code.
std::string npyColumns(const std::vector<std::string>& specs, const std::vector<mgrt_tensor_info>& inputs,
                       const NpyLoader& load, Samples* out, int* code);

// --test-labels: i64 [rows] class indices. "" on success, else the message.
std::string npyLabels(const std::string& file, const mgb::npy::Array& a, int64_t rows, std::vector<int64_t>* labels);

}  // namespace mgc
