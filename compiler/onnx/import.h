// ONNX importer: an .onnx model (default domain, opset 7..17) → one IR Graph.
//
// Shapes must be static. Shape subgraphs (Shape, Size, and every node whose
// inputs are all constants) are folded to constants while importing.
// Throws mgc::Error naming the file, the node (name, op type) or tensor and
// the reason; when several nodes are unsupported, ONE error lists them all,
// one per line.
#pragma once

#include <cstddef>
#include <string>

#include "compiler/ir/graph.h"

namespace mgc {

Graph importOnnx(const std::string& path);
// `sourceName` names the model in error messages (usually its path).
Graph importOnnxBytes(const void* data, size_t size, const std::string& sourceName);

}  // namespace mgc
