// The verifier catches each broken invariant and names the culprit.
#include <catch2/catch.hpp>

#include "compiler/ir/parser.h"
#include "passes/passes.h"
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
