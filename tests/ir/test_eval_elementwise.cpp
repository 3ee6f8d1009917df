// Unary ops and Cast: every unary op on an odd shape against a formula
// written independently of the evaluator, plus dtype edge cases by hand.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>

#include "tests/ir/eval_test_util.h"

using namespace evaltest;

namespace {

struct UnaryCase {
  Op op;
  Attrs attrs;
  double lo, hi;
  std::function<double(double)> ref;
};

std::vector<UnaryCase> unaryCases() {
  static constexpr double pi = 3.14159265358979323846;
  return {
      {Op::Identity, {}, -3, 3, [](double x) { return x; }},
      {Op::Neg, {}, -3, 3, [](double x) { return 0 - x; }},
      {Op::Abs, {}, -3, 3, [](double x) { return x < 0 ? -x : x; }},
      {Op::Exp, {}, -3, 3, [](double x) { return std::pow(2.718281828459045, x); }},
      {Op::Log, {}, 0.1, 5, [](double x) { return std::log2(x) / std::log2(2.718281828459045); }},
      {Op::Sqrt, {}, 0, 5, [](double x) { return std::pow(x, 0.5); }},
      {Op::Reciprocal, {}, 0.25, 4, [](double x) { return std::pow(x, -1.0); }},
      {Op::Relu, {}, -3, 3, [](double x) { return x > 0 ? x : 0; }},
      {Op::Sigmoid, {}, -8, 8, [](double x) { return 1 / (1 + std::exp(-x)); }},
      {Op::Tanh, {}, -3, 3, [](double x) { return (std::exp(2 * x) - 1) / (std::exp(2 * x) + 1); }},
      {Op::Erf, {}, -3, 3, [](double x) { return 1 - std::erfc(x); }},
      {Op::Floor, {}, -3, 3, [](double x) { return double(int64_t(x) - (x < 0 && double(int64_t(x)) != x)); }},
      {Op::Ceil, {}, -3, 3, [](double x) { return double(int64_t(x) + (x > 0 && double(int64_t(x)) != x)); }},
      {Op::Sin, {}, -4, 4, [](double x) { return std::cos(x - pi / 2); }},
      {Op::Cos, {}, -4, 4, [](double x) { return std::sin(x + pi / 2); }},
      {Op::Sign, {}, -3, 3, [](double x) { return double((x > 0) - (x < 0)); }},
      {Op::Softplus, {}, -6, 6, [](double x) { return std::log(1 + std::exp(x)); }},
      {Op::HardSwish, {}, -5, 5, [](double x) { return x <= -3 ? 0 : (x >= 3 ? x : x * (x + 3) / 6); }},
      {Op::LeakyRelu, {{"alpha", 0.1}}, -3, 3, [](double x) { return x >= 0 ? x : 0.1 * x; }},
      {Op::Elu, {{"alpha", 0.7}}, -3, 3, [](double x) { return x >= 0 ? x : 0.7 * (std::exp(x) - 1); }},
      {Op::HardSigmoid, {{"alpha", 0.3}, {"beta", 0.4}}, -4, 4,
       [](double x) { return x < -4.0 / 3 ? 0 : (x > 2 ? 1 : 0.3 * x + 0.4); }},
      {Op::Clip, {{"min", -0.5}, {"max", 1.25}}, -3, 3, [](double x) { return x < -0.5 ? -0.5 : (x > 1.25 ? 1.25 : x); }},
      {Op::Gelu, {{"approximate", int64_t(0)}}, -4, 4,
       [](double x) { return x * 0.5 * std::erfc(-x / std::sqrt(2.0)); }},
      {Op::Gelu, {{"approximate", int64_t(1)}}, -4, 4,
       [](double x) { return 0.5 * x * (1 + std::tanh(std::sqrt(2 / pi) * (x + 0.044715 * std::pow(x, 3)))); }},
  };
}

}  // namespace

