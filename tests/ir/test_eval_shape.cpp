// Data movement ops on odd shapes, and i64 shape arithmetic as the ONNX
// importer's constant folding uses it (Gather/Concat/Slice on shape vectors).
#include <catch2/catch.hpp>

#include "tests/ir/eval_test_util.h"

using namespace evaltest;

namespace {

using Ints = std::vector<int64_t>;

HostTensor iota(DType dt, const Shape& s) {
  std::vector<double> v;
  for (int64_t i = 0; i < numel(s); ++i) v.push_back(double(i));
  return tensor(dt, s, v);
}

}  // namespace

TEST_CASE("reshape keeps the data", "[eval][shape]") {
  HostTensor x = randomTensor(DType::F32, {5, 6, 7}, 91);
  HostTensor y = run(Op::Reshape, {x}, {{"shape", Ints{7, 30}}});
  REQUIRE(y.type.shape == Shape{7, 30});
  REQUIRE(y.data == x.data);
}

TEST_CASE("transpose on an odd shape", "[eval][shape]") {
  HostTensor x = iota(DType::F32, {5, 6, 7});
  HostTensor y = run(Op::Transpose, {x}, {{"perm", Ints{2, 0, 1}}});
  REQUIRE(y.type.shape == Shape{7, 5, 6});
  std::vector<double> want;
  for (int64_t k = 0; k < 7; ++k)
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t j = 0; j < 6; ++j) want.push_back(double(i * 42 + j * 7 + k));
  checkClose(y, want, 0, 0);
  // rank 4, NCHW -> NHWC, f16 copied bit-exactly
  HostTensor h = randomTensor(DType::F16, {2, 3, 4, 5}, 92);
  HostTensor t = run(Op::Transpose, {h}, {{"perm", Ints{0, 2, 3, 1}}});
  for (int64_t o = 0; o < t.numel(); ++o) {
    auto c = unravel(o, t.type.shape);  // n, h, w, c
    REQUIRE(t.as<uint16_t>()[o] == h.as<uint16_t>()[ravel({c[0], c[3], c[1], c[2]}, h.type.shape)]);
  }
}

TEST_CASE("concat along inner and outer axes", "[eval][shape]") {
  HostTensor a = iota(DType::F32, {5, 2, 7}), b = run(Op::Neg, {iota(DType::F32, {5, 3, 7})});
  HostTensor c = tensor(DType::F32, {5, 1, 7}, std::vector<double>(35, 0.5));
  HostTensor y = run(Op::Concat, {a, b, c}, {{"axis", int64_t(1)}});
  REQUIRE(y.type.shape == Shape{5, 6, 7});
  for (int64_t o = 0; o < y.numel(); ++o) {
    auto k = unravel(o, y.type.shape);
    double want = k[1] < 2 ? a.getF(ravel(k, a.type.shape))
                 : k[1] < 5 ? b.getF(ravel({k[0], k[1] - 2, k[2]}, b.type.shape)) : 0.5;
    REQUIRE(y.getF(o) == want);
  }
  HostTensor z = run(Op::Concat, {a, a}, {{"axis", int64_t(-3)}});
  REQUIRE(z.type.shape == Shape{10, 2, 7});
  std::vector<double> av = values(a), want = av;
  want.insert(want.end(), av.begin(), av.end());
  checkClose(z, want, 0, 0);
}

TEST_CASE("slice with positive and negative steps", "[eval][shape][slice]") {
  HostTensor x = iota(DType::F32, {5, 6, 7});
  // [1:5:2, 5::-2 (ends at -1 = through index 0), 6:0:-3]
  HostTensor y = run(Op::Slice, {x}, {{"starts", Ints{1, 5, 6}}, {"ends", Ints{5, -1, 0}}, {"steps", Ints{2, -2, -3}}});
  REQUIRE(y.type.shape == Shape{2, 3, 2});
  std::vector<double> want;
  for (int64_t i : {1, 3})
    for (int64_t j : {5, 3, 1})
      for (int64_t k : {6, 3}) want.push_back(double(i * 42 + j * 7 + k));
  checkClose(y, want, 0, 0);
  // full reverse of every axis
  HostTensor r = run(Op::Slice, {x}, {{"starts", Ints{4, 5, 6}}, {"ends", Ints{-1, -1, -1}}, {"steps", Ints{-1, -1, -1}}});
  std::vector<double> rev = values(x);
  std::reverse(rev.begin(), rev.end());
  checkClose(r, rev, 0, 0);
  // an empty slice
  HostTensor e = run(Op::Slice, {x}, {{"starts", Ints{3, 0, 0}}, {"ends", Ints{3, 6, 7}}, {"steps", Ints{1, 1, 1}}});
  REQUIRE(e.type.shape == Shape{0, 6, 7});
  REQUIRE(e.data.empty());
}

TEST_CASE("slice rejects reads outside the input", "[eval][shape][slice]") {
  HostTensor x = iota(DType::F32, {4});
  REQUIRE_THROWS_AS(run(Op::Slice, {x}, {{"starts", Ints{2}}, {"ends", Ints{6}}, {"steps", Ints{1}}}), mgc::Error);
}

