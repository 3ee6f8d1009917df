// Reductions and ArgMax on odd shapes, against a reference that buckets
// every element by its decoded output coordinate.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>

#include "ir/fused_reduce.h"
#include "tests/ir/eval_test_util.h"

using namespace evaltest;

namespace {

// Groups x's elements by output position (reduced axes dropped).
std::map<std::vector<int64_t>, std::vector<double>> buckets(const HostTensor& x, const std::vector<int64_t>& axes) {
  std::map<std::vector<int64_t>, std::vector<double>> b;
  for (int64_t i = 0; i < x.numel(); ++i) {
    auto c = unravel(i, x.type.shape);
    std::vector<int64_t> key;
    for (size_t d = 0; d < c.size(); ++d) {
      bool reduced = axes.empty();
      for (int64_t a : axes) reduced |= size_t(a) == d;
      if (!reduced) key.push_back(c[d]);
    }
    b[key].push_back(x.getF(i));
  }
  return b;
}

double fold(Op op, const std::vector<double>& v) {
  double r = op == Op::ReduceProd ? 1 : op == Op::ReduceMax ? -INFINITY : op == Op::ReduceMin ? INFINITY : 0;
  for (double e : v) {
    if (op == Op::ReduceSum || op == Op::ReduceMean) r += e;
    if (op == Op::ReduceProd) r *= e;
    if (op == Op::ReduceMax) r = std::max(r, e);
    if (op == Op::ReduceMin) r = std::min(r, e);
  }
  return op == Op::ReduceMean ? r / double(v.size()) : r;
}

}  // namespace

TEST_CASE("reductions over axis subsets with and without keepdims", "[eval][reduce]") {
  HostTensor x = randomTensor(DType::F64, {5, 6, 7}, 81, 0.5, 1.5);
  std::vector<std::vector<int64_t>> axesList = {{1}, {0, 2}, {}, {0, 1, 2}, {2}};
  for (Op op : {Op::ReduceSum, Op::ReduceMean, Op::ReduceMax, Op::ReduceMin, Op::ReduceProd})
    for (const auto& axes : axesList)
      for (int64_t keep : {0, 1}) {
        INFO(mgc::opName(op) << " axes " << mgc::shapeStr(axes) << " keepdims " << keep);
        HostTensor y = run(op, {x}, {{"axes", axes}, {"keepdims", keep}});
        Shape want = {};
        for (int64_t d = 0; d < 3; ++d) {
          bool red = axes.empty() || std::count(axes.begin(), axes.end(), d);
          if (!red) want.push_back(x.type.shape[size_t(d)]);
          else if (keep) want.push_back(1);
        }
        REQUIRE(y.type.shape == want);
        std::vector<double> expect;
        for (auto& [key, vals] : buckets(x, axes)) expect.push_back(fold(op, vals));
        checkClose(y, expect, 1e-12, 1e-12);
      }
}

TEST_CASE("reduce on f32 odd shape, negative axis", "[eval][reduce]") {
  HostTensor x = randomTensor(DType::F32, {5, 6, 7}, 82);
  HostTensor y = run(Op::ReduceSum, {x}, {{"axes", std::vector<int64_t>{-1}}, {"keepdims", int64_t(0)}});
  REQUIRE(y.type.shape == Shape{5, 6});
  std::vector<double> expect;
  for (auto& [key, vals] : buckets(x, {2})) expect.push_back(fold(Op::ReduceSum, vals));
  checkClose(y, expect, 1e-6, 1e-6);
}

TEST_CASE("integer reductions are exact", "[eval][reduce][i64]") {
  // a shape's element count: ReduceProd of an i64 shape vector
  HostTensor shape = itensor(DType::I64, {4}, {1 << 20, 1 << 20, 1 << 12, 3});
  checkExact(run(Op::ReduceProd, {shape}, {{"keepdims", int64_t(0)}}), {int64_t(3) << 52});
  const int64_t big = (int64_t(1) << 53) + 1;
  HostTensor v = itensor(DType::I64, {2, 3}, {big, 1, -1, 7, -8, 2});
  checkExact(run(Op::ReduceSum, {v}, {{"axes", std::vector<int64_t>{1}}}), {big, 1});
  checkExact(run(Op::ReduceMax, {v}, {{"axes", std::vector<int64_t>{0}}}), {big, 1, 2});
  checkExact(run(Op::ReduceMin, {v}, {{"axes", std::vector<int64_t>{0}}}), {7, -8, -1});
  // integer mean truncates toward zero
  checkExact(run(Op::ReduceMean, {itensor(DType::I32, {2, 2}, {1, 2, -1, -4})}, {{"axes", std::vector<int64_t>{1}}}), {1, -2});
}