TEST_CASE("unary ops on odd shapes match independent formulas", "[eval][unary]") {
  uint32_t seed = 1;
  for (const UnaryCase& c : unaryCases()) {
    for (DType dt : {DType::F32, DType::F64}) {
      INFO(mgc::opName(c.op) << " on " << mgc::dtypeName(dt));
      HostTensor x = randomTensor(dt, {5, 6, 7}, seed++, c.lo, c.hi);
      std::vector<double> want;
      for (double v : values(x)) want.push_back(c.ref(v));
      HostTensor y = run(c.op, {x}, c.attrs);
      REQUIRE(y.type.dtype == dt);
      checkClose(y, want, dt == DType::F32 ? 1e-6 : 1e-12, dt == DType::F32 ? 1e-6 : 1e-12);
    }
  }
}

TEST_CASE("unary ops on f16 compute in double and round once", "[eval][unary][f16]") {
  HostTensor x = randomTensor(DType::F16, {3, 5}, 7, -2, 2);
  for (Op op : {Op::Exp, Op::Tanh, Op::Sigmoid}) {
    HostTensor y = run(op, {x}, {});
    REQUIRE(y.type.dtype == DType::F16);
    for (int64_t i = 0; i < x.numel(); ++i) {
      double v = x.getF(i);
      double exact = op == Op::Exp ? std::exp(v) : op == Op::Tanh ? std::tanh(v) : 1 / (1 + std::exp(-v));
      REQUIRE(y.getF(i) == double(mgc::halfToFloat(mgc::floatToHalf(float(exact)))));
    }
  }
}

TEST_CASE("round is half to even, sign/floor/ceil by hand", "[eval][unary]") {
  HostTensor x = tensor(DType::F32, {9}, {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.4, -2.6, 0});
  checkClose(run(Op::Round, {x}), {-2, -2, -0, 0, 2, 2, 2, -3, 0}, 0, 0);
  checkClose(run(Op::Sign, {x}), {-1, -1, -1, 1, 1, 1, 1, -1, 0}, 0, 0);
  checkClose(run(Op::Floor, {x}), {-3, -2, -1, 0, 1, 2, 2, -3, 0}, 0, 0);
  checkClose(run(Op::Ceil, {x}), {-2, -1, -0, 1, 2, 3, 3, -2, 0}, 0, 0);
}

TEST_CASE("exact unary ops keep i64 exact", "[eval][unary][i64]") {
  const int64_t big = (int64_t(1) << 53) + 1;  // not representable in double
  HostTensor x = itensor(DType::I64, {5}, {big, -big, 0, -7, 3});
  checkExact(run(Op::Neg, {x}), {-big, big, 0, 7, -3});
  checkExact(run(Op::Abs, {x}), {big, big, 0, 7, 3});
  checkExact(run(Op::Relu, {x}), {big, 0, 0, 0, 3});
  checkExact(run(Op::Sign, {x}), {1, -1, 0, -1, 1});
  checkExact(run(Op::Identity, {x}), {big, -big, 0, -7, 3});
  checkExact(run(Op::Round, {x}), {big, -big, 0, -7, 3});
  checkExact(run(Op::Clip, {x}, {{"min", -5.5}, {"max", 2.5}}), {2, -5, 0, -5, 2});
  checkExact(run(Op::Clip, {x}, {{"min", int64_t(0)}}), {big, 0, 0, 0, 3});
  HostTensor x32 = itensor(DType::I32, {4}, {-3, 5, 0, 9});
  checkExact(run(Op::Clip, {x32}, {{"min", int64_t(-1)}, {"max", int64_t(6)}}), {-1, 5, 0, 6});
}

TEST_CASE("not on bool", "[eval][unary]") {
  HostTensor x = itensor(DType::Bool, {2, 3}, {1, 0, 0, 1, 1, 0});
  HostTensor y = run(Op::Not, {x});
  REQUIRE(y.type.dtype == DType::Bool);
  checkExact(y, {0, 1, 1, 0, 0, 1});
}

TEST_CASE("softplus and sigmoid stay finite for large inputs", "[eval][unary]") {
  HostTensor x = tensor(DType::F32, {4}, {-1000, -50, 50, 1000});
  checkClose(run(Op::Softplus, {x}), {0, std::log1p(std::exp(-50.0)), 50, 1000}, 1e-6, 1e-30);
  checkClose(run(Op::Sigmoid, {x}), {0, std::exp(-50.0), 1, 1}, 1e-6, 1e-30);
}

