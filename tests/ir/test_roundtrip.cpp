// print → parse → print is byte-identical, and the parsed graph is the
// original graph (same values, types, constant bytes, nodes, attributes).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>

#include "ir/parser.h"
#include "ir/printer.h"
#include "tests/ir/ir_test_graphs.h"

using namespace mgc;

namespace {

void requireSameGraph(const Graph& a, const Graph& b) {
  REQUIRE(a.name == b.name);
  REQUIRE(a.inputs.size() == b.inputs.size());
  for (size_t k = 0; k < a.inputs.size(); ++k) {
    REQUIRE(a.value(a.inputs[k]).name == b.value(b.inputs[k]).name);
    REQUIRE(a.type(a.inputs[k]) == b.type(b.inputs[k]));
  }
  for (const Value& va : a.values) {
    if (!va.isConstant()) continue;
    ValueId vb = b.find(va.name);
    REQUIRE(vb != kNoValue);
    INFO("constant " << va.name);
    REQUIRE(b.value(vb).isConstant());
    REQUIRE(b.type(vb) == va.type);
    REQUIRE(b.value(vb).constant->data == va.constant->data);
  }
  REQUIRE(a.nodes.size() == b.nodes.size());
  for (size_t k = 0; k < a.nodes.size(); ++k) {
    const Node &na = a.nodes[k], &nb = b.nodes[k];
    INFO("node " << na.name);
    REQUIRE(na.op == nb.op);
    REQUIRE(na.name == nb.name);
    REQUIRE(na.attrs == nb.attrs);
    REQUIRE(na.inputs.size() == nb.inputs.size());
    for (size_t i = 0; i < na.inputs.size(); ++i) {
      if (na.inputs[i] == kNoValue) {
        REQUIRE(nb.inputs[i] == kNoValue);
      } else {
        REQUIRE(a.value(na.inputs[i]).name == b.value(nb.inputs[i]).name);
      }
    }
    for (size_t o = 0; o < na.outputs.size(); ++o) REQUIRE(a.type(na.outputs[o]) == b.type(nb.outputs[o]));
  }
  REQUIRE(a.outputs.size() == b.outputs.size());
  for (size_t k = 0; k < a.outputs.size(); ++k) REQUIRE(a.value(a.outputs[k]).name == b.value(b.outputs[k]).name);
}

void requireRoundTrip(const Graph& g) {
  std::string text = printGraph(g);
  INFO(text);
  Graph parsed = parseGraph(text, "roundtrip.mgir");
  REQUIRE(printGraph(parsed) == text);
  requireSameGraph(g, parsed);
}

}  // namespace

TEST_CASE("every op round-trips through the text IR", "[ir][printer][parser]") {
  Graph g = testing::graphWithEveryOp();
  // Every op of the table is in the sample graph.
  std::vector<bool> seen(kNumOps, false);
  for (const Node& n : g.nodes) seen[size_t(n.op)] = true;
  for (int op = 0; op < kNumOps; ++op) {
    INFO(opName(Op(op)));
    REQUIRE(seen[size_t(op)]);
  }
  requireRoundTrip(g);
}

TEST_CASE("every dtype and edge value round-trips exactly", "[ir][printer][parser]") {
  requireRoundTrip(testing::graphWithEveryDType());
}

TEST_CASE("non-canonical NaNs and odd bool bytes survive via hex", "[ir][printer]") {
  Graph g;
  HostTensor f({DType::F32, {2}});
  uint32_t payloadNan = 0xffc00123u;
  std::memcpy(f.data.data(), &payloadNan, 4);
  HostTensor b({DType::Bool, {3}});
  b.data = {0, 1, 7};
  g.addConstant("f", f);
  g.addConstant("b", b);
  std::string text = printGraph(g);
  CHECK(text.find("dense<\"0x") != std::string::npos);
  requireRoundTrip(g);
}

TEST_CASE("printer output is readable and matches the documented syntax", "[ir][printer]") {
  Graph g;
  g.name = "main";
  ValueId x = g.addInput("x", {DType::F32, {1, 3, 8, 8}});
  HostTensor w({DType::F32, {4, 3, 1, 1}});
  for (int64_t i = 0; i < w.numel(); ++i) w.setF(i, 0.5 * double(i));
  ValueId wv = g.addConstant("w", w);
  NodeId c = g.addNode(Op::Conv, "onnx::Conv_12", {x, wv, kNoValue}, {{"group", int64_t(1)}});
  NodeId r = g.addNode(Op::Relu, "y", {g.nodes[size_t(c)].outputs[0]});
  NodeId k = g.addNode(Op::Cast, "h", {g.nodes[size_t(r)].outputs[0]}, {{"to", int64_t(DType::F16)}});
  g.outputs.push_back(g.nodes[size_t(k)].outputs[0]);
  const char* expected =
      "graph @main(%x: f32[1,3,8,8]) {\n"
      "  %w = const f32[4,3,1,1] dense<[0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5]>\n"
      "  %\"onnx::Conv_12\" = conv(%x, %w, none) {group = 1} : f32[1,4,8,8]\n"
      "  %y = relu(%\"onnx::Conv_12\") : f32[1,4,8,8]\n"
      "  %h = cast(%y) {to = f16} : f16[1,4,8,8]\n"
      "  return %h\n"
      "}\n";
  REQUIRE(printGraph(g) == expected);
  std::string elided = printGraph(testing::graphWithEveryOp(), true);
  CHECK(elided.find("dense_resource<elided>") != std::string::npos);
}

