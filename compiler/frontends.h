// The frontend table: every model format mgc reads, one row each. A row has
// a name, a sniff function (is this path in my format?) and an import
// function (path → Graph). The rows: ONNX, text IR, and a Hugging Face
// checkpoint folder (config.json + *.safetensors, compiler/hf/import.h),
// which builds its graph with ir/builder.h.
//
// Choosing a row: a row that claims the path by name (extension, folder
// layout) wins over one that only recognizes the first bytes; among equals
// the first row wins. A path no row claims is an error that names the file
// and every format tried.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/qweights.h"

namespace mgc {

struct FrontendOptions {
  // Training: parameters stay named constants of their own instead of being
  // folded into the nodes that use them (ONNX: ImportOptions::keepParameters).
  // Text IR spells every constant out, so it has nothing to keep.
  bool keepParameters = false;
  // Checkpoint folders: tokens per run (input_ids [1, seqLen]); 0 = the
  // frontend's default. Files that fix their own shapes ignore it.
  int64_t seqLen = 0;
  // Checkpoint folders: how linear layers hold their weights (--weights,
  // --group-size; ir/qweights.h). Other formats reject anything but f32.
  WeightPacking linear;
};

// What a sniff function sees of a path.
struct SniffInput {
  std::string path;
  bool isDirectory = false;
  std::string head;  // the first bytes of a readable file (empty otherwise)
};

enum class SniffMatch { No, ByContent, ByName };

struct Frontend {
  const char* name;     // "onnx", "mgir"
  const char* formats;  // for the unknown-format error: what the row accepts
  SniffMatch (*sniff)(const SniffInput& in);
  Graph (*import)(const std::string& path, const FrontendOptions& opts);
};

// Every row, in the order ties are broken.
const std::vector<Frontend>& frontends();

// The row that reads `path`; throws mgc::Error naming the file and the
// formats tried when none does.
const Frontend& frontendFor(const std::string& path);

// frontendFor(path).import(path, opts).
Graph importModel(const std::string& path, const FrontendOptions& opts = {});

}  // namespace mgc
