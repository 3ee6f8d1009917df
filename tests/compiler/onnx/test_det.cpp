// Det (ops_det.cpp): the cofactor expansion of 1x1, 2x2 and 3x3 matrices on
// the CPU reference evaluator, against determinants worked out by hand.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "compiler/onnx/import.h"
#include "ir/eval.h"

using namespace mgc;

namespace {

std::vector<double> detOf(const Shape& shape, const std::vector<double>& values) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.add_opset_import()->set_version(11);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("det");
  auto addValue = [](google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name,
                     const Shape& s) {
    onnx::ValueInfoProto* v = list->Add();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : s) v->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
  };
  addValue(g->mutable_input(), "x", shape);
  onnx::NodeProto* n = g->add_node();
  n->set_op_type("Det");
  n->add_input("x");
  n->add_output("y");
  addValue(g->mutable_output(), "y", Shape(shape.begin(), shape.end() - 2));
  const std::string bytes = m.SerializeAsString();
  Graph graph = importOnnxBytes(bytes.data(), bytes.size(), "det.onnx");
  HostTensor x(TensorType{DType::F32, shape});
  for (size_t i = 0; i < values.size(); ++i) x.setF(int64_t(i), values[i]);
  const HostTensor y = evalGraph(graph, {{"x", x}}).at("y");
  std::vector<double> r;
  for (int64_t i = 0; i < y.numel(); ++i) r.push_back(y.getF(i));
  return r;
}

}  // namespace

TEST_CASE("Det of 1x1, 2x2 and batched 3x3 matrices", "[onnx][det]") {
  CHECK(detOf({1, 1}, {-2.5}) == std::vector<double>{-2.5});
  CHECK(detOf({2, 2}, {1, 2, 3, 4}) == std::vector<double>{-2});
  // [[2,0,1],[1,3,2],[1,1,1]] = 2(3-2) - 0 + 1(1-3) = 0; [[1,2,3],[0,1,4],[5,6,0]] = 1
  CHECK(detOf({2, 3, 3}, {2, 0, 1, 1, 3, 2, 1, 1, 1, 1, 2, 3, 0, 1, 4, 5, 6, 0}) == std::vector<double>{0, 1});
}

TEST_CASE("Det of a 4x4 matrix is refused naming the size", "[onnx][det]") {
  try {
    detOf({4, 4}, std::vector<double>(16, 1.0));
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("Det of 4x4 matrices (at most 3x3)") != std::string::npos);
  }
}
