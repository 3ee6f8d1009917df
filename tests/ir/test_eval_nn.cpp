// MatMul and Conv against naive references written differently from the
// evaluator (explicit index decoding, pre-padded input), plus hand examples.
#include <catch2/catch.hpp>

#include "tests/ir/eval_test_util.h"

using namespace evaltest;

namespace {

// Plain matrix product of row-major matrices.
std::vector<double> matmul2d(const std::vector<double>& a, const std::vector<double>& b, int64_t M, int64_t K, int64_t N) {
  std::vector<double> c(size_t(M * N), 0.0);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n) c[size_t(m * N + n)] += a[size_t(m * K + k)] * b[size_t(k * N + n)];
  return c;
}

std::vector<double> slice(const std::vector<double>& v, int64_t start, int64_t count) {
  return std::vector<double>(v.begin() + start, v.begin() + start + count);
}

struct ConvParams {
  int64_t sh = 1, sw = 1, dh = 1, dw = 1, group = 1;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;
};

// Reference conv: copy x into an explicitly zero-padded buffer, then slide
// the dilated window with no bounds checks.
std::vector<double> refConv(const HostTensor& x, const HostTensor& w, const HostTensor* bias, const ConvParams& p,
                            const Shape& outShape) {
  int64_t N = x.type.shape[0], C = x.type.shape[1], H = x.type.shape[2], W = x.type.shape[3];
  int64_t M = w.type.shape[0], CG = w.type.shape[1], KH = w.type.shape[2], KW = w.type.shape[3];
  int64_t PH = H + p.pt + p.pb, PW = W + p.pl + p.pr;
  std::vector<double> padded(size_t(N * C * PH * PW), 0.0);
  for (int64_t i = 0; i < x.numel(); ++i) {
    auto c = unravel(i, x.type.shape);
    padded[size_t(ravel({c[0], c[1], c[2] + p.pt, c[3] + p.pl}, {N, C, PH, PW}))] = x.getF(i);
  }
  std::vector<double> out(size_t(numel(outShape)));
  for (int64_t o = 0; o < numel(outShape); ++o) {
    auto c = unravel(o, outShape);  // n, m, oh, ow
    int64_t g = c[1] / (M / p.group);
    double s = bias ? bias->getF(c[1]) : 0.0;
    for (int64_t ci = 0; ci < CG; ++ci)
      for (int64_t kh = 0; kh < KH; ++kh)
        for (int64_t kw = 0; kw < KW; ++kw) {
          int64_t ph = c[2] * p.sh + kh * p.dh, pw = c[3] * p.sw + kw * p.dw;
          s += padded[size_t(ravel({c[0], g * CG + ci, ph, pw}, {N, C, PH, PW}))] *
               w.getF(ravel({c[1], ci, kh, kw}, w.type.shape));
        }
    out[size_t(o)] = s;
  }
  return out;
}

Attrs convAttrs(const ConvParams& p) {
  return {{"strides", std::vector<int64_t>{p.sh, p.sw}},
          {"pads", std::vector<int64_t>{p.pt, p.pl, p.pb, p.pr}},
          {"dilations", std::vector<int64_t>{p.dh, p.dw}},
          {"group", p.group}};
}

}  // namespace

TEST_CASE("matmul 2-D on odd shapes", "[eval][matmul]") {
  HostTensor a = randomTensor(DType::F32, {5, 7}, 41), b = randomTensor(DType::F32, {7, 6}, 42);
  HostTensor y = run(Op::MatMul, {a, b});
  REQUIRE(y.type.shape == Shape{5, 6});
  checkClose(y, matmul2d(values(a), values(b), 5, 7, 6), 1e-6, 1e-6);
}

TEST_CASE("matmul broadcasts batch dimensions", "[eval][matmul]") {
  HostTensor a = randomTensor(DType::F64, {2, 1, 5, 7}, 43), b = randomTensor(DType::F64, {3, 7, 6}, 44);
  HostTensor y = run(Op::MatMul, {a, b});
  REQUIRE(y.type.shape == Shape{2, 3, 5, 6});
  std::vector<double> av = values(a), bv = values(b), want;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      auto c = matmul2d(slice(av, i * 35, 35), slice(bv, j * 42, 42), 5, 7, 6);
      want.insert(want.end(), c.begin(), c.end());
    }
  checkClose(y, want, 1e-12, 1e-12);
}