TEST_CASE("floats print shortest and keep their type", "[ir][printer]") {
  CHECK(formatFloat(0.1, DType::F32) == "0.1");
  CHECK(formatFloat(0.1, DType::F64) == "0.1");
  CHECK(formatFloat(1.0, DType::F64) == "1.0");
  CHECK(formatFloat(-0.0, DType::F64) == "-0.0");
  CHECK(formatFloat(1e20, DType::F64) == "1e+20");
  CHECK(formatFloat(double(float(1.0 / 3.0)), DType::F32) == "0.33333334");
  CHECK(formatFloat(1.0 / 3.0, DType::F64) == "0.3333333333333333");
  CHECK(formatFloat(double(halfToFloat(floatToHalf(0.1f))), DType::F16) == "0.1");
  CHECK(formatFloat(double(bf16ToFloat(floatToBf16(0.1f))), DType::BF16) == "0.1");
  CHECK(formatFloat(3.140625, DType::BF16) == "3.14");
}

TEST_CASE("bf16 is a dtype of the text IR", "[ir][printer][parser]") {
  DType t = DType::F32;
  REQUIRE(parseDType("bf16", &t));
  CHECK(t == DType::BF16);
  CHECK(TensorType{DType::BF16, {2, 3}}.str() == "bf16[2,3]");
  HostTensor h({DType::BF16, {3}});
  h.setF(0, 1.0);
  h.setF(1, 3.14159265);
  h.setF(2, -0.0);
  CHECK(h.as<uint16_t>()[0] == 0x3f80);
  CHECK(h.as<uint16_t>()[1] == 0x4049);  // rounded to nearest
  CHECK(h.getF(1) == 3.140625);
  CHECK(h.as<uint16_t>()[2] == 0x8000);
}

TEST_CASE("names that are not identifiers are quoted and escaped", "[ir][printer][parser]") {
  CHECK(printValueName("x.1_a") == "%x.1_a");
  CHECK(printValueName("onnx::Conv_12") == "%\"onnx::Conv_12\"");
  CHECK(printValueName("a\"b\\c\n\x01\xc3\xa9") == "%\"a\\\"b\\\\c\\n\\01\\C3\\A9\"");
  Graph g;
  g.name = "weird \"graph\"";
  ValueId x = g.addInput("in put\t\xff", {DType::F32, {2}});
  g.addNode(Op::Relu, "node with \"quotes\"", {x});
  g.outputs.push_back(g.nodes[0].outputs[0]);
  g.nodes[0].attrs["str attr"] = std::string("tab\there \"q\" \\ \x7f");
  requireRoundTrip(g);
}

TEST_CASE("attributes of every kind round-trip", "[ir][printer][parser]") {
  Graph g;
  ValueId x = g.addInput("x", {DType::F32, {2}});
  Attrs attrs{{"i", int64_t(-7)},
              {"f", 2.5},
              {"f_int_valued", 3.0},
              {"s", std::string("hello")},
              {"il", std::vector<int64_t>{1, -2, 3}},
              {"fl", std::vector<double>{0.1, -1e-30, 4.0}},
              {"empty", std::vector<int64_t>{}},
              {"nan", std::numeric_limits<double>::quiet_NaN()},
              {"ninf", -std::numeric_limits<double>::infinity()}};
  g.addNode(Op::Relu, "r", {x}, attrs);
  g.outputs.push_back(g.nodes[0].outputs[0]);
  std::string text = printGraph(g);
  CHECK(text.find("f_int_valued = 3.0") != std::string::npos);
  Graph parsed = parseGraph(text, "attrs.mgir");
  REQUIRE(printGraph(parsed) == text);
  const Attrs& back = parsed.nodes[0].attrs;
  CHECK(std::get<int64_t>(back.at("i")) == -7);
  CHECK(std::get<double>(back.at("f_int_valued")) == 3.0);
  CHECK(std::get<std::vector<double>>(back.at("fl")) == std::vector<double>{0.1, -1e-30, 4.0});
  CHECK(std::isnan(std::get<double>(back.at("nan"))));
  CHECK(std::get<double>(back.at("ninf")) == -std::numeric_limits<double>::infinity());
}

TEST_CASE("the parser accepts comments, free layout and int literals for floats", "[ir][parser]") {
  const char* text =
      "// a comment\n"
      "graph @g(%a: f32[2],\n   %b: f32[2]) { // trailing\n"
      "  %k = const f32[2] dense<[1, 2.5e0]>\n"
      "  %s = add(%a,%k):f32[2] loc(\"sum\")  %t = mul(%s, %b) : f32[2]\n"
      "  return %t, %s\n"
      "}\n";
  Graph g = parseGraph(text, "free.mgir");
  REQUIRE(g.nodes.size() == 2);
  CHECK(g.nodes[0].name == "sum");
  CHECK(g.nodes[1].name == "t");
  CHECK(g.value(g.find("k")).constant->as<float>()[1] == 2.5f);
  CHECK(g.outputs.size() == 2);
}
