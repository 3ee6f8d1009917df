// Pooling, normalizations and softmax. Pool edge cases (ceil_mode windows
// overhanging the padding, count_include_pad) are checked against values
// computed with PyTorch 1.13 (F.max_pool2d / F.avg_pool2d, float64).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "tests/ir/eval_test_util.h"

using namespace evaltest;

namespace {

HostTensor arange30() {
  std::vector<double> v;
  for (int i = 1; i <= 30; ++i) v.push_back(i);
  return tensor(DType::F32, {1, 1, 5, 6}, v);
}

Attrs poolAttrs(std::vector<int64_t> kernel, std::vector<int64_t> strides, std::vector<int64_t> pads, int64_t ceil) {
  return {{"kernel", kernel}, {"strides", strides}, {"pads", pads}, {"ceil_mode", ceil}};
}

}  // namespace

TEST_CASE("max pool: padding never wins, ceil mode, dilation (PyTorch values)", "[eval][pool]") {
  HostTensor neg = run(Op::Neg, {arange30()});
  HostTensor y = run(Op::MaxPool, {neg}, poolAttrs({3, 3}, {2, 2}, {1, 1, 1, 1}, 1));
  REQUIRE(y.type.shape == Shape{1, 1, 3, 4});
  checkClose(y, {-1, -2, -4, -6, -7, -8, -10, -12, -19, -20, -22, -24}, 0, 0);
  Attrs dil = poolAttrs({2, 2}, {2, 2}, {0, 0, 0, 0}, 1);
  dil["dilations"] = std::vector<int64_t>{2, 2};
  HostTensor yd = run(Op::MaxPool, {arange30()}, dil);
  REQUIRE(yd.type.shape == Shape{1, 1, 2, 3});
  checkClose(yd, {15, 17, 17, 27, 29, 29}, 0, 0);
}

TEST_CASE("max pool on odd shapes against a window-list reference", "[eval][pool]") {
  HostTensor x = randomTensor(DType::F32, {2, 3, 7, 9}, 61);
  HostTensor y = run(Op::MaxPool, {x}, poolAttrs({3, 2}, {2, 3}, {1, 0, 2, 1}, 0));
  // H: (7 + 3 - 3) / 2 + 1 = 4; W: (9 + 1 - 2) / 3 + 1 = 3
  REQUIRE(y.type.shape == Shape{2, 3, 4, 3});
  std::vector<double> want;
  for (int64_t o = 0; o < y.numel(); ++o) {
    auto c = unravel(o, y.type.shape);
    std::vector<double> window;
    for (int64_t h = c[2] * 2 - 1; h < c[2] * 2 - 1 + 3; ++h)
      for (int64_t w = c[3] * 3; w < c[3] * 3 + 2; ++w)
        if (h >= 0 && h < 7 && w >= 0 && w < 9) window.push_back(x.getF(ravel({c[0], c[1], h, w}, x.type.shape)));
    std::sort(window.begin(), window.end());
    want.push_back(window.back());
  }
  checkClose(y, want, 0, 0);
}

TEST_CASE("avg pool count_include_pad with ceil mode (PyTorch values)", "[eval][pool]") {
  Attrs a = poolAttrs({3, 3}, {2, 2}, {1, 1, 1, 1}, 1);
  a["count_include_pad"] = int64_t(1);
  HostTensor inc = run(Op::AvgPool, {arange30()}, a);
  REQUIRE(inc.type.shape == Shape{1, 1, 3, 4});
  checkClose(inc, {2, 4, 5.333333333333333, 3, 9, 15, 17, 9, 10, 16, 17.333333333333332, 9}, 1e-6, 0);
  a["count_include_pad"] = int64_t(0);
  HostTensor exc = run(Op::AvgPool, {arange30()}, a);
  checkClose(exc, {4.5, 6, 8, 9, 13.5, 15, 17, 18, 22.5, 24, 26, 27}, 1e-6, 0);
  Attrs b = poolAttrs({2, 3}, {2, 2}, {1, 1, 1, 1}, 0);
  b["count_include_pad"] = int64_t(1);
  HostTensor y2 = run(Op::AvgPool, {arange30()}, b);
  REQUIRE(y2.type.shape == Shape{1, 1, 3, 3});
  checkClose(y2, {0.5, 1.5, 2.5, 7, 12, 14, 15, 24, 26}, 1e-6, 0);
}

TEST_CASE("avg pool with asymmetric pads by hand", "[eval][pool]") {
  // 1x1x2x3 input, kernel 2x2, stride 1, pads top 0, left 1, bottom 1, right 0
  HostTensor x = tensor(DType::F64, {1, 1, 2, 3}, {1, 2, 3, 4, 5, 6});
  Attrs a = poolAttrs({2, 2}, {1, 1}, {0, 1, 1, 0}, 0);
  a["count_include_pad"] = int64_t(1);
  HostTensor inc = run(Op::AvgPool, {x}, a);
  REQUIRE(inc.type.shape == Shape{1, 1, 2, 3});
  checkClose(inc, {5.0 / 4, 12.0 / 4, 16.0 / 4, 4.0 / 4, 9.0 / 4, 11.0 / 4}, 1e-12, 0);
  a["count_include_pad"] = int64_t(0);
  HostTensor exc = run(Op::AvgPool, {x}, a);
  checkClose(exc, {5.0 / 2, 12.0 / 4, 16.0 / 4, 4.0 / 1, 9.0 / 2, 11.0 / 2}, 1e-12, 0);
}

