// GraphBuilder (ir/builder.h): naming, folding while building,
// composites — checked against the reference evaluator.
#include <catch2/catch.hpp>
#include <cmath>

#include "ir/builder.h"
#include "ir/eval.h"

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

TEST_CASE("builder: rms_norm and attention match a direct computation") {
  GraphBuilder b;
  ValueId x = b.g.addInput("x", TensorType{DType::F32, {2, 2}});
  ValueId w = b.addConstant("w", f32({2}, {1.0, 2.0}));
  ValueId rms = b.rmsNorm("rms", x, w, 0.0);
  // q, k, v [1, 2, 2]; a causal mask drops key 1 for query 0.
  ValueId q = b.g.addInput("q", TensorType{DType::F32, {1, 2, 2}});
  ValueId k = b.g.addInput("k", TensorType{DType::F32, {1, 2, 2}});
  ValueId v = b.g.addInput("v", TensorType{DType::F32, {1, 2, 2}});
  ValueId mask = b.addConstant("mask", f32({2, 2}, {0, -1e9, 0, 0}));
  ValueId att = b.attention("att", q, k, v, mask, 0.5);
  ValueId open = b.attention("open", q, k, v, kNoValue, 0.5);
  CHECK(b.g.type(att).shape == Shape{1, 2, 2});
  b.g.outputs = {rms, att, open};

  auto out = evalGraph(b.g, {{"x", f32({2, 2}, {3, 4, 1, 1})},
                             {"q", f32({1, 2, 2}, {1, 0, 0, 1})},
                             {"k", f32({1, 2, 2}, {1, 0, 0, 2})},
                             {"v", f32({1, 2, 2}, {10, 20, 30, 40})}});
  const HostTensor& r = out.at(b.g.value(rms).name);
  const double rms0 = std::sqrt((9.0 + 16.0) / 2.0);
  CHECK(r.getF(0) == Approx(3.0 / rms0));
  CHECK(r.getF(1) == Approx(2.0 * 4.0 / rms0));
  CHECK(r.getF(3) == Approx(2.0));

  // Query 0 sees only key 0 under the mask: output = v[0].
  const HostTensor& a = out.at(b.g.value(att).name);
  CHECK(a.getF(0) == Approx(10.0));
  CHECK(a.getF(1) == Approx(20.0));
  // Query 1: scores q1·k = [0, 2] · 0.5 = [0, 1] → softmax weights.
  const double p1 = std::exp(1.0) / (1.0 + std::exp(1.0));
  CHECK(a.getF(2) == Approx((1 - p1) * 10 + p1 * 30));
  CHECK(a.getF(3) == Approx((1 - p1) * 20 + p1 * 40));
  // Without the mask query 0 weighs both keys: scores [1, 0] · 0.5.
  const double p0 = std::exp(0.5) / (std::exp(0.5) + 1.0);
  CHECK(out.at(b.g.value(open).name).getF(0) == Approx(p0 * 10 + (1 - p0) * 30));
}

TEST_CASE("builder: rotary embedding (rotate half) and causal mask") {
  GraphBuilder b;
  // x [1, 4]: halves (1, 2) and (3, 4); rotate_half(x) = (-3, -4, 1, 2).
  ValueId x = b.g.addInput("x", TensorType{DType::F32, {1, 4}});
  ValueId cos = b.addConstant("cos", f32({1, 4}, {0.5, 0.25, 0.5, 0.25}));
  ValueId sin = b.addConstant("sin", f32({1, 4}, {2, 3, 2, 3}));
  ValueId r = b.rotaryHalf("rope", x, cos, sin);
  CHECK_THROWS_WITH(b.rotaryHalf("odd", b.g.addInput("y", TensorType{DType::F32, {3}}), cos, sin),
                    Catch::Contains("odd: rotary embedding needs an even last dimension"));
  // Constant positions fold to a constant mask; query 1 sees keys 0 and 1.
  HostTensor q(TensorType{DType::I64, {2}}), k(TensorType{DType::I64, {3}});
  for (int64_t i = 0; i < 3; ++i) {
    if (i < 2) q.setI(i, i);
    k.setI(i, i);
  }
  ValueId mask = b.causalMask("mask", b.addConstant("qp", q), b.addConstant("kp", k), DType::F32);
  REQUIRE(b.g.value(mask).isConstant());
  const HostTensor& m = *b.g.value(mask).constant;
  CHECK(m.type.shape == Shape{2, 3});
  CHECK(m.getF(0) == 0.0);
  CHECK(m.getF(1) < -1e38);
  CHECK(m.getF(2) < -1e38);
  CHECK(m.getF(3) == 0.0);
  CHECK(m.getF(4) == 0.0);
  CHECK(m.getF(5) < -1e38);
  CHECK(std::isfinite(m.getF(5)));

  b.g.outputs = {r};
  auto out = evalGraph(b.g, {{"x", f32({1, 4}, {1, 2, 3, 4})}, {"y", f32({3}, {0, 0, 0})}});
  const HostTensor& y = out.at(b.g.value(r).name);
  CHECK(y.getF(0) == Approx(1 * 0.5 - 3 * 2));
  CHECK(y.getF(1) == Approx(2 * 0.25 - 4 * 3));
  CHECK(y.getF(2) == Approx(3 * 0.5 + 1 * 2));
  CHECK(y.getF(3) == Approx(4 * 0.25 + 2 * 3));
}