TEST_CASE("argmax takes the first maximum", "[eval][argmax]") {
  HostTensor x = tensor(DType::F32, {2, 4}, {1, 3, 3, 2, 5, 5, 5, 5});
  HostTensor y = run(Op::ArgMax, {x}, {{"axis", int64_t(1)}, {"keepdims", int64_t(0)}});
  REQUIRE(y.type == (mgc::TensorType{DType::I64, {2}}));
  checkExact(y, {1, 0});
  HostTensor k = run(Op::ArgMax, {x}, {{"axis", int64_t(0)}, {"keepdims", int64_t(1)}});
  REQUIRE(k.type.shape == Shape{1, 4});
  checkExact(k, {1, 1, 1, 1});
  // i64 values that collide in double
  const int64_t p = int64_t(1) << 53;
  checkExact(run(Op::ArgMax, {itensor(DType::I64, {3}, {p, p + 1, p})}, {{"axis", int64_t(0)}}), {1});
}

TEST_CASE("argmax on odd shapes, every axis", "[eval][argmax]") {
  HostTensor x = randomTensor(DType::F32, {5, 6, 7}, 83);
  const Shape s = {5, 6, 7};
  for (int64_t axis : {0, 1, 2}) {
    HostTensor y = run(Op::ArgMax, {x}, {{"axis", axis}, {"keepdims", int64_t(1)}});
    Shape os = s;
    os[size_t(axis)] = 1;
    REQUIRE(y.type.shape == os);
    std::vector<int64_t> want;
    for (int64_t o = 0; o < numel(os); ++o) {
      auto c = unravel(o, os);
      int64_t best = 0;
      double bv = -INFINITY;
      for (int64_t k = 0; k < s[size_t(axis)]; ++k) {
        c[size_t(axis)] = k;
        if (x.getF(ravel(c, s)) > bv) bv = x.getF(ravel(c, s)), best = k;
      }
      want.push_back(best);
    }
    checkExact(y, want);
  }
}

TEST_CASE("fused_reduce: the program's result viewed in shape, then reduced", "[eval][reduce][fused]") {
  // (x - m)² over a [2,3,4] x with m [1,3,1], viewed [2,3,2,2], summed over
  // the last two axes: per (n, c), the squared deviations of two pairs.
  HostTensor x = randomTensor(DType::F32, {2, 3, 4}, 83), m = randomTensor(DType::F32, {1, 3, 1}, 84);
  HostTensor y = run(Op::FusedReduce, {x, m},
                     {{"ops", std::string("sub,mul")}, {"args", std::vector<int64_t>{0, 1, 0, 2, 2, 0}},
                      {"dtypes", std::vector<int64_t>{0, 0}}, {"fargs", std::vector<double>(4, 0.0)},
                      {"reduce", std::string("sum")}, {"shape", std::vector<int64_t>{2, 3, 2, 2}},
                      {"axes", std::vector<int64_t>{2, 3}}, {"keepdims", int64_t(0)}});
  REQUIRE(y.type.shape == Shape{2, 3});
  std::vector<double> expect;
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 3; ++c) {
      double s = 0;
      for (int64_t i = 0; i < 4; ++i) {
        const double d = double(float(x.getF(n * 12 + c * 4 + i) - m.getF(c)));
        s += double(float(d * d));
      }
      expect.push_back(s);
    }
  checkClose(y, expect, 1e-5, 1e-6);
  // A shape that does not hold the program's result is an error naming the node.
  REQUIRE_THROWS_WITH(run(Op::FusedReduce, {x, m},
                          {{"ops", std::string("sub")}, {"args", std::vector<int64_t>{0, 1, 0}},
                           {"dtypes", std::vector<int64_t>{0}}, {"fargs", std::vector<double>(2, 0.0)},
                           {"reduce", std::string("sum")}, {"shape", std::vector<int64_t>{5, 5}},
                           {"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t(0)}}),
                      Catch::Contains("fused_reduce") && Catch::Contains("does not hold"));
}

TEST_CASE("broadcastViewStrides: a broadcast input's strides in a reshaped view", "[eval][reduce][fused]") {
  using S = std::vector<int64_t>;
  using mgc::broadcastViewStrides;
  // Contiguous: any view is row-major.
  CHECK(*broadcastViewStrides({4, 6, 35}, {4, 6, 35}, {4, 6, 5, 7}) == S{210, 35, 7, 1});
  // A per-channel value: its dim stays whole in the view.
  CHECK(*broadcastViewStrides({1, 6, 1}, {4, 6, 35}, {4, 6, 5, 7}) == S{0, 1, 0, 0});
  CHECK(broadcastViewStrides({6, 1, 1}, {4, 6, 5, 7}, {24, 35}) == std::nullopt);  // merges 4 (stride 0) with 6
  // Broadcast dims merge with each other; size-1 dims anywhere.
  CHECK(*broadcastViewStrides({7}, {4, 6, 7}, {1, 24, 1, 7}) == S{0, 0, 0, 1});
  CHECK(*broadcastViewStrides({1}, {3, 4}, {12}) == S{0});
  // [4,1] broadcast to [4,3] viewed as [12]: no strides walk it.
  CHECK(broadcastViewStrides({4, 1}, {4, 3}, {12}) == std::nullopt);
  CHECK(broadcastViewStrides({4, 3}, {4, 3}, {5}) == std::nullopt);    // element counts differ
  CHECK(broadcastViewStrides({2, 3}, {4, 3}, {12}) == std::nullopt);   // not a broadcast
}
