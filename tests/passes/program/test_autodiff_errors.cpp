// Autodiff contract checks that need no fixtures: refusals name the node or
// value, gradients never flow into integer tensors, unused parameters get
// zeros, losses reject mismatched inputs.
#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "ir/eval.h"
#include "passes/program/autodiff.h"
#include "passes/program/loss.h"

using namespace mgc;

namespace {

ValueId out(Graph& g, Op op, const std::string& name, std::vector<ValueId> ins, Attrs attrs = {}) {
  NodeId n = g.addNode(op, name, std::move(ins), std::move(attrs));
  return g.nodes[size_t(n)].outputs[0];
}

ValueId sumAll(Graph& g, ValueId v) {
  std::vector<int64_t> axes;
  for (size_t d = 0; d < g.type(v).shape.size(); ++d) axes.push_back(int64_t(d));
  return out(g, Op::ReduceSum, "sum", {v}, {{"axes", axes}, {"keepdims", int64_t(0)}});
}

void expectError(const std::function<void()>& f, const std::string& what) {
  try {
    f();
    FAIL("no error; expected one mentioning " << what);
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find(what) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("an op without a gradient is refused, naming the node", "[autodiff]") {
  Graph g;
  ValueId x = g.addInput("x", {DType::F32, {3, 4}});
  ValueId p = out(g, Op::ReduceProd, "the_product", {x}, {{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t(0)}});
  ValueId loss = sumAll(g, p);
  expectError([&] { differentiate(g, loss, {x}); }, "the_product");
}

TEST_CASE("state_write has no gradient: a clear refusal", "[autodiff]") {
  Graph g;
  ValueId x = g.addInput("x", {DType::F32, {1, 4}});
  ValueId t = g.addInput("t", {DType::I32, {}});
  ValueId cache = g.addState("cache", HostTensor({DType::F32, {3, 4}}));
  ValueId written = out(g, Op::StateWrite, "kv_write", {cache, x, t}, {{"axis", int64_t(0)}});
  g.stateUpdates = {{cache, written}};
  ValueId loss = sumAll(g, written);
  expectError([&] { differentiate(g, loss, {x}); }, "'kv_write' (state_write): state_write has no gradient");
}

TEST_CASE("losses and wrt values are validated", "[autodiff]") {
  Graph g;
  ValueId x = g.addInput("x", {DType::F32, {3, 4}});
  ValueId i = g.addInput("labels", {DType::I64, {3}});
  ValueId y = out(g, Op::Tanh, "t", {x});
  expectError([&] { differentiate(g, y, {x}); }, "one element");
  ValueId loss = sumAll(g, y);
  expectError([&] { differentiate(g, loss, {i}); }, "labels");
  expectError([&] { addLoss(g, x, x, {LossKind::CrossEntropy}); }, "labels must be");
  expectError([&] { addLoss(g, x, i, {LossKind::MSE}); }, "does not match");
}

TEST_CASE("integer tensors get no gradient; unused parameters get zeros", "[autodiff]") {
  Graph g;
  ValueId table = g.addInput("table", {DType::F32, {5, 3}});
  ValueId idx = g.addInput("idx", {DType::I64, {4}});
  ValueId unused = g.addInput("unused", {DType::F32, {2}});
  // the index path goes through an integer Add and a float Cast: no gradient
  // may try to flow into it
  HostTensor one({DType::I64, {}});
  one.setI(0, 1);
  ValueId shifted = out(g, Op::Add, "shift", {idx, g.addConstant("one", one)});
  ValueId rows = out(g, Op::Gather, "rows", {table, shifted}, {{"axis", int64_t(0)}});
  ValueId asFloat = out(g, Op::Cast, "idx_f", {shifted}, {{"to", int64_t(DType::F32)}});
  ValueId weighted = out(g, Op::Mul, "w", {rows, out(g, Op::Reshape, "col", {asFloat}, {{"shape", std::vector<int64_t>{4, 1}}})});
  ValueId loss = sumAll(g, weighted);
  GradResult r = differentiate(g, loss, {table, unused});
  REQUIRE(r.grads.size() == 2);
  CHECK(g.value(r.grads.at(unused)).isConstant());

  g.outputs = {r.grads.at(table), r.grads.at(unused)};
  HostTensor t({DType::F32, {5, 3}}), ix({DType::I64, {4}}), u({DType::F32, {2}});
  for (int64_t k = 0; k < 15; ++k) t.setF(k, double(k));
  int64_t ids[4] = {0, 3, 0, 2};  // rows 1, 4, 1, 3 after the shift
  for (int64_t k = 0; k < 4; ++k) ix.setI(k, ids[k]);
  auto res = evalGraph(g, {{"table", t}, {"idx", ix}, {"unused", u}});
  const HostTensor& dt = res.at(g.value(r.grads.at(table)).name);
  // row 1 gathered twice with weight 1, row 4 with weight 4, row 3 with 3
  double want[5] = {0, 2, 0, 3, 4};
  for (int64_t row = 0; row < 5; ++row)
    for (int64_t c = 0; c < 3; ++c) CHECK(dt.getF(row * 3 + c) == want[row]);
  const HostTensor& du = res.at(g.value(r.grads.at(unused)).name);
  CHECK(du.getF(0) == 0.0);
  CHECK(du.getF(1) == 0.0);
}
