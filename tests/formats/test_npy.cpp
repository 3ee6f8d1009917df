// .npy reader/writer: round trips, NumPy's own bytes, hostile headers.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "formats/npy.h"

using mgb::npy::Array;
using mgb::npy::DType;

namespace {

std::vector<uint8_t> fromHex(const std::string& hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(uint8_t(std::stoul(hex.substr(i, 2), nullptr, 16)));
  return out;
}

std::vector<uint8_t> withHeader(const std::string& header, size_t dataBytes) {
  const uint8_t prefix[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                              uint8_t(header.size() & 0xff), uint8_t(header.size() >> 8)};
  std::vector<uint8_t> f(10 + header.size() + dataBytes, 0);
  std::memcpy(f.data(), prefix, 10);
  if (!header.empty()) std::memcpy(f.data() + 10, header.data(), header.size());
  return f;
}

std::string readError(const std::vector<uint8_t>& f) {
  Array a;
  std::string err;
  if (mgb::npy::read(f.data(), f.size(), &a, &err)) return "";
  return err.empty() ? "(empty message)" : err;
}

// Written by numpy 1.24: np.save(f, np.arange(6, dtype='<f4').reshape(2, 3)).
const char* kNumpyF32 =
    "934e554d5059010076007b276465736372273a20273c6634272c2027666f727472616e5f6f72646572273a2046"
    "616c73652c20277368617065273a2028322c2033292c207d202020202020202020202020202020202020202020"
    "202020202020202020202020202020202020202020202020202020202020202020202020200a00000000000080"
    "3f0000004000004040000080400000a040";
// np.lib.format.write_array(f, np.arange(3, dtype='<f2'), version=(2, 0)).
const char* kNumpyF16v2 =
    "934e554d50590200740000007b276465736372273a20273c6632272c2027666f727472616e5f6f72646572273a"
    "2046616c73652c20277368617065273a2028332c292c207d202020202020202020202020202020202020202020"
    "202020202020202020202020202020202020202020202020202020202020202020202020200a0000003c0040";

}  // namespace

TEST_CASE("npy round trip for every dtype and rank", "[formats][npy]") {
  const DType types[] = {DType::F32, DType::F16, DType::F64, DType::I64,
                         DType::I32, DType::I8,  DType::U8,  DType::Bool};
  const std::vector<std::vector<int64_t>> shapes = {{}, {5}, {2, 3}, {2, 0, 4}, {1, 2, 3, 4}};
  for (DType t : types) {
    for (const auto& shape : shapes) {
      Array a;
      a.dtype = t;
      a.shape = shape;
      uint64_t numel = 0;
      REQUIRE(mgb::npy::numElements(shape, &numel));
      a.data.resize(numel * mgb::npy::elementSize(t));
      for (size_t i = 0; i < a.data.size(); ++i) a.data[i] = uint8_t(i * 37 + 1);
      if (t == DType::Bool) for (auto& b : a.data) b &= 1;
      std::vector<uint8_t> bytes;
      std::string err;
      REQUIRE(mgb::npy::write(a, &bytes, &err));
      CHECK((bytes.size() - a.data.size()) % 64 == 0);  // data starts 64-aligned
      Array b;
      INFO(mgb::npy::dtypeName(t) << " rank " << shape.size());
      REQUIRE(mgb::npy::read(bytes.data(), bytes.size(), &b, &err));
      CHECK(b.dtype == t);
      CHECK(b.shape == shape);
      CHECK(b.data == a.data);
    }
  }
}

TEST_CASE("npy reads NumPy's bytes and writes them back identically", "[formats][npy]") {
  const std::vector<uint8_t> f = fromHex(kNumpyF32);
  Array a;
  std::string err;
  REQUIRE(mgb::npy::read(f.data(), f.size(), &a, &err));
  CHECK(a.dtype == DType::F32);
  CHECK(a.shape == std::vector<int64_t>{2, 3});
  float v[6];
  std::memcpy(v, a.data.data(), 24);
  CHECK(v[5] == 5.0f);
  std::vector<uint8_t> again;
  REQUIRE(mgb::npy::write(a, &again, &err));
  CHECK(again == f);

  const std::vector<uint8_t> g = fromHex(kNumpyF16v2);
  REQUIRE(mgb::npy::read(g.data(), g.size(), &a, &err));
  CHECK(a.dtype == DType::F16);
  CHECK(a.shape == std::vector<int64_t>{3});
  CHECK(a.data == std::vector<uint8_t>{0x00, 0x00, 0x00, 0x3c, 0x00, 0x40});
}