TEST_CASE("batch norm over channel axis 1", "[eval][norm]") {
  HostTensor x = randomTensor(DType::F32, {2, 3, 5, 7}, 71);
  HostTensor scale = tensor(DType::F32, {3}, {1.5, -0.5, 2});
  HostTensor bias = tensor(DType::F32, {3}, {0.1, 0.2, -0.3});
  HostTensor mean = tensor(DType::F32, {3}, {0.5, -1, 0});
  HostTensor var = tensor(DType::F32, {3}, {4, 0.25, 1});
  HostTensor y = run(Op::BatchNorm, {x, scale, bias, mean, var}, {{"epsilon", 1e-3}});
  std::vector<double> want;
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t c = unravel(i, x.type.shape)[1];
    want.push_back(scale.getF(c) * (x.getF(i) - mean.getF(c)) / std::sqrt(var.getF(c) + 1e-3) + bias.getF(c));
  }
  checkClose(y, want, 1e-6, 1e-6);
  // rank 2 (no spatial axes)
  HostTensor x2 = tensor(DType::F32, {1, 3}, {1, 2, 3});
  checkClose(run(Op::BatchNorm, {x2, scale, bias, mean, var}, {{"epsilon", 0.0}}),
             {1.5 * 0.5 / 2 + 0.1, -0.5 * 3 / 0.5 + 0.2, 2 * 3 - 0.3}, 1e-6, 1e-6);
}

TEST_CASE("layer norm over trailing axes, with and without bias", "[eval][norm]") {
  HostTensor x = randomTensor(DType::F64, {5, 6, 7}, 72, -3, 5);
  for (int64_t axis : {1, 2, -1}) {
    INFO("axis " << axis);
    int64_t inner = axis == 1 ? 42 : 7;
    HostTensor scale = randomTensor(DType::F64, {inner}, 73), bias = randomTensor(DType::F64, {inner}, 74);
    if (axis == 1) scale.type.shape = bias.type.shape = {6, 7};  // full trailing shape
    for (bool withBias : {true, false}) {
      std::vector<HostTensor> in = {x, scale};
      if (withBias) in.push_back(bias);
      HostTensor y = run(Op::LayerNorm, in, {{"axis", axis}, {"epsilon", 1e-5}});
      std::vector<double> xv = values(x), want;
      for (int64_t row = 0; row < x.numel() / inner; ++row) {
        double s = 0, s2 = 0;
        for (int64_t i = 0; i < inner; ++i) s += xv[size_t(row * inner + i)];
        double mu = s / double(inner);
        for (int64_t i = 0; i < inner; ++i) s2 += std::pow(xv[size_t(row * inner + i)] - mu, 2);
        double sd = std::sqrt(s2 / double(inner) + 1e-5);
        for (int64_t i = 0; i < inner; ++i)
          want.push_back((xv[size_t(row * inner + i)] - mu) / sd * scale.getF(i) + (withBias ? bias.getF(i) : 0));
      }
      checkClose(y, want, 1e-12, 1e-12);
    }
  }
  // absent optional bias given as kNoValue
  HostTensor x2 = tensor(DType::F32, {1, 2}, {1, 3});
  checkClose(run(Op::LayerNorm, {x2, tensor(DType::F32, {2}, {1, 1}), kAbsent}, {{"axis", int64_t(1)}, {"epsilon", 0.0}}),
             {-1, 1}, 1e-6, 1e-6);
}

TEST_CASE("softmax and log softmax along each axis", "[eval][softmax]") {
  HostTensor x = randomTensor(DType::F32, {5, 6, 7}, 75, -4, 4);
  const Shape s = {5, 6, 7};
  for (int64_t axis : {0, 1, 2}) {
    INFO("axis " << axis);
    HostTensor y = run(Op::Softmax, {x}, {{"axis", axis}});
    HostTensor ly = run(Op::LogSoftmax, {x}, {{"axis", axis}});
    std::vector<double> want, lwant;
    for (int64_t i = 0; i < x.numel(); ++i) {
      auto c = unravel(i, s);
      double denom = 0;
      for (int64_t k = 0; k < s[size_t(axis)]; ++k) {
        auto ck = c;
        ck[size_t(axis)] = k;
        denom += std::exp(x.getF(ravel(ck, s)));
      }
      want.push_back(std::exp(x.getF(i)) / denom);
      lwant.push_back(x.getF(i) - std::log(denom));
    }
    checkClose(y, want, 1e-6, 1e-7);
    checkClose(ly, lwant, 1e-6, 1e-6);
  }
}

TEST_CASE("softmax is numerically stable for large inputs", "[eval][softmax]") {
  HostTensor x = tensor(DType::F32, {2, 3}, {1000, 1000, 1000, -1000, 0, 1000});
  checkClose(run(Op::Softmax, {x}, {{"axis", int64_t(1)}}), {1.0 / 3, 1.0 / 3, 1.0 / 3, 0, 0, 1}, 1e-6, 1e-7);
  checkClose(run(Op::LogSoftmax, {x}, {{"axis", int64_t(1)}}),
             {-std::log(3.0), -std::log(3.0), -std::log(3.0), -2000, -1000, 0}, 1e-6, 1e-6);
}
