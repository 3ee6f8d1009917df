// ONNX importer tests over the tiny models that make_models.py generates
// (tests/compiler/onnx/models/). Numeric checks run the imported graph on the CPU
// reference evaluator against references computed by numpy / torch.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>

#include "ir/eval.h"
#include "compiler/onnx/import.h"
#include "compiler/onnx/tensor_proto.h"

using namespace mgc;

namespace {

const std::string kDir = "tests/compiler/onnx/models/";

std::vector<char> readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE(f);
  return std::vector<char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

HostTensor readTensor(const std::string& path) {
  std::vector<char> bytes = readFile(path);
  onnx::TensorProto t;
  REQUIRE(t.ParseFromArray(bytes.data(), int(bytes.size())));
  return onnximport::tensorFromProto(t, path);
}

std::string importError(const std::string& path) {
  try {
    importOnnx(path);
  } catch (const Error& e) {
    return e.what();
  }
  FAIL("importing " << path << " did not throw");
  return "";
}

std::vector<Op> opsOf(const Graph& g) {
  std::vector<Op> ops;
  for (const Node& n : g.nodes) ops.push_back(n.op);
  return ops;
}

// Imports NAME.onnx, feeds NAME.input_K.pb to its inputs in order, and
// compares every output with NAME.output_K.pb.
Graph checkNumerics(const std::string& name) {
  Graph g = importOnnx(kDir + name + ".onnx");
  std::map<std::string, HostTensor> inputs;
  for (size_t k = 0; k < g.inputs.size(); ++k)
    inputs[g.value(g.inputs[k]).name] = readTensor(kDir + name + ".input_" + std::to_string(k) + ".pb");
  std::map<std::string, HostTensor> outputs = evalGraph(g, inputs);
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    const std::string& out = g.value(g.outputs[k]).name;
    HostTensor want = readTensor(kDir + name + ".output_" + std::to_string(k) + ".pb");
    INFO(name << " output " << out);
    REQUIRE(outputs.count(out));
    const HostTensor& got = outputs.at(out);
    REQUIRE(got.type == want.type);
    for (int64_t i = 0; i < want.numel(); ++i) REQUIRE(got.getF(i) == Approx(want.getF(i)).margin(1e-5).epsilon(1e-4));
  }
  return g;
}

}  // namespace

TEST_CASE("MLP with Gemm imports as MatMul/Add/Relu chains and computes the reference", "[onnx]") {
  Graph g = checkNumerics("mlp_gemm");
  REQUIRE(g.inputs.size() == 1);
  REQUIRE(g.value(g.inputs[0]).name == "x");
  REQUIRE(g.value(g.outputs[0]).name == "y");
  REQUIRE(g.type(g.outputs[0]).str() == "f32[2,3]");
  // fc2: transB folds into the constant weight, beta*C into the constant bias.
  REQUIRE(opsOf(g) == std::vector<Op>{Op::MatMul, Op::Add, Op::Relu, Op::MatMul, Op::Mul, Op::Add});
}

TEST_CASE("Conv + BatchNorm + Relu + MaxPool", "[onnx]") {
  Graph g = checkNumerics("conv_bn_relu_pool");
  REQUIRE(opsOf(g) == std::vector<Op>{Op::Conv, Op::BatchNorm, Op::Relu, Op::MaxPool});
  const Node& conv = g.nodes[0];
  REQUIRE(conv.name == "conv");
  REQUIRE(conv.ints("pads") == std::vector<int64_t>{1, 1, 1, 1});
  REQUIRE(g.nodes[1].f("epsilon") == Approx(1e-3));
  REQUIRE(g.nodes[3].ints("kernel") == std::vector<int64_t>{2, 2});
}

