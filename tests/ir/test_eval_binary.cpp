// Binary ops and Where: numpy broadcasting on odd shapes, integer rules
// (truncating division, integer pow), comparisons and logic producing bool.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>

#include "tests/ir/eval_test_util.h"

using namespace evaltest;

namespace {

// Reference broadcasting: read operand `t` (shape ts) at output coordinate c.
double at(const HostTensor& t, const std::vector<int64_t>& c) {
  const Shape& ts = t.type.shape;
  std::vector<int64_t> tc(ts.size());
  size_t lead = c.size() - ts.size();
  for (size_t d = 0; d < ts.size(); ++d) tc[d] = ts[d] == 1 ? 0 : c[lead + d];
  return t.getF(ravel(tc, ts));
}

}  // namespace

TEST_CASE("arithmetic broadcasts like numpy", "[eval][binary]") {
  const Shape out = {5, 6, 7};
  HostTensor a = randomTensor(DType::F32, {5, 1, 7}, 11), b = randomTensor(DType::F32, {6, 1}, 12, 0.5, 3);
  std::vector<std::pair<Op, std::function<double(double, double)>>> ops = {
      {Op::Add, [](double p, double q) { return p + q; }},
      {Op::Sub, [](double p, double q) { return p - q; }},
      {Op::Mul, [](double p, double q) { return p * q; }},
      {Op::Div, [](double p, double q) { return p / q; }},
      {Op::Pow, [](double p, double q) { return std::exp(q * std::log(std::fabs(p))) * (p < 0 ? NAN : 1); }},
      {Op::Max, [](double p, double q) { return p > q ? p : q; }},
      {Op::Min, [](double p, double q) { return p < q ? p : q; }},
  };
  for (auto& [op, ref] : ops) {
    INFO(mgc::opName(op));
    // the pow reference is only defined for positive bases
    HostTensor lhs = op == Op::Pow ? randomTensor(DType::F32, {5, 1, 7}, 13, 0.1, 3) : a;
    HostTensor y = run(op, {lhs, b});
    REQUIRE(y.type.shape == out);
    std::vector<double> want;
    for (int64_t i = 0; i < numel(out); ++i) {
      auto c = unravel(i, out);
      want.push_back(ref(at(lhs, c), at(b, c)));
    }
    checkClose(y, want, 1e-6, 1e-6);
    // and the other way round: scalar-like operand on the left
    if (op == Op::Sub) {
      HostTensor z = run(op, {b, lhs});
      for (int64_t i = 0; i < numel(out); ++i) want[size_t(i)] = -want[size_t(i)];
      checkClose(z, want, 1e-6, 1e-6);
    }
  }
}

TEST_CASE("rank-0 operands broadcast", "[eval][binary]") {
  HostTensor s = tensor(DType::F64, {}, {2.5});
  HostTensor x = tensor(DType::F64, {2, 3}, {1, 2, 3, 4, 5, 6});
  checkClose(run(Op::Mul, {x, s}), {2.5, 5, 7.5, 10, 12.5, 15}, 0, 0);
  checkClose(run(Op::Sub, {s, x}), {1.5, 0.5, -0.5, -1.5, -2.5, -3.5}, 0, 0);
}

TEST_CASE("integer arithmetic is exact int64", "[eval][binary][i64]") {
  const int64_t big = (int64_t(1) << 53) + 1;
  HostTensor a = itensor(DType::I64, {4}, {big, 7, -7, 1 << 20});
  HostTensor b = itensor(DType::I64, {4}, {2, 3, 3, 1 << 20});
  checkExact(run(Op::Add, {a, b}), {big + 2, 10, -4, 1 << 21});
  checkExact(run(Op::Sub, {a, b}), {big - 2, 4, -10, 0});
  checkExact(run(Op::Mul, {a, b}), {2 * big, 21, -21, int64_t(1) << 40});
  checkExact(run(Op::Max, {a, b}), {big, 7, 3, 1 << 20});
  checkExact(run(Op::Min, {a, b}), {2, 3, -7, 1 << 20});
}

TEST_CASE("integer division truncates toward zero", "[eval][binary][i64]") {
  HostTensor a = itensor(DType::I64, {6}, {7, -7, 7, -7, 0, INT64_MIN});
  HostTensor b = itensor(DType::I64, {6}, {2, 2, -2, -2, 5, -1});
  checkExact(run(Op::Div, {a, b}), {3, -3, -3, 3, 0, INT64_MIN});
  HostTensor a32 = itensor(DType::I32, {2, 2}, {9, -9, 1, -1}), b32 = itensor(DType::I32, {2}, {4, -4});
  checkExact(run(Op::Div, {a32, b32}), {2, 2, 0, 0});
  REQUIRE_THROWS_AS(run(Op::Div, {itensor(DType::I64, {2}, {1, 2}), itensor(DType::I64, {2}, {1, 0})}), mgc::Error);
}

