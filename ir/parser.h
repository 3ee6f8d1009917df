// The text IR (.mgir) parser; the syntax is documented in docs/ir.md.
//
// Text IR files are untrusted input: every malformed file ends in an
// mgc::Error "FILE:LINE:COL: message", never a crash, an unbounded
// allocation or another exception type.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "ir/infer_checked.h"  // the limits a file may declare

namespace mgc {

// Parses one graph. `filename` is used only in error messages. The shape
// rule runs for every node and must agree with the printed result types.
Graph parseGraph(std::string_view text, const std::string& filename);

// Reads and parses a .mgir file (error if it cannot be read).
Graph parseGraphFile(const std::string& path);


}  // namespace mgc