TEST_CASE("1-D Conv with SAME_UPPER runs as 2-D with resolved pads", "[onnx]") {
  Graph g = checkNumerics("conv1d_same");
  REQUIRE(opsOf(g) == std::vector<Op>{Op::Reshape, Op::Conv, Op::Reshape});
  const Node& conv = g.nodes[1];
  REQUIRE(conv.ints("pads") == std::vector<int64_t>{0, 1, 0, 1});
  REQUIRE(conv.ints("strides") == std::vector<int64_t>{1, 2});
}

TEST_CASE("a Shape→Gather→Unsqueeze→Concat→Reshape subgraph folds away", "[onnx]") {
  Graph g = checkNumerics("shape_subgraph");
  REQUIRE(opsOf(g) == std::vector<Op>{Op::Reshape});
  REQUIRE(g.nodes[0].ints("shape") == std::vector<int64_t>{2, 12});
}

TEST_CASE("Split becomes Slices (sizes input, and equal split at opset 11)", "[onnx]") {
  for (const char* name : {"split_sizes", "split_equal_opset11"}) {
    Graph g = checkNumerics(name);
    REQUIRE(opsOf(g) == std::vector<Op>{Op::Slice, Op::Slice, Op::Slice});
    REQUIRE(g.value(g.outputs[2]).name == "c");
  }
}

TEST_CASE("Slice with negative steps is normalized and clamped like ONNX", "[onnx]") {
  Graph g = checkNumerics("slice_negative_steps");
  const Node& s = g.nodes.at(0);
  REQUIRE(s.ints("starts") == std::vector<int64_t>{3, 4});
  REQUIRE(s.ints("ends") == std::vector<int64_t>{-1, -1});
  REQUIRE(s.ints("steps") == std::vector<int64_t>{-2, -1});
}

TEST_CASE("Squeeze/Unsqueeze: opset 11 attributes and opset 13 inputs agree", "[onnx]") {
  Graph a = checkNumerics("squeeze_opset11"), b = checkNumerics("squeeze_opset13");
  REQUIRE(opsOf(a) == std::vector<Op>{Op::Reshape, Op::Reshape});
  REQUIRE(opsOf(b) == opsOf(a));
  for (size_t k = 0; k < 2; ++k) REQUIRE(a.nodes[k].ints("shape") == b.nodes[k].ints("shape"));
  REQUIRE(a.nodes[1].ints("shape") == std::vector<int64_t>{3, 1, 2});
}

TEST_CASE("opset 11 Softmax flattens at its axis", "[onnx]") {
  Graph g = checkNumerics("softmax_opset11");
  REQUIRE(opsOf(g) == std::vector<Op>{Op::Reshape, Op::Softmax, Op::Reshape});
  REQUIRE(g.nodes[1].i("axis") == 1);
}

TEST_CASE("every unsupported node is listed in one error", "[onnx]") {
  std::string msg = importError(kDir + "unsupported.onnx");
  INFO(msg);
  REQUIRE(msg.find("3 nodes cannot be imported") != std::string::npos);
  REQUIRE(msg.find("node 'nonzero' (NonZero, ai.onnx opset 13): op is not supported") != std::string::npos);
  REQUIRE(msg.find("node 'frob' (Frobnicate, com.example opset 1): op is not supported") != std::string::npos);
  REQUIRE(msg.find("node 'wrap_pad' (Pad, ai.onnx opset 13): mode 'wrap' is not supported") != std::string::npos);
  // The Cast downstream of NonZero is not blamed; the healthy Relu neither.
  REQUIRE(msg.find("after_nonzero") == std::string::npos);
  REQUIRE(msg.find("'fine'") == std::string::npos);
  REQUIRE(std::count(msg.begin(), msg.end(), '\n') == 3);
}

