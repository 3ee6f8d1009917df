// evalGraph: multi-node graphs with constants, input validation, and
// evalNode's own input checks.
#include <catch2/catch.hpp>

#include "tests/ir/eval_test_util.h"

using namespace evaltest;
using mgc::Graph;
using mgc::TensorType;
using mgc::ValueId;

TEST_CASE("evalGraph runs nodes in order with constants", "[eval][graph]") {
  // y = relu(x @ w + b) * 2, and a side output reusing an intermediate
  Graph g;
  ValueId x = g.addInput("x", TensorType{DType::F32, {2, 3}});
  ValueId w = g.addConstant("w", tensor(DType::F32, {3, 2}, {1, -1, 2, 0, 0, 1}));
  ValueId b = g.addConstant("b", tensor(DType::F32, {2}, {0.5, -10}));
  ValueId two = g.addConstant("two", tensor(DType::F32, {}, {2}));
  ValueId mm = g.nodes[size_t(g.addNode(Op::MatMul, "mm", {x, w}))].outputs[0];
  ValueId add = g.nodes[size_t(g.addNode(Op::Add, "add", {mm, b}))].outputs[0];
  ValueId relu = g.nodes[size_t(g.addNode(Op::Relu, "relu", {add}))].outputs[0];
  ValueId y = g.nodes[size_t(g.addNode(Op::Mul, "y", {relu, two}))].outputs[0];
  g.outputs = {y, add};
  auto out = mgc::evalGraph(g, {{"x", tensor(DType::F32, {2, 3}, {1, 2, 3, -1, 0, 4})}});
  REQUIRE(out.size() == 2);
  // x @ w = [[5, 2], [-1, 5]]
  checkClose(out.at("add"), {5.5, -8, -0.5, -5}, 0, 0);
  checkClose(out.at(g.value(y).name), {11, 0, 0, 0}, 0, 0);
}

TEST_CASE("evalGraph can output inputs and constants directly", "[eval][graph]") {
  Graph g;
  ValueId x = g.addInput("x", TensorType{DType::I64, {2}});
  ValueId c = g.addConstant("c", itensor(DType::I64, {1}, {42}));
  g.outputs = {x, c};
  auto out = mgc::evalGraph(g, {{"x", itensor(DType::I64, {2}, {7, 8})}});
  checkExact(out.at("x"), {7, 8});
  checkExact(out.at("c"), {42});
}

TEST_CASE("evalGraph folds an ONNX-style shape subgraph", "[eval][graph][i64]") {
  // Reshape target = concat(shape[0:1], [-1]) with shape = [8, 3, 5, 7]
  Graph g;
  ValueId shape = g.addConstant("shape", itensor(DType::I64, {4}, {8, 3, 5, 7}));
  ValueId minus1 = g.addConstant("m1", itensor(DType::I64, {1}, {-1}));
  ValueId batch = g.nodes[size_t(g.addNode(Op::Slice, "batch", {shape},
                                           {{"starts", std::vector<int64_t>{0}},
                                            {"ends", std::vector<int64_t>{1}},
                                            {"steps", std::vector<int64_t>{1}}}))]
                      .outputs[0];
  ValueId target = g.nodes[size_t(g.addNode(Op::Concat, "target", {batch, minus1}, {{"axis", int64_t(0)}}))].outputs[0];
  ValueId idx = g.addConstant("idx", itensor(DType::I64, {}, {2}));
  ValueId h = g.nodes[size_t(g.addNode(Op::Gather, "h", {shape, idx}, {{"axis", int64_t(0)}}))].outputs[0];
  ValueId hh = g.nodes[size_t(g.addNode(Op::Mul, "hh", {h, h}))].outputs[0];
  g.outputs = {target, hh};
  auto out = mgc::evalGraph(g, {});
  REQUIRE(out.at("target").type == (TensorType{DType::I64, {2}}));
  checkExact(out.at("target"), {8, -1});
  checkExact(out.at("hh"), {25});
}

TEST_CASE("evalGraph rejects missing or mistyped inputs", "[eval][graph]") {
  Graph g;
  ValueId x = g.addInput("x", TensorType{DType::F32, {2}});
  g.outputs = {g.nodes[size_t(g.addNode(Op::Exp, "e", {x}))].outputs[0]};
  REQUIRE_THROWS_AS(mgc::evalGraph(g, {}), mgc::Error);
  REQUIRE_THROWS_WITH(mgc::evalGraph(g, {}), Catch::Contains("'x'") && Catch::Contains("missing"));
  REQUIRE_THROWS_AS(mgc::evalGraph(g, {{"x", tensor(DType::F32, {3}, {1, 2, 3})}}), mgc::Error);
  REQUIRE_THROWS_AS(mgc::evalGraph(g, {{"x", tensor(DType::F64, {2}, {1, 2})}}), mgc::Error);
  HostTensor truncated = tensor(DType::F32, {2}, {1, 2});
  truncated.data.resize(4);
  REQUIRE_THROWS_AS(mgc::evalGraph(g, {{"x", truncated}}), mgc::Error);
  REQUIRE_NOTHROW(mgc::evalGraph(g, {{"x", tensor(DType::F32, {2}, {1, 2})}}));
}

TEST_CASE("evalNode checks its input tensors against the graph", "[eval][graph]") {
  Graph g;
  ValueId a = g.addInput("a", TensorType{DType::F32, {2}});
  ValueId b = g.addInput("b", TensorType{DType::F32, {2}});
  const mgc::Node& n = g.nodes[size_t(g.addNode(Op::Add, "sum", {a, b}))];
  HostTensor ta = tensor(DType::F32, {2}, {1, 2}), wrong = tensor(DType::F32, {3}, {1, 2, 3});
  REQUIRE_THROWS_WITH(mgc::evalNode(g, n, {&ta, &wrong}), Catch::Contains("'sum'"));
  REQUIRE_THROWS_AS(mgc::evalNode(g, n, {&ta}), mgc::Error);
  auto out = mgc::evalNode(g, n, {&ta, &ta});
  REQUIRE(out.size() == 1);
  checkClose(out[0], {2, 4}, 0, 0);
}
