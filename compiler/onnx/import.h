// ONNX importer: an .onnx model (default domain, opsets 1..17, kMinOpset and
// kMaxOpset in import.cpp) → one IR Graph.
//
// Shapes must be static. Shape subgraphs (Shape, Size, and every node whose
// inputs are all constants) are folded to constants while importing.
// Throws mgc::Error naming the file, the node (name, op type) or tensor and
// the reason; when several nodes are unsupported, ONE error lists them all,
// one per line.
#pragma once

#include <cstddef>
#include <string>

#include "ir/graph.h"

namespace mgc {

struct ImportOptions {
  // Training: float initializers of rank >= 1 (the parameters) stay
  // constants of their own, under their ONNX names; nodes that compute with
  // them are not folded at import (e.g. Gemm's Transpose of its weight), so
  // that the parameters can become state. Shape subgraphs still fold.
  bool keepParameters = false;
};

Graph importOnnx(const std::string& path);
Graph importOnnx(const std::string& path, const ImportOptions& opts);
// `sourceName` names the model in error messages (usually its path).
Graph importOnnxBytes(const void* data, size_t size, const std::string& sourceName);
Graph importOnnxBytes(const void* data, size_t size, const std::string& sourceName, const ImportOptions& opts);

}  // namespace mgc