TEST_CASE("files that are not usable ONNX give one clear error", "[onnx]") {
  std::string notOnnx = importError(kDir + "not_onnx.onnx");
  REQUIRE(notOnnx.rfind(kDir + "not_onnx.onnx: not an ONNX model (", 0) == 0);
  std::string truncated = importError(kDir + "truncated.onnx");
  REQUIRE(truncated.rfind(kDir + "truncated.onnx: not an ONNX model (", 0) == 0);
  std::string missing = importError(kDir + "no_such_file.onnx");
  REQUIRE(missing.find("cannot open") != std::string::npos);
  std::string symbolic = importError(kDir + "symbolic_batch.onnx");
  REQUIRE(symbolic.find("input 'x': axis 0 is symbolic ('N')") != std::string::npos);
  std::string opset = importError(kDir + "opset18.onnx");
  REQUIRE(opset.find("opset 18") != std::string::npos);
}

TEST_CASE("every prefix and random corruptions of a model fail cleanly or import", "[onnx]") {
  std::vector<char> bytes = readFile(kDir + "conv_bn_relu_pool.onnx");
  for (size_t n = 0; n < bytes.size(); ++n) {
    try {
      importOnnxBytes(bytes.data(), n, "prefix");
    } catch (const Error&) {
    }
  }
  std::mt19937 rng(7);
  int imported = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<char> b = bytes;
    int flips = 1 + int(rng() % 4);
    for (int k = 0; k < flips; ++k) b[rng() % b.size()] = char(rng());
    try {
      importOnnxBytes(b.data(), b.size(), "fuzz");
      ++imported;
    } catch (const Error& e) {
      REQUIRE(std::string(e.what()).rfind("fuzz: ", 0) == 0);
    }
  }
  REQUIRE(imported < 2000);  // most corruptions must be caught, not silently accepted
}

// Sets every integer attribute, int64 initializer element and input dim of
// the valid test models, one at a time, to hostile values: each import must
// either succeed with a graph whose types re-infer identically, or throw
// mgc::Error. (Run under MGC_SANITIZE to catch undefined behaviour.)
TEST_CASE("hostile attribute, initializer and dim values never crash the importer", "[onnx]") {
  const int64_t extremes[] = {INT64_MIN, -(int64_t(1) << 40), -2, -1, 0, 1, 3, int64_t(1) << 40, INT64_MAX};
  int imports = 0, failures = 0;
  auto tryImport = [&](const onnx::ModelProto& m) {
    std::string s = m.SerializeAsString();
    ++imports;
    try {
      Graph g = importOnnxBytes(s.data(), s.size(), "mutant");
      for (const Node& n : g.nodes) {
        std::vector<TensorType> types = inferTypes(g, n);
        for (size_t k = 0; k < n.outputs.size(); ++k) REQUIRE(types[k] == g.type(n.outputs[k]));
      }
    } catch (const Error& e) {
      ++failures;
      REQUIRE(std::string(e.what()).rfind("mutant: ", 0) == 0);
    }
  };
  for (const char* name : {"mlp_gemm", "conv_bn_relu_pool", "conv1d_same", "shape_subgraph", "split_sizes",
                           "split_equal_opset11", "slice_negative_steps", "squeeze_opset11", "squeeze_opset13",
                           "softmax_opset11"}) {
    std::vector<char> bytes = readFile(kDir + name + ".onnx");
    onnx::ModelProto base;
    REQUIRE(base.ParseFromArray(bytes.data(), int(bytes.size())));
    const onnx::GraphProto& g = base.graph();
    for (int64_t v : extremes) {
      for (int n = 0; n < g.node_size(); ++n)
        for (int a = 0; a < g.node(n).attribute_size(); ++a) {
          onnx::ModelProto m = base;
          onnx::AttributeProto* attr = m.mutable_graph()->mutable_node(n)->mutable_attribute(a);
          if (attr->type() == onnx::AttributeProto::INT) attr->set_i(v);
          for (int k = 0; k < attr->ints_size(); ++k) attr->set_ints(k, v);
          if (attr->type() == onnx::AttributeProto::FLOAT) attr->set_f(float(v));
          tryImport(m);
        }
      for (int t = 0; t < g.initializer_size(); ++t) {
        if (g.initializer(t).data_type() != onnx::TensorProto::INT64) continue;
        for (int64_t k = 0; k * 8 < int64_t(g.initializer(t).raw_data().size()); ++k) {
          onnx::ModelProto m = base;
          std::memcpy(&(*m.mutable_graph()->mutable_initializer(t)->mutable_raw_data())[size_t(k) * 8], &v, 8);
          tryImport(m);
        }
      }
      for (int i = 0; i < g.input_size(); ++i)
        for (int d = 0; d < g.input(i).type().tensor_type().shape().dim_size(); ++d) {
          onnx::ModelProto m = base;
          m.mutable_graph()->mutable_input(i)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(d)->set_dim_value(v);
          tryImport(m);
        }
    }
  }
  REQUIRE(imports > 300);
  REQUIRE(failures > imports / 4);
}