TEST_CASE("gather with negative indices and multi-dim indices", "[eval][shape][gather]") {
  HostTensor x = iota(DType::F32, {5, 6, 7});
  HostTensor idx = itensor(DType::I64, {2, 2}, {0, -1, 3, -6});
  HostTensor y = run(Op::Gather, {x, idx}, {{"axis", int64_t(1)}});
  REQUIRE(y.type.shape == Shape{5, 2, 2, 7});
  std::vector<double> want;
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j : {0, 5, 3, 0})
      for (int64_t k = 0; k < 7; ++k) want.push_back(double(i * 42 + j * 7 + k));
  checkClose(y, want, 0, 0);
  HostTensor y32 = run(Op::Gather, {x, itensor(DType::I32, {}, {-1})}, {{"axis", int64_t(2)}});
  REQUIRE(y32.type.shape == Shape{5, 6});
  for (int64_t o = 0; o < 30; ++o) REQUIRE(y32.getF(o) == double(o * 7 + 6));
  REQUIRE_THROWS_AS(run(Op::Gather, {x, itensor(DType::I64, {1}, {6})}, {{"axis", int64_t(1)}}), mgc::Error);
  REQUIRE_THROWS_AS(run(Op::Gather, {x, itensor(DType::I64, {1}, {-7})}, {{"axis", int64_t(1)}}), mgc::Error);
}

TEST_CASE("i64 shape arithmetic: gather, slice, concat on shape vectors", "[eval][shape][i64]") {
  // a shape vector with a value that does not survive a trip through double
  const int64_t big = (int64_t(1) << 53) + 1;
  HostTensor shape = itensor(DType::I64, {4}, {big, 3, 224, 225});
  HostTensor last = run(Op::Gather, {shape, itensor(DType::I64, {}, {-1})});
  REQUIRE(last.type == (mgc::TensorType{DType::I64, {}}));
  checkExact(last, {225});
  checkExact(run(Op::Gather, {shape, itensor(DType::I64, {2}, {0, 2})}), {big, 224});
  HostTensor head = run(Op::Slice, {shape}, {{"starts", Ints{0}}, {"ends", Ints{2}}, {"steps", Ints{1}}});
  checkExact(head, {big, 3});
  HostTensor tail = run(Op::Slice, {shape}, {{"starts", Ints{3}}, {"ends", Ints{0}}, {"steps", Ints{-1}}});
  checkExact(tail, {225, 224, 3});
  HostTensor joined = run(Op::Concat, {head, itensor(DType::I64, {1}, {-1}), tail}, {{"axis", int64_t(0)}});
  REQUIRE(joined.type.shape == Shape{6});
  checkExact(joined, {big, 3, -1, 225, 224, 3});
  // typical fold: flatten = prod(shape[1:]) via Slice + ReduceProd, then Mul
  HostTensor rest = run(Op::Slice, {shape}, {{"starts", Ints{1}}, {"ends", Ints{4}}, {"steps", Ints{1}}});
  HostTensor flat = run(Op::ReduceProd, {rest}, {{"keepdims", int64_t(1)}});
  checkExact(flat, {3 * 224 * 225});
  checkExact(run(Op::Mul, {flat, itensor(DType::I64, {1}, {int64_t(1) << 30})}), {(int64_t(3 * 224 * 225)) << 30});
}

TEST_CASE("expand broadcasts to the target shape", "[eval][shape]") {
  HostTensor x = iota(DType::I32, {6, 1});
  HostTensor y = run(Op::Expand, {x}, {{"shape", Ints{5, 6, 7}}});
  REQUIRE(y.type.shape == Shape{5, 6, 7});
  for (int64_t o = 0; o < y.numel(); ++o) REQUIRE(y.getI(o) == unravel(o, {5, 6, 7})[1]);
  // a target with 1s keeps the input's larger dims
  HostTensor z = run(Op::Expand, {iota(DType::F32, {3, 1})}, {{"shape", Ints{1, 2}}});
  REQUIRE(z.type.shape == Shape{3, 2});
  checkClose(z, {0, 0, 1, 1, 2, 2}, 0, 0);
}

TEST_CASE("pad with a constant, including negative pads", "[eval][shape][pad]") {
  HostTensor x = iota(DType::F32, {5, 6, 7});
  // pads: begins {1, 0, 2}, ends {0, 3, 1}
  HostTensor y = run(Op::Pad, {x}, {{"pads", Ints{1, 0, 2, 0, 3, 1}}, {"value", -1.5}});
  REQUIRE(y.type.shape == Shape{6, 9, 10});
  for (int64_t o = 0; o < y.numel(); ++o) {
    auto c = unravel(o, y.type.shape);
    int64_t i = c[0] - 1, j = c[1], k = c[2] - 2;
    double want = (i >= 0 && i < 5 && j < 6 && k >= 0 && k < 7) ? double(i * 42 + j * 7 + k) : -1.5;
    REQUIRE(y.getF(o) == want);
  }
  // negative pads crop
  HostTensor c = run(Op::Pad, {iota(DType::I64, {2, 4})}, {{"pads", Ints{0, -1, 0, 1}}, {"value", 9.0}});
  REQUIRE(c.type.shape == Shape{2, 4});
  checkExact(c, {1, 2, 3, 9, 5, 6, 7, 9});
  // i64 data with a default (zero) fill
  checkExact(run(Op::Pad, {itensor(DType::I64, {2}, {int64_t(1) << 60, 7})}, {{"pads", Ints{1, 1}}}),
             {0, int64_t(1) << 60, 7, 0});
}
