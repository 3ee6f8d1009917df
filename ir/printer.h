// The text IR (.mgir) printer. The syntax is documented in docs/ir.md; the
// parser (parser.h) reads back exactly what this prints: print → parse →
// print is byte-identical.
#pragma once

#include <string>

#include "ir/graph.h"

namespace mgc {

// Constants with more elements than this are elided by printGraph(g, true).
constexpr int64_t kElideAboveElements = 16;

// The whole graph as text. With elideConstants, constants larger than
// kElideAboveElements print as `dense_resource<elided>`: for humans, not
// parseable.
std::string printGraph(const Graph& g, bool elideConstants = false);

// `%name`, or `%"quoted name"` when the name is not a plain identifier.
std::string printValueName(const std::string& name);

// A string literal with escapes: "a\"b".
std::string quoteString(const std::string& s);

// The shortest decimal text that reads back as the same value of `dtype`
// (f16 / bf16 / f32 / f64); always contains '.', an exponent, or is nan / inf / -inf,
// so it never reads back as an integer.
std::string formatFloat(double v, DType dtype);

}  // namespace mgc
