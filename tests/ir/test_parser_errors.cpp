// Parser diagnostics: golden "FILE:LINE:COL: message" for each way a file
// can be wrong.
#include <catch2/catch.hpp>

#include "ir/parser.h"

using namespace mgc;

namespace {

std::string errorOf(const std::string& text) {
  try {
    parseGraph(text, "bad.mgir");
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace

TEST_CASE("parser errors name file, line, column and reason", "[ir][parser]") {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"", "bad.mgir:1:1: expected 'graph', got end of file"},
      {"graph main() {}", "bad.mgir:1:7: expected the graph name (@name), got 'main'"},
      {"graph @g() {\n  return %y\n}", "bad.mgir:2:10: use of undefined value %y"},
      {"graph @g(%x: f32[2], %x: f32[2]) {\n  return\n}", "bad.mgir:1:22: redefinition of value %x"},
      {"graph @g(%x: f32[2]) {\n  %x = relu(%x) : f32[2]\n  return %x\n}",
       "bad.mgir:2:3: redefinition of value %x"},
      {"graph @g(%x: f32[2]) {\n  %y = frobnicate(%x) : f32[2]\n  return %y\n}",
       "bad.mgir:2:8: unknown op 'frobnicate'"},
      {"graph @g(%x: f32[2]) {\n  %y = relu(%x) : f32[3]\n  return %y\n}",
       "bad.mgir:2:19: result type f32[3] does not match the inferred type f32[2]"},
      {"graph @g(%x: f32[2], %z: i64[2]) {\n  %y = add(%x, %z) : f32[2]\n  return %y\n}",
       "bad.mgir:2:8: node 'y' (add): operand dtypes differ: f32[2] vs i64[2]"},
      {"graph @g(%x: f32[2]) {\n  %y = add(%x) : f32[2]\n  return %y\n}",
       "bad.mgir:2:8: node 'y' (add): expects 2..2 inputs, got 1"},
      {"graph @g(%x: f32[1,3,4,4]) {\n  %y = conv(%x, none) : f32[1,3,4,4]\n  return %y\n}",
       "bad.mgir:2:8: node 'y' (conv): input 1 is required but is none"},
      {"graph @g(%x: f32[2]) {\n  %y = relu(%x) : f32[2], f32[2]\n  return %y\n}",
       "bad.mgir:2:27: 1 result(s) but 2 type(s)"},
      {"graph @g(%x: f32[2]) {\n  %a, %b = relu(%x) : f32[2], f32[2]\n  return %a\n}",
       "bad.mgir:2:12: relu has 1 result(s), 2 named"},
      {"graph @g() {\n  %k = const f32[3] dense<[1.0, 2.0]>\n  return %k\n}",
       "bad.mgir:2:27: expected 3 elements for f32[3], got 2"},
      {"graph @g() {\n  %k = const f32[1] dense<[1.0, 2.0]>\n  return %k\n}",
       "bad.mgir:2:33: too many elements for f32[1] (expected 1)"},
      {"graph @g() {\n  %k = const i8[1] dense<[300]>\n  return %k\n}",
       "bad.mgir:2:27: integer 300 is out of range for i8 [-128, 127]"},
      {"graph @g() {\n  %k = const i64[1] dense<[1.5]>\n  return %k\n}",
       "bad.mgir:2:28: expected an integer i64, got number 1.5"},
      {"graph @g() {\n  %k = const f32[1] dense<[1e39]>\n  return %k\n}",
       "bad.mgir:2:28: 1e39 is out of range for f32"},
      {"graph @g() {\n  %k = const f16[1] dense<[70000]>\n  return %k\n}",
       "bad.mgir:2:28: 70000 is out of range for f16"},
      {"graph @g() {\n  %k = const bf16[1] dense<[3.4e38]>\n  return %k\n}",
       "bad.mgir:2:29: 3.4e38 is out of range for bf16"},
      {"graph @g() {\n  %k = const f32[2] dense<\"0x0000\">\n  return %k\n}",
       "bad.mgir:2:27: hex data has 2 bytes, type f32[2] needs 8"},
      {"graph @g() {\n  %k = const f32[20] dense_resource<elided>\n  return %k\n}",
       "bad.mgir:2:22: elided constant data (dense_resource) cannot be parsed"},
      {"graph @g() {\n  %k = const f32[2] zeros\n  return %k\n}",
       "bad.mgir:2:21: 'zeros' initializes a state; a constant holds its bytes: dense<0.0>"},
      {"graph @g() {\n  %k = state f32[65536,65536] zeros\n  return %k\n}",
       "bad.mgir:2:3: state is larger than 2 GiB"},
      {"graph @g() {\n  %k = state f32[2] zeros<>\n  return %k\n}",
       "bad.mgir:2:26: expected 'return', got '<'"},
      {"graph @g(%x: f32[2]) {\n  %y = relu(%x) {a = 1, a = 2} : f32[2]\n  return %y\n}",
       "bad.mgir:2:25: duplicate attribute 'a'"},
      {"graph @g(%x: f32[2]) {\n  %y = relu(%x) {a = 99999999999} : f32[2]\n  return %y\n}",
       "bad.mgir:2:22: integer 99999999999 is out of range for an integer attribute [-2147483648, 2147483647]"},
      {"graph @g(%x: f32[2]) {\n  %y = relu(%x) {a = \"open} : f32[2]\n  return %y\n}",
       "bad.mgir:2:22: unterminated string"},
      {"graph @g(%x: f32[2]) {\n  %y = relu(%x) {a = \"\\q\"} : f32[2]\n  return %y\n}",
       "bad.mgir:2:23: invalid escape in string (use \\\", \\\\, \\n, \\t or \\XX)"},
      {"graph @g(%x: f32[2]) {\n  %y = relu(%x) # : f32[2]\n  return %y\n}", "bad.mgir:2:17: unexpected character '#'"},
      {"graph @g(%x: f32[-1]) {\n  return\n}", "bad.mgir:1:18: integer -1 is out of range for a dimension [0, 2147483647]"},
      {"graph @g(%x: f32[65536,65536,65537]) {\n  return\n}", "bad.mgir:1:14: tensor type has more than 2^48 elements"},
      {"graph @g(%x: f99[2]) {\n  return\n}", "bad.mgir:1:14: expected a tensor type like f32[1,3], got 'f99'"},
      {"graph @g(%x: f32[2]) {\n  %y = reshape(%x) {shape = [2147483647, 2147483647, 2147483647]} : f32[2]\n  return %y\n}",
       "bad.mgir:2:8: node 'y' (reshape): target shape is too large"},
      {"graph @g(%x: f32[2]) {\n  %y = fused_reduce(%x) {args = [0, 0, 0], axes = [1], dtypes = [0], fargs = [0.0, 0.0], "
       "keepdims = 0, ops = \"neg\", reduce = \"sum\", shape = [2147483647, 2147483647, 2147483647]} : f32[2]\n  return %y\n}",
       "bad.mgir:2:8: node 'y' (fused_reduce): target shape is too large"},
      {"graph @g(%x: f32[]) {\n  %y = argmax(%x) {axis = 0} : i64[]\n  return %y\n}",
       "bad.mgir:2:8: node 'y' (argmax): expects an input of rank >= 1"},
      {"graph @g(%x: f32[2]) {\n  %y = relu(%x) : f32[2]\n  return %y\n}\ngraph", "bad.mgir:5:1: expected end of file after the graph"},
      {"graph @g(%x: f32[2]) {\n  %y = relu(%x) : f32[2]\n", "bad.mgir:3:1: expected 'return', got end of file"},
      {"graph @g() {\n  %k = const f32[2] dense<1.5x>\n  return %k\n}", "bad.mgir:2:27: malformed number '1.5x'"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK(errorOf(c.text) == c.message);
  }
}

TEST_CASE("a missing file is an error naming the file", "[ir][parser]") {
  REQUIRE_THROWS_WITH(parseGraphFile("/nonexistent/x.mgir"), "/nonexistent/x.mgir: cannot open file");
}

TEST_CASE("integer extremes and keyword-like names parse", "[ir][parser]") {
  Graph g = parseGraph(
      "graph @g(%nan: f32[1]) {\n"
      "  %k = const i64[2] dense<[-9223372036854775808, 9223372036854775807]>\n"
      "  %y = relu(%nan) {inf = 1, nan = inf, none = -inf} : f32[1]\n"
      "  return %y, %k\n"
      "}\n",
      "extremes.mgir");
  CHECK(g.value(g.find("k")).constant->as<int64_t>()[0] == INT64_MIN);
  CHECK(g.nodes[0].i("inf") == 1);
}
