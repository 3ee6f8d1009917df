// MatMulInteger / ConvInteger (ops_integer.cpp): long reductions are split
// into partial sums that f32 holds exactly, added as int32; the result must
// equal the integer reference bit for bit.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "compiler/onnx/import.h"
#include "ir/eval.h"

using namespace mgc;

namespace {

void addValue(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name, int type,
              const Shape& shape) {
  onnx::ValueInfoProto* v = list->Add();
  v->set_name(name);
  v->mutable_type()->mutable_tensor_type()->set_elem_type(type);
  for (int64_t d : shape) v->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
}

// One node `op` over u8 graph inputs a, b and scalar u8 zero points 3 and 250
// given as initializers.
Graph importIntegerModel(const std::string& op, const Shape& a, const Shape& b, const Shape& y) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.add_opset_import()->set_version(10);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("integer");
  addValue(g->mutable_input(), "a", onnx::TensorProto::UINT8, a);
  addValue(g->mutable_input(), "b", onnx::TensorProto::UINT8, b);
  for (auto [name, v] : {std::pair<const char*, int>{"a_zp", 3}, {"b_zp", 250}}) {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::UINT8);
    t->set_raw_data(std::string(1, char(v)));
  }
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(op);
  n->set_name("q");
  for (const char* i : {"a", "b", "a_zp", "b_zp"}) n->add_input(i);
  n->add_output("y");
  addValue(g->mutable_output(), "y", onnx::TensorProto::INT32, y);
  const std::string bytes = m.SerializeAsString();
  return importOnnxBytes(bytes.data(), bytes.size(), "integer.onnx");
}

HostTensor randomBytes(const Shape& s, uint32_t seed) {
  HostTensor t(TensorType{DType::U8, s});
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < t.numel(); ++i) t.setI(i, int64_t(rng() % 256));
  return t;
}

int count(const Graph& g, Op op) {
  int k = 0;
  for (const Node& n : g.nodes) k += n.op == op;
  return k;
}

}  // namespace

TEST_CASE("MatMulInteger over K = 600 sums exact partial products", "[onnx][integer]") {
  const int64_t M = 2, K = 600, N = 3;
  Graph g = importIntegerModel("MatMulInteger", {M, K}, {K, N}, {M, N});
  CHECK(count(g, Op::MatMul) == 3);  // 258 + 258 + 84
  HostTensor a = randomBytes({M, K}, 1), b = randomBytes({K, N}, 2);
  const HostTensor y = evalGraph(g, {{"a", a}, {"b", b}}).at("y");
  REQUIRE(y.type.str() == "i32[2,3]");
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      int64_t want = 0;
      for (int64_t k = 0; k < K; ++k) want += (a.getI(i * K + k) - 3) * (b.getI(k * N + j) - 250);
      CHECK(y.getI(i * N + j) == want);
    }
}

TEST_CASE("ConvInteger over 100 channels of 3x3 splits the channels", "[onnx][integer]") {
  const int64_t C = 100, H = 4;
  Graph g = importIntegerModel("ConvInteger", {1, C, H, H}, {2, C, 3, 3}, {1, 2, H - 2, H - 2});
  CHECK(count(g, Op::Conv) == 4);  // 28 channels (252 products) per chunk
  HostTensor x = randomBytes({1, C, H, H}, 3), w = randomBytes({2, C, 3, 3}, 4);
  const HostTensor y = evalGraph(g, {{"a", x}, {"b", w}}).at("y");
  REQUIRE(y.type.str() == "i32[1,2,2,2]");
  for (int64_t m = 0; m < 2; ++m)
    for (int64_t r = 0; r < H - 2; ++r)
      for (int64_t q = 0; q < H - 2; ++q) {
        int64_t want = 0;
        for (int64_t c = 0; c < C; ++c)
          for (int64_t u = 0; u < 3; ++u)
            for (int64_t v = 0; v < 3; ++v)
              want += (x.getI((c * H + r + u) * H + q + v) - 3) * (w.getI(((m * C + c) * 3 + u) * 3 + v) - 250);
        CHECK(y.getI((m * (H - 2) + r) * (H - 2) + q) == want);
      }
}