TEST_CASE("pow with integer and float bases", "[eval][binary]") {
  SECTION("integer base, integer exponent") {
    HostTensor base = itensor(DType::I64, {5}, {2, 3, -2, 10, 2});
    HostTensor e = itensor(DType::I64, {5}, {10, 3, 3, 15, -1});
    checkExact(run(Op::Pow, {base, e}), {1024, 27, -8, 1000000000000000, 0});
  }
  SECTION("integer base, float exponent (result keeps the base dtype)") {
    HostTensor base = itensor(DType::I32, {3}, {4, 9, 10});
    HostTensor y = run(Op::Pow, {base, tensor(DType::F32, {1}, {0.5})});
    REQUIRE(y.type.dtype == DType::I32);
    checkExact(y, {2, 3, 3});
  }
  SECTION("float base, integer exponent") {
    HostTensor y = run(Op::Pow, {tensor(DType::F32, {3}, {-2, 0.5, 3}), itensor(DType::I64, {}, {3})});
    checkClose(y, {-8, 0.125, 27}, 0, 0);
  }
}

TEST_CASE("max and min propagate NaN", "[eval][binary]") {
  HostTensor a = tensor(DType::F32, {3}, {NAN, 1, 2}), b = tensor(DType::F32, {3}, {0, NAN, 3});
  checkClose(run(Op::Max, {a, b}), {NAN, NAN, 3}, 0, 0);
  checkClose(run(Op::Min, {a, b}), {NAN, NAN, 2}, 0, 0);
}

TEST_CASE("comparisons produce bool with broadcasting", "[eval][binary][compare]") {
  HostTensor a = randomTensor(DType::I32, {5, 6, 7}, 21, -3, 3), b = randomTensor(DType::I32, {6, 1}, 22, -3, 3);
  std::vector<std::pair<Op, std::function<bool(double, double)>>> ops = {
      {Op::Equal, [](double p, double q) { return p == q; }},
      {Op::Less, [](double p, double q) { return p < q; }},
      {Op::LessOrEqual, [](double p, double q) { return !(p > q); }},
      {Op::Greater, [](double p, double q) { return q < p; }},
      {Op::GreaterOrEqual, [](double p, double q) { return !(p < q); }},
  };
  for (auto& [op, ref] : ops) {
    INFO(mgc::opName(op));
    HostTensor y = run(op, {a, b});
    REQUIRE(y.type.dtype == DType::Bool);
    std::vector<int64_t> want;
    for (int64_t i = 0; i < 5 * 6 * 7; ++i) {
      auto c = unravel(i, {5, 6, 7});
      want.push_back(ref(at(a, c), at(b, c)));
    }
    checkExact(y, want);
  }
}

TEST_CASE("comparisons on i64 are exact beyond 2^53", "[eval][binary][compare][i64]") {
  const int64_t p = int64_t(1) << 53;
  HostTensor a = itensor(DType::I64, {2}, {p, p + 1}), b = itensor(DType::I64, {2}, {p + 1, p + 1});
  checkExact(run(Op::Equal, {a, b}), {0, 1});
  checkExact(run(Op::Less, {a, b}), {1, 0});
  HostTensor f = tensor(DType::F32, {3}, {NAN, 1, 2}), g = tensor(DType::F32, {3}, {NAN, 1, 1});
  checkExact(run(Op::Equal, {f, g}), {0, 1, 0});
  checkExact(run(Op::GreaterOrEqual, {f, g}), {0, 1, 1});
}

TEST_CASE("logic ops: truth tables with broadcasting", "[eval][binary][logic]") {
  HostTensor a = itensor(DType::Bool, {4, 1}, {0, 0, 1, 1}), b = itensor(DType::Bool, {1, 3}, {0, 1, 1});
  checkExact(run(Op::And, {a, b}), {0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 1});
  checkExact(run(Op::Or, {a, b}), {0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1});
  HostTensor x = run(Op::Xor, {a, b});
  REQUIRE(x.type.dtype == DType::Bool);
  checkExact(x, {0, 1, 1, 0, 1, 1, 1, 0, 0, 1, 0, 0});
}

TEST_CASE("where broadcasts condition and both branches", "[eval][where]") {
  HostTensor c = randomTensor(DType::Bool, {5, 1, 7}, 31, 0, 2);
  HostTensor a = randomTensor(DType::F32, {6, 1}, 32), b = tensor(DType::F32, {}, {-100});
  HostTensor y = run(Op::Where, {c, a, b});
  REQUIRE(y.type == (mgc::TensorType{DType::F32, {5, 6, 7}}));
  std::vector<double> want;
  for (int64_t i = 0; i < 5 * 6 * 7; ++i) {
    auto k = unravel(i, {5, 6, 7});
    want.push_back(at(c, k) != 0 ? at(a, k) : -100);
  }
  checkClose(y, want, 0, 0);
  // i64 branches are copied bit-exactly
  const int64_t big = (int64_t(1) << 62) + 1;
  HostTensor yi = run(Op::Where, {itensor(DType::Bool, {3}, {1, 0, 1}), itensor(DType::I64, {3}, {big, 2, 3}),
                                  itensor(DType::I64, {1}, {-big})});
  checkExact(yi, {big, -big, 3});
}