TEST_CASE("matmul with 1-D operands", "[eval][matmul]") {
  HostTensor v = tensor(DType::F32, {3}, {1, 2, 3});
  HostTensor m = tensor(DType::F32, {3, 2}, {1, 2, 3, 4, 5, 6});
  HostTensor vm = run(Op::MatMul, {v, m});
  REQUIRE(vm.type.shape == Shape{2});
  checkClose(vm, {22, 28}, 0, 0);
  HostTensor mt = tensor(DType::F32, {2, 3}, {1, 3, 5, 2, 4, 6});
  HostTensor mv = run(Op::MatMul, {mt, v});
  REQUIRE(mv.type.shape == Shape{2});
  checkClose(mv, {22, 28}, 0, 0);
  HostTensor dot = run(Op::MatMul, {v, v});
  REQUIRE(dot.type.shape == Shape{});
  checkClose(dot, {14}, 0, 0);
  // batched matrix times vector
  HostTensor bm = tensor(DType::F32, {2, 2, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1});
  HostTensor bmv = run(Op::MatMul, {bm, v});
  REQUIRE(bmv.type.shape == Shape{2, 2});
  checkClose(bmv, {1, 2, 3, 6}, 0, 0);
}

TEST_CASE("matmul on i64 is exact", "[eval][matmul][i64]") {
  // 2^60 + 2^30 + 5 needs 61 significant bits: a double path would round it
  const int64_t big = int64_t(1) << 30;
  HostTensor a = itensor(DType::I64, {2, 2}, {big, 1, 3, -4});
  HostTensor b = itensor(DType::I64, {2, 1}, {big + 1, 5});
  checkExact(run(Op::MatMul, {a, b}), {(int64_t(1) << 60) + big + 5, 3 * (big + 1) - 20});
}

TEST_CASE("conv hand example", "[eval][conv]") {
  HostTensor x = tensor(DType::F32, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  HostTensor w = tensor(DType::F32, {1, 1, 2, 2}, {1, 1, 1, 1});
  HostTensor y = run(Op::Conv, {x, w, kAbsent});
  REQUIRE(y.type.shape == Shape{1, 1, 2, 2});
  checkClose(y, {12, 16, 24, 28}, 0, 0);
  // padding 1 on the right/bottom only, bias 0.5
  HostTensor b = tensor(DType::F32, {1}, {0.5});
  HostTensor yp = run(Op::Conv, {x, w, b}, {{"pads", std::vector<int64_t>{0, 0, 1, 1}}});
  REQUIRE(yp.type.shape == Shape{1, 1, 3, 3});
  checkClose(yp, {12.5, 16.5, 9.5, 24.5, 28.5, 15.5, 15.5, 17.5, 9.5}, 0, 0);
}

TEST_CASE("conv on odd shapes with groups, strides, asymmetric pads, dilations", "[eval][conv]") {
  ConvParams p;
  p.sh = 2, p.sw = 1, p.dh = 1, p.dw = 2, p.group = 2, p.pt = 1, p.pl = 2, p.pb = 0, p.pr = 1;
  HostTensor x = randomTensor(DType::F32, {2, 6, 7, 9}, 51), w = randomTensor(DType::F32, {4, 3, 3, 2}, 52);
  HostTensor bias = randomTensor(DType::F32, {4}, 53);
  HostTensor y = run(Op::Conv, {x, w, bias}, convAttrs(p));
  // H: (7 + 1 - 3) / 2 + 1 = 3; W: (9 + 3 - 3) / 1 + 1 = 10
  REQUIRE(y.type.shape == Shape{2, 4, 3, 10});
  checkClose(y, refConv(x, w, &bias, p, y.type.shape), 1e-5, 1e-5);
  // same without bias (absent optional input)
  HostTensor y2 = run(Op::Conv, {x, w, kAbsent}, convAttrs(p));
  checkClose(y2, refConv(x, w, nullptr, p, y2.type.shape), 1e-5, 1e-5);
  // and with only two inputs
  HostTensor y3 = run(Op::Conv, {x, w}, convAttrs(p));
  checkClose(y3, refConv(x, w, nullptr, p, y3.type.shape), 1e-5, 1e-5);
}

TEST_CASE("depthwise conv", "[eval][conv]") {
  ConvParams p;
  p.group = 5, p.pt = p.pl = p.pb = p.pr = 1, p.sh = p.sw = 2;
  HostTensor x = randomTensor(DType::F64, {1, 5, 6, 7}, 54), w = randomTensor(DType::F64, {5, 1, 3, 3}, 55);
  HostTensor y = run(Op::Conv, {x, w}, convAttrs(p));
  REQUIRE(y.type.shape == Shape{1, 5, 3, 4});
  checkClose(y, refConv(x, w, nullptr, p, y.type.shape), 1e-12, 1e-12);
}

TEST_CASE("conv on f16 rounds each output once", "[eval][conv][f16]") {
  ConvParams p;
  HostTensor x = randomTensor(DType::F16, {1, 3, 5, 5}, 56), w = randomTensor(DType::F16, {2, 3, 3, 3}, 57);
  HostTensor y = run(Op::Conv, {x, w}, convAttrs(p));
  REQUIRE(y.type.dtype == DType::F16);
  std::vector<double> want = refConv(x, w, nullptr, p, y.type.shape);
  for (double& v : want) v = mgc::halfToFloat(mgc::floatToHalf(float(v)));
  checkClose(y, want, 1e-3, 1e-3);  // the reference sums in another order
}