TEST_CASE("cast follows ONNX", "[eval][cast]") {
  auto cast = [](const HostTensor& x, DType to) { return run(Op::Cast, {x}, {{"to", int64_t(to)}}); };
  HostTensor f = tensor(DType::F32, {7}, {-2.7, 2.7, -0.5, 0.0, 0.25, 300.9, -129.5});
  SECTION("float to int truncates toward zero") {
    checkExact(cast(f, DType::I32), {-2, 2, 0, 0, 0, 300, -129});
    checkExact(cast(f, DType::I64), {-2, 2, 0, 0, 0, 300, -129});
  }
  SECTION("to bool is != 0") {
    HostTensor b = cast(f, DType::Bool);
    REQUIRE(b.type.dtype == DType::Bool);
    checkExact(b, {1, 1, 1, 0, 1, 1, 1});
    checkExact(cast(itensor(DType::I64, {3}, {0, -5, 256}), DType::Bool), {0, 1, 1});
  }
  SECTION("integer narrowing wraps") {
    checkExact(cast(itensor(DType::I64, {4}, {300, -1, 127, 128}), DType::I8), {44, -1, 127, -128});
    checkExact(cast(itensor(DType::I64, {2}, {300, -1}), DType::U8), {44, 255});
  }
  SECTION("int and bool to float") {
    checkClose(cast(itensor(DType::Bool, {2}, {1, 0}), DType::F32), {1, 0}, 0, 0);
    const int64_t big = (int64_t(1) << 40) + 3;
    checkClose(cast(itensor(DType::I64, {2}, {big, -big}), DType::F64), {double(big), -double(big)}, 0, 0);
    checkClose(cast(itensor(DType::I64, {2}, {2049, 70000}), DType::F16), {2048, INFINITY}, 0, 0);
  }
  SECTION("f64 to f32 rounds to nearest") {
    HostTensor d = tensor(DType::F64, {2}, {0.1, 1.0 / 3});
    checkClose(cast(d, DType::F32), {double(0.1f), double(float(1.0 / 3))}, 0, 0);
  }
  SECTION("NaN and infinities to int do not crash") {
    HostTensor s = tensor(DType::F32, {3}, {NAN, INFINITY, -INFINITY});
    checkExact(cast(s, DType::I64), {0, INT64_MAX, INT64_MIN});
  }
}

TEST_CASE("f16 round trip through cast", "[eval][cast][f16]") {
  // exactly representable halves survive f32 -> f16 -> f32
  std::vector<double> exact = {0, -0.0, 1.5, -2, 65504, -65504, 6.103515625e-05, 5.9604644775390625e-08, 1023.5, 0.0999755859375};
  HostTensor x = tensor(DType::F32, {int64_t(exact.size())}, exact);
  HostTensor h = run(Op::Cast, {x}, {{"to", int64_t(DType::F16)}});
  REQUIRE(h.type.dtype == DType::F16);
  HostTensor back = run(Op::Cast, {h}, {{"to", int64_t(DType::F32)}});
  for (size_t i = 0; i < exact.size(); ++i) REQUIRE(back.getF(int64_t(i)) == double(float(exact[i])));
  // rounding: nearest, ties to even; overflow to inf; NaN stays NaN
  HostTensor r = run(Op::Cast, {tensor(DType::F32, {5}, {1.0 / 3, 2049, 2051, 70000, NAN})}, {{"to", int64_t(DType::F16)}});
  checkClose(run(Op::Cast, {r}, {{"to", int64_t(DType::F64)}}), {0.333251953125, 2048, 2052, INFINITY, NAN}, 0, 0);
  // f16 arithmetic: Add on f16 tensors rounds the double sum once
  HostTensor a = tensor(DType::F16, {3}, {1, 2048, 0.5}), b = tensor(DType::F16, {3}, {0.0009765625, 1, 0.25});
  HostTensor s = run(Op::Add, {a, b});
  REQUIRE(s.type.dtype == DType::F16);
  checkClose(s, {1.0009765625, 2048, 0.75}, 0, 0);
}