TEST_CASE("npy files on disk", "[formats][npy]") {
  Array a;
  a.dtype = DType::I32;
  a.shape = {2};
  a.data = {1, 0, 0, 0, 2, 0, 0, 0};
  const char* dir = std::getenv("TMPDIR");
  const std::string path = std::string(dir ? dir : "/tmp") + "/mgc-test-npy.npy";
  std::string err;
  REQUIRE(mgb::npy::writeFile(path, a, &err));
  Array b;
  REQUIRE(mgb::npy::readFile(path, &b, &err));
  CHECK(b.data == a.data);
  std::remove(path.c_str());
  CHECK_FALSE(mgb::npy::readFile("/nonexistent/a.npy", &b, &err));
  CHECK(err.find("cannot open") != std::string::npos);
  a.data.pop_back();
  CHECK_FALSE(mgb::npy::writeFile(path, a, &err));
  CHECK(err.find("needs 8") != std::string::npos);
}

TEST_CASE("npy has no bfloat16: writing one is refused, reading never yields one", "[formats][npy]") {
  Array a;
  a.dtype = DType::BF16;
  a.shape = {2};
  a.data = {0x80, 0x3f, 0x00, 0x40};
  std::vector<uint8_t> bytes;
  std::string err;
  CHECK_FALSE(mgb::npy::write(a, &bytes, &err));
  CHECK(err == "npy: NumPy has no bf16 type (convert to f32 first)");
  CHECK(mgb::npy::descr(DType::BF16) == nullptr);
  // ml_dtypes saves bfloat16 as an opaque two-byte void type.
  CHECK(readError(withHeader("{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }", 4))
            .find("unsupported dtype '<V2'") != std::string::npos);
}

TEST_CASE("hostile npy headers fail with a message", "[formats][npy]") {
  const std::string ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  CHECK(readError(withHeader(ok, 8)) == "");
  CHECK(readError(withHeader(ok, 7)).find("needs 8") != std::string::npos);
  CHECK(readError(withHeader(ok, 9)).find("needs 8") != std::string::npos);
  CHECK(readError(withHeader("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8)).find("big-endian") != std::string::npos);
  CHECK(readError(withHeader("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16)).find("unsupported dtype") != std::string::npos);
  CHECK(readError(withHeader("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", 8)).find("Fortran") != std::string::npos);
  CHECK(readError(withHeader("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 8)).find("structured") != std::string::npos);
  CHECK(readError(withHeader("{'descr': '<f4', 'shape': (2,), }", 8)).find("lacks") != std::string::npos);
  CHECK(readError(withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", 8)).find("shape") != std::string::npos);
  CHECK(readError(withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }", 8)) != "");
  CHECK(readError(withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", 8)).find("too large") != std::string::npos);
  CHECK(readError(withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", 8)).find("unexpected header key") != std::string::npos);
  CHECK(readError(withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2,) ", 8)) != "");
  CHECK(readError(withHeader("{'descr': '<f4", 8)) != "");
  CHECK(readError(withHeader("", 8)) != "");
  CHECK(readError(withHeader("[1, 2]", 8)).find("not a dict") != std::string::npos);

  std::vector<uint8_t> f = withHeader(ok, 8);
  f[6] = 9;
  CHECK(readError(f).find("version 9") != std::string::npos);
  f = withHeader(ok, 8);
  f[0] = 'X';
  CHECK(readError(f).find("magic") != std::string::npos);
  f = withHeader(ok, 8);
  f[8] = 0xff;
  f[9] = 0xff;
  CHECK(readError(f).find("exceeds file size") != std::string::npos);
  CHECK(readError({}) != "");
  Array a;
  std::string err;
  CHECK_FALSE(mgb::npy::read(nullptr, 0, &a, &err));

  // Every prefix of a valid file fails without crashing.
  const std::vector<uint8_t> good = withHeader(ok, 8);
  for (size_t n = 0; n < good.size(); ++n) {
    const std::vector<uint8_t> prefix(good.begin(), good.begin() + long(n));
    REQUIRE(readError(prefix) != "");
  }
  // Every single-byte corruption either parses or fails with a message.
  for (size_t i = 0; i < good.size(); ++i) {
    for (uint8_t v : {uint8_t(0), uint8_t('('), uint8_t('\''), uint8_t(0xff), uint8_t('9')}) {
      std::vector<uint8_t> bad = good;
      bad[i] = v;
      Array out;
      std::string e;
      if (!mgb::npy::read(bad.data(), bad.size(), &out, &e)) REQUIRE(!e.empty());
    }
  }
}
