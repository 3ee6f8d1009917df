// The verifier catches each broken invariant and names the culprit.
#include <catch2/catch.hpp>

#include "ir/parser.h"
#include "ir/printer.h"
#include "passes/graph/passes.h"
#include "tests/ir/ir_test_graphs.h"

using namespace mgc;

namespace {

Graph smallGraph() {
  return parseGraph(
      "graph @g(%x: f32[2,3]) {\n"
      "  %k = const f32[3] dense<[1.0, 2.0, 3.0]>\n"
      "  %a = add(%x, %k) : f32[2,3]\n"
      "  %r = relu(%a) : f32[2,3]\n"
      "  return %r\n"
      "}\n",
      "small.mgir");
}

}  // namespace

TEST_CASE("valid graphs verify", "[passes][verify]") {
  Graph g = smallGraph();
  REQUIRE_NOTHROW(verifyGraph(g));
  Graph every = testing::graphWithEveryOp();
  REQUIRE_NOTHROW(verifyGraph(every));
  Graph dtypes = testing::graphWithEveryDType();
  REQUIRE_NOTHROW(verifyGraph(dtypes));
}

TEST_CASE("verifier rejects each broken invariant", "[passes][verify]") {
  SECTION("use before definition") {
    Graph g = smallGraph();
    std::swap(g.nodes[0], g.nodes[1]);
    g.rebuildProducers();
    REQUIRE_THROWS_WITH(verifyGraph(g), "verify: node 'r' (relu): input 0 %a is used before it is defined");
  }
  SECTION("wrong result type") {
    Graph g = smallGraph();
    g.value(g.find("r")).type.shape = {3, 2};
    REQUIRE_THROWS_WITH(verifyGraph(g),
                        "verify: node 'r' (relu): output %r is typed f32[3,2] but the shape rule gives f32[2,3]");
  }
  SECTION("wrong arity") {
    Graph g = smallGraph();
    g.nodes[1].inputs.push_back(g.find("x"));
    REQUIRE_THROWS_WITH(verifyGraph(g), "verify: node 'r' (relu): expects 1..1 inputs, got 2");
  }
  SECTION("none in a required slot") {
    Graph g = smallGraph();
    g.nodes[0].inputs[1] = kNoValue;
    REQUIRE_THROWS_WITH(verifyGraph(g), "verify: node 'a' (add): input 1 is required but is none");
  }
  SECTION("duplicate value names") {
    Graph g = smallGraph();
    g.value(g.find("r")).name = "a";
    REQUIRE_THROWS_WITH(verifyGraph(g), "verify: node output %a: value name is not unique");
  }
  SECTION("value defined twice") {
    Graph g = smallGraph();
    g.nodes[1].outputs[0] = g.find("a");
    REQUIRE_THROWS_WITH(verifyGraph(g), Catch::Contains("node 'r' (relu): output %a is already defined"));
  }
  SECTION("undefined graph output") {
    Graph g = smallGraph();
    g.outputs.push_back(g.addValue("ghost", {DType::F32, {1}}));
    REQUIRE_THROWS_WITH(verifyGraph(g), "verify: graph output 1 %ghost is not defined");
  }
  SECTION("graph output id out of range") {
    Graph g = smallGraph();
    g.outputs.push_back(ValueId(999));
    REQUIRE_THROWS_WITH(verifyGraph(g), "verify: graph output 1 value #999 is not defined");
  }
  SECTION("constant data of the wrong size") {
    Graph g = smallGraph();
    HostTensor bad({DType::F32, {3}});
    bad.data.resize(4);
    g.value(g.find("k")).constant = std::make_shared<const HostTensor>(bad);
    REQUIRE_THROWS_WITH(verifyGraph(g), "verify: constant %k of type f32[3] has 4 bytes of data, expected 12");
  }
  SECTION("constant data typed differently from its value") {
    Graph g = smallGraph();
    g.value(g.find("k")).constant = std::make_shared<const HostTensor>(HostTensor({DType::I32, {3}}));
    REQUIRE_THROWS_WITH(verifyGraph(g), "verify: constant %k holds data of type i32[3] but is typed f32[3]");
  }
  SECTION("input that is a node result") {
    Graph g = smallGraph();
    g.inputs.push_back(g.find("a"));
    REQUIRE_THROWS_WITH(verifyGraph(g), "verify: graph input %a is produced by a node");
  }
  SECTION("stale producer") {
    Graph g = smallGraph();
    g.value(g.find("r")).producer = 0;
    REQUIRE_THROWS_WITH(verifyGraph(g), "verify: node 'r' (relu): output %r records producer 0, expected 1");
  }
}

