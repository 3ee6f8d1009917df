// Hostile inputs: every truncation and thousands of mutations of a valid
// file, plus pathological shapes. The parser must answer each with a graph
// or an mgc::Error — any other exception, or a crash under ASan, fails.
#include <catch2/catch.hpp>

#include "ir/parser.h"
#include "ir/printer.h"
#include "passes/graph/passes.h"
#include "tests/ir/ir_test_graphs.h"

using namespace mgc;

namespace {

// Parses `text`; a graph that parses must also verify and re-print.
void parseSafely(const std::string& text) {
  try {
    Graph g = parseGraph(text, "hostile.mgir");
    verifyGraph(g);
    (void)printGraph(g);
  } catch (const Error&) {
  }
}

std::string sampleText() {
  Graph g = testing::graphWithEveryOp();
  std::string text = printGraph(g);
  // Keep the sample small enough to truncate at every byte.
  return text.substr(0, std::min<size_t>(text.size(), 6000)) + printGraph(testing::graphWithEveryDType()).substr(0, 3000);
}

}  // namespace

TEST_CASE("every truncation of a valid file parses or fails cleanly", "[ir][parser][hostile]") {
  std::string text = printGraph(testing::graphWithEveryOp());
  for (size_t n = 0; n < text.size(); n += 7) REQUIRE_NOTHROW(parseSafely(text.substr(0, n)));
}

TEST_CASE("random byte mutations parse or fail cleanly", "[ir][parser][hostile]") {
  const std::string base = sampleText();
  const char kInteresting[] = "%@\"\\[]{}<>(),:=-.0123456789e \n/xnone";
  uint32_t s = 12345;
  auto rnd = [&]() {
    s = s * 1664525u + 1013904223u;
    return s >> 8;
  };
  for (int iter = 0; iter < 3000; ++iter) {
    std::string t = base;
    int edits = 1 + int(rnd() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rnd() % t.size();
      switch (rnd() % 4) {
        case 0: t[pos] = char(rnd() & 0xff); break;
        case 1: t[pos] = kInteresting[rnd() % (sizeof kInteresting - 1)]; break;
        case 2: t.erase(pos, 1 + rnd() % 8); break;
        case 3: t.insert(pos, t.substr(rnd() % t.size(), 1 + rnd() % 16)); break;
      }
      if (t.empty()) t = "x";
    }
    REQUIRE_NOTHROW(parseSafely(t));
  }
}

TEST_CASE("pathological inputs fail cleanly", "[ir][parser][hostile]") {
  std::vector<std::string> inputs = {
      std::string(100000, '['),
      "graph @g(%x: f32[" + std::string(100000, '[') + "]) {return}",
      "graph @g(%x: f32[1" + std::string(1000, ',') + "]) {return}",
      "graph @g(%x: f32[" + std::string(50, '1') + "]) {return}",
      "graph @g() {\n %k = const f32[2147483647,2147483647] dense<0.0>\n return %k }",
      "graph @g() {\n %k = const f32[100000,100000] dense<0.0>\n return %k }",
      "graph @g() {\n %k = const f32[100000,100000] dense<[1.0]>\n return %k }",
      "graph @g() {\n %k = const f32[100000,100000] dense<\"0x00\">\n return %k }",
      "graph @g() {\n %k = const f64[1] dense<[1e99999]>\n return %k }",
      "graph @g() {\n %k = const i64[1] dense<[99999999999999999999999]>\n return %k }",
      "graph @g(%x: f32[2]) {\n %y = relu(%x) {a = 1e999} : f32[2]\n return %y }",
      "graph @g(%x: f32[2]) {\n %y = concat(%x) {axis = 5} : f32[2]\n return %y }",
      "graph @g(%x: f32[]) {\n %y = concat(%x, %x) {axis = 0} : f32[2]\n return %y }",
      "graph @g(%x: f32[]) {\n %y = reduce_sum(%x) {axes = [0]} : f32[]\n return %y }",
      "graph @g(%x: f32[], %i: i64[1]) {\n %y = gather(%x, %i) {axis = 0} : f32[1]\n return %y }",
      "graph @g(%x: f32[2]) {\n %y = expand(%x) {shape = [-5]} : f32[2]\n return %y }",
      "graph @g(%x: f32[2]) {\n %y = expand(%x) {shape = [2147483647, 2147483647, 2147483647]} : f32[2]\n return %y }",
      "graph @g(%x: f32[2]) {\n %y = pad(%x) {pads = [-5, 0]} : f32[2]\n return %y }",
      "graph @g(%x: f32[1,1,1,1], %w: f32[1,1,1,1]) {\n %y = conv(%x, %w) {dilations = [2147483647, 2147483647], "
      "pads = [-2147483648, 0, 0, 0]} : f32[1,1,1,1]\n return %y }",
      "graph @g(%x: f32[2]) {\n %y = transpose(%x) {perm = [2147483647]} : f32[2]\n return %y }",
      "graph @g(%x: f32[2]) {\n %y = slice(%x) {starts = [-2147483648], ends = [2147483647], steps = [-2147483648]} : "
      "f32[2]\n return %y }",
      "graph @g(%x: f32[2]) {\n %y = cast(%x) {to = 99} : f32[2]\n return %y }",
      "graph @g(%x: f32[2]) {\n %y = softmax(%x) {axis = [1, 2.5, nan, -inf]} : f32[2]\n return %y }",
      "graph @g(%x: f32[2]) {\n %y = max_pool(%x) {kernel = \"str\"} : f32[2]\n return %y }",
      "graph @" + std::string(1000000, 'a') + "() { return %" + std::string(1000000, 'b') + " }",
      "graph @g() { %\"\" = const f32[] dense<1.0> return }",
      std::string("graph @g() { %k = const f32[1] dense<[1.0]> ") + '\0' + " return %k }",
  };
  for (const std::string& in : inputs) {
    INFO(in.substr(0, 200));
    REQUIRE_NOTHROW(parseSafely(in));
    REQUIRE_THROWS_AS(parseGraph(in, "p.mgir"), Error);
  }
}