TEST_CASE("initializer data of the wrong size is named in the error", "[onnx]") {
  onnx::ModelProto m;
  std::vector<char> bytes = readFile(kDir + "mlp_gemm.onnx");
  REQUIRE(m.ParseFromArray(bytes.data(), int(bytes.size())));
  onnx::TensorProto* w1 = m.mutable_graph()->mutable_initializer(0);
  REQUIRE(w1->name() == "w1");
  w1->mutable_raw_data()->resize(12);
  std::string s = m.SerializeAsString();
  try {
    importOnnxBytes(s.data(), s.size(), "m.onnx");
    FAIL("no error");
  } catch (const Error& e) {
    REQUIRE(std::string(e.what()) == "m.onnx: initializer 'w1': raw_data has 12 bytes, expected 128 for f32[4,8]");
  }
  w1->clear_raw_data();
  w1->add_dims(int64_t(1) << 40);
  s = m.SerializeAsString();
  REQUIRE_THROWS_WITH(importOnnxBytes(s.data(), s.size(), "m.onnx"), Catch::Contains("initializer 'w1'") && Catch::Contains("too large"));
}

TEST_CASE("a float NaN used as an index is a clear error naming the node, not undefined behaviour", "[onnx]") {
  // The fuzz finding of issue 13: Gather with constant float indices holding
  // NaN was cast to int64 (UB; INT64_MIN in release builds).
  const std::string path = "tests/fuzz/regressions/onnx/gather_nan_float_indices.onnx";
  REQUIRE_THROWS_WITH(importOnnx(path), Catch::Contains("gather_nan") && Catch::Contains("is NaN"));
}

TEST_CASE("float to integer conversions: checked for indices, saturating for value casts", "[onnx]") {
  CHECK(checkedFloatToInt64(-2.9) == -2);
  CHECK(checkedFloatToInt64(9.2e18) == int64_t(9.2e18));
  CHECK_THROWS_WITH(checkedFloatToInt64(std::nan("")), Catch::Contains("is NaN"));
  CHECK_THROWS_WITH(checkedFloatToInt64(-INFINITY), Catch::Contains("infinite"));
  CHECK_THROWS_WITH(checkedFloatToInt64(9.3e18), Catch::Contains("outside the int64 range"));
  CHECK_THROWS_WITH(checkedFloatToInt64(-9.3e18), Catch::Contains("outside the int64 range"));
  CHECK(truncToInt64(std::nan("")) == 0);
  CHECK(truncToInt64(1e300) == INT64_MAX);
  CHECK(truncToInt64(-1e300) == INT64_MIN);
  CHECK(truncToInt64(-2.9) == -2);
  HostTensor f(TensorType{DType::F32, {2}});
  f.setF(0, 3.75);
  f.setF(1, std::nan(""));
  CHECK(f.getI(0) == 3);
  CHECK_THROWS_AS(f.getI(1), Error);
  HostTensor i(TensorType{DType::I32, {1}});
  i.setF(0, std::nan(""));  // a value cast: NaN → 0, never UB
  CHECK(i.getI(0) == 0);
}