namespace {

// A decode step's KV-cache write: row %t of %cache, then a read of the result.
std::string stateWriteText(const std::string& body, const std::string& update = "  update %cache = %cache.next\n",
                           const std::string& ret = "%s") {
  return "graph @decode(%row: f32[1,4], %t: i64[]) {\n"
         "  %cache = state f32[3,4] dense<0.0>\n" +
         body + update + "  return " + ret + "\n}\n";
}

const char* kWrite = "  %cache.next = state_write(%cache, %row, %t) {axis = 0} : f32[3,4]\n";
const char* kSum = "  %s = reduce_sum(%cache.next) {axes = [0, 1], keepdims = 0} : f32[]\n";

}  // namespace

TEST_CASE("state_write parses, prints and verifies", "[passes][verify]") {
  std::string text = stateWriteText(std::string(kWrite) + kSum);
  Graph g = parseGraph(text, "decode.mgir");
  REQUIRE_NOTHROW(verifyGraph(g));
  CHECK(printGraph(g) == text);
  const Node& n = g.nodes[0];
  CHECK(n.op == Op::StateWrite);
  CHECK(n.i("axis") == 0);
}

TEST_CASE("state_write's shape rule and in-place rules", "[passes][verify]") {
  auto fails = [](const std::string& text, const std::string& why) {
    INFO(text);
    try {
      Graph g = parseGraph(text, "bad.mgir");
      verifyGraph(g);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK_THAT(e.what(), Catch::Contains(why));
    }
  };
  SECTION("value wider than the state on the axis") {
    fails("graph @g(%row: f32[4,4], %t: i64[]) {\n  %cache = state f32[3,4] dense<0.0>\n"
          "  %n = state_write(%cache, %row, %t) {axis = 0} : f32[3,4]\n  update %cache = %n\n  return %t\n}\n",
          "must match state f32[3,4] except on axis 0");
  }
  SECTION("float offset") {
    fails("graph @g(%row: f32[1,4], %t: f32[]) {\n  %cache = state f32[3,4] dense<0.0>\n"
          "  %n = state_write(%cache, %row, %t) {axis = 0} : f32[3,4]\n  update %cache = %n\n  return %t\n}\n",
          "offset must be a one-element i32 or i64 tensor");
  }
  SECTION("not a state") {
    fails("graph @g(%c: f32[3,4], %row: f32[1,4], %t: i64[]) {\n"
          "  %n = state_write(%c, %row, %t) {axis = 0} : f32[3,4]\n  return %n\n}\n",
          "input 0 %c is not a state value");
  }
  SECTION("result not the state's update") {
    fails(stateWriteText(std::string(kWrite) + kSum, ""), "must be the new value of %cache");
  }
  SECTION("result is a graph output") {
    fails(stateWriteText(kWrite, "  update %cache = %cache.next\n", "%cache.next"), "is a graph output");
  }
  SECTION("old value read after the write") {
    fails(stateWriteText(std::string(kWrite) + "  %s = reduce_sum(%cache) {axes = [0, 1], keepdims = 0} : f32[]\n"),
          "node 's' reads %cache after it is written");
  }
  SECTION("old value read through a view after the write") {
    fails(stateWriteText("  %v = reshape(%cache) {shape = [12]} : f32[12]\n" + std::string(kWrite) +
                         "  %s = reduce_sum(%v) {axes = [0], keepdims = 0} : f32[]\n"),
          "node 's' reads %cache after it is written");
  }
  SECTION("value is the state itself") {
    fails("graph @g(%t: i64[]) {\n  %cache = state f32[3,4] dense<0.0>\n"
          "  %n = state_write(%cache, %cache, %t) {axis = 0} : f32[3,4]\n  update %cache = %n\n  return %t\n}\n",
          "input 1 %cache is the state it writes");
  }
}
