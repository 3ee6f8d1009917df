// GraphBuilder (compiler/ir/builder.h): naming, folding while building,
// composites — checked against the reference evaluator.
#include <catch2/catch.hpp>
#include <cmath>

#include "compiler/ir/builder.h"
#include "compiler/ir/eval.h"

using namespace mgc;

namespace {

HostTensor f32(const Shape& s, std::vector<double> v) {
  HostTensor t(TensorType{DType::F32, s});
  for (size_t i = 0; i < v.size(); ++i) t.setF(int64_t(i), v[i]);
  return t;
}

}  // namespace

TEST_CASE("builder: fresh names avoid the graph and the reserved names") {
  GraphBuilder b;
  b.reserved.insert("n/relu");
  ValueId x = b.g.addInput("x", TensorType{DType::F32, {2}});
  ValueId y = b.emit(Op::Relu, {x}, {}, "n");
  CHECK(b.g.value(y).name == "n/relu.1");
  CHECK(b.g.value(b.emit(Op::Relu, {y}, {}, "n")).name == "n/relu.2");
  CHECK(b.g.value(b.emit(Op::Relu, {y}, {}, "n", "out")).name == "out");
  CHECK(b.g.value(b.scalar("n", DType::F32, 1.0)).name == "n/const");
  CHECK(b.g.value(b.scalar("n", DType::F32, 1.0)).name == "n/const.1");
  CHECK(b.g.nodes.size() == 3);
}

TEST_CASE("builder: all-constant nodes fold unless they read a kept value") {
  GraphBuilder b;
  ValueId c = b.addConstant("c", f32({2}, {1, -2}));
  ValueId folded = b.emit(Op::Abs, {c}, {}, "n");
  REQUIRE(b.g.value(folded).isConstant());
  CHECK(b.g.value(folded).constant->getF(1) == 2.0);
  CHECK(b.g.nodes.empty());

  b.keepUnfolded.insert(c);
  ValueId kept = b.emit(Op::Abs, {c}, {}, "n");
  CHECK_FALSE(b.g.value(kept).isConstant());
  CHECK(b.g.nodes.size() == 1);
  // Shape errors are the op's shape rule's, as they are.
  CHECK_THROWS_AS(b.emit(Op::Add, {c, b.addConstant("d", f32({3}, {1, 2, 3}))}, {}, "n"), Error);
}

TEST_CASE("builder: composites") {
  GraphBuilder b;
  ValueId x = b.g.addInput("x", TensorType{DType::F32, {2, 3}});
  CHECK(b.reshapeTo("r", x, {2, 3}) == x);
  ValueId r = b.reshapeTo("r", x, {3, 2});
  CHECK(b.g.type(r).shape == Shape{3, 2});
  ValueId rev = b.reverseAxis("rev", x, 1);
  CHECK(b.g.type(rev).shape == Shape{2, 3});
  ValueId column = b.reshapeTo("r1", x, {6, 1});
  CHECK(b.reverseAxis("rev", column, 1) == column);  // nothing to reverse on an axis of 1
  GraphBuilder::Normalized n = b.normalize("ln", x, {1}, 1e-5);
  CHECK(b.g.type(n.mean).shape == Shape{2, 1});
  b.g.outputs = {rev, n.mean, n.variance, n.normalized};

  auto out = evalGraph(b.g, {{"x", f32({2, 3}, {1, 2, 3, 4, 4, 4})}});
  const HostTensor& reversed = out.at(b.g.value(rev).name);
  CHECK(reversed.getF(0) == 3.0);
  CHECK(reversed.getF(2) == 1.0);
  CHECK(out.at(b.g.value(n.mean).name).getF(0) == Approx(2.0));
  CHECK(out.at(b.g.value(n.variance).name).getF(0) == Approx(2.0 / 3.0));
  CHECK(out.at(b.g.value(n.variance).name).getF(1) == Approx(0.0));
  const HostTensor& y = out.at(b.g.value(n.normalized).name);
  CHECK(y.getF(0) == Approx(-1.0 / std::sqrt(2.0 / 3.0 + 1e-5)));
  CHECK(y.getF(1) == Approx(0.0).margin(1e-6));
  CHECK(y.getF(4) == Approx(0.0).margin(1e-6));
}
