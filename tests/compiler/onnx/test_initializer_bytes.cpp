// The wire scan that takes initializer raw_data out of a model before
// protobuf parses it (compiler/onnx/initializer_bytes.h): the stripped parse
// plus the side table must equal protobuf's parse of the whole file, and
// hostile bytes must give an error naming the file, never a crash.
#include <google/protobuf/util/message_differencer.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "compiler/onnx/import.h"
#include "compiler/onnx/initializer_bytes.h"
#include "compiler/onnx/tensor_proto.h"
#include "ir/printer.h"

using namespace mgc;
using mgc::onnximport::splitInitializerBytes;
using mgc::onnximport::SplitModel;

namespace {

const std::string kDir = "tests/compiler/onnx/models/";

std::string readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE(f);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// The stripped parse with each initializer's raw_data put back from the
// side table: what the importer sees. False when the scan refuses the bytes.
bool reassemble(const std::string& bytes, onnx::ModelProto& out) {
  SplitModel split;
  if (!splitInitializerBytes(bytes.data(), bytes.size(), split).empty()) return false;
  const std::string& parsed = split.stripped.empty() ? bytes : split.stripped;
  REQUIRE(out.ParseFromString(parsed));
  REQUIRE(size_t(out.graph().initializer_size()) == split.rawData.size());
  for (size_t k = 0; k < split.rawData.size(); ++k) {
    if (!split.rawData[k]) continue;
    REQUIRE(!out.graph().initializer(int(k)).has_raw_data());  // taken out, not duplicated
    const std::string_view raw = *split.rawData[k];
    // The view points into the scanned bytes: no copy was made.
    REQUIRE(raw.data() >= bytes.data());
    REQUIRE(raw.data() + raw.size() <= bytes.data() + bytes.size());
    out.mutable_graph()->mutable_initializer(int(k))->set_raw_data(std::string(raw));
  }
  return true;
}

void requireSameAsProtobuf(const std::string& bytes) {
  onnx::ModelProto whole, rebuilt;
  REQUIRE(whole.ParseFromString(bytes));
  REQUIRE(reassemble(bytes, rebuilt));
  std::string diff;
  google::protobuf::util::MessageDifferencer d;
  d.ReportDifferencesToString(&diff);
  REQUIRE(d.Compare(whole, rebuilt));
  INFO(diff);
}

// x (1×4 f32) + w (initializer, raw_data) → y.
onnx::ModelProto addModel() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("add");
  auto valueInfo = [](onnx::ValueInfoProto* vi, const char* name) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_value(1);
    tt->mutable_shape()->add_dim()->set_dim_value(4);
  };
  valueInfo(g->add_input(), "x");
  valueInfo(g->add_output(), "y");
  onnx::TensorProto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(1);
  w->add_dims(4);
  const float values[4] = {1.5f, -2.f, 3.25f, 4.f};
  w->set_raw_data(std::string(reinterpret_cast<const char*>(values), sizeof values));
  onnx::NodeProto* n = g->add_node();
  n->set_op_type("Add");
  n->add_input("x");
  n->add_input("w");
  n->add_output("y");
  return m;
}

std::string importError(const std::string& bytes, const std::string& name) {
  try {
    importOnnxBytes(bytes.data(), bytes.size(), name);
  } catch (const Error& e) {
    return e.what();
  }
  FAIL("importing " << name << " did not throw");
  return "";
}

// A length-delimited field appended to serialized bytes.
void appendField(std::string& out, int number, const std::string& payload) {
  for (uint64_t v = uint64_t(number) << 3 | 2, pass = 0; pass < 2; v = payload.size(), ++pass) {
    for (; v >= 0x80; v >>= 7) out += char(uint8_t(v) | 0x80);
    out += char(v);
  }
  out += payload;
}

std::string scanProblem(const std::string& bytes) {
  SplitModel split;
  return splitInitializerBytes(bytes.data(), bytes.size(), split);
}

}  // namespace

TEST_CASE("stripped parse + side table equals protobuf's parse of every fixture model", "[onnx]") {
  size_t models = 0, withRaw = 0;
  for (const auto& e : std::filesystem::directory_iterator(kDir)) {
    if (e.path().extension() != ".onnx") continue;
    const std::string bytes = readFile(e.path().string());
    onnx::ModelProto whole;
    if (!whole.ParseFromString(bytes)) continue;  // not_onnx, truncated
    INFO(e.path().string());
    requireSameAsProtobuf(bytes);
    ++models;
    for (const onnx::TensorProto& t : whole.graph().initializer()) withRaw += t.has_raw_data();
  }
  REQUIRE(models >= 10);
  REQUIRE(withRaw >= 5);  // the fixtures do exercise the split
}

TEST_CASE("every fixture model imports the same graph and weights as through protobuf alone", "[onnx]") {
  // An unknown group field appended: protobuf accepts it, the scan hands the
  // whole file to protobuf, which is the import path before the scan.
  const std::string group("\xa3\x06\x08\x01\xa4\x06", 6);
  size_t models = 0;
  for (const auto& e : std::filesystem::directory_iterator(kDir)) {
    if (e.path().extension() != ".onnx") continue;
    const std::string bytes = readFile(e.path().string());
    if (!scanProblem(bytes).empty()) continue;  // not_onnx
    INFO(e.path().string());
    const std::string wholePath = bytes + group;
    REQUIRE(!scanProblem(wholePath).empty());
    std::string viaScan, viaProtobuf;
    try {
      viaScan = printGraph(importOnnxBytes(bytes.data(), bytes.size(), "m.onnx"));  // constants printed in full
    } catch (const Error& err) {
      viaScan = std::string("error: ") + err.what();
    }
    try {
      viaProtobuf = printGraph(importOnnxBytes(wholePath.data(), wholePath.size(), "m.onnx"));
    } catch (const Error& err) {
      viaProtobuf = std::string("error: ") + err.what();
    }
    CHECK(viaScan == viaProtobuf);
    models += viaScan.rfind("error: ", 0) != 0;
  }
  REQUIRE(models >= 10);
}

TEST_CASE("imported weights come from the side table unchanged", "[onnx]") {
  onnx::ModelProto m = addModel();
  const std::string bytes = m.SerializeAsString();
  SplitModel split;
  REQUIRE(splitInitializerBytes(bytes.data(), bytes.size(), split).empty());
  REQUIRE(!split.stripped.empty());
  // 16 bytes of raw_data, its tag and length; the enclosing lengths still fit one byte.
  REQUIRE(split.stripped.size() + 18 == bytes.size());
  REQUIRE(split.rawData.size() == 1);
  REQUIRE(*split.rawData[0] == m.graph().initializer(0).raw_data());

  Graph g = importOnnxBytes(bytes.data(), bytes.size(), "add.onnx");
  const HostTensor expected = onnximport::tensorFromProto(m.graph().initializer(0), "w");
  size_t found = 0;
  for (const Value& v : g.values)
    if (v.isConstant() && v.constant->data == expected.data) ++found;
  REQUIRE(found == 1);
}

TEST_CASE("the scan keeps protobuf's meaning of repeated fields", "[onnx]") {
  onnx::TensorProto other;
  const float values[4] = {9.f, 8.f, 7.f, 6.f};
  other.set_raw_data(std::string(reinterpret_cast<const char*>(values), sizeof values));

  // A second graph field: protobuf merges it into the first, appending its
  // initializers; the side table counts them in the same order.
  onnx::ModelProto second;
  *second.mutable_graph()->add_initializer() = other;
  const std::string twoGraphs = addModel().SerializeAsString() + second.SerializeAsString();
  requireSameAsProtobuf(twoGraphs);
  SplitModel split;
  REQUIRE(splitInitializerBytes(twoGraphs.data(), twoGraphs.size(), split).empty());
  REQUIRE(split.rawData.size() == 2);
  REQUIRE(*split.rawData[1] == other.raw_data());

  // One tensor with raw_data twice (two serialized tensors concatenated
  // merge into one): the last counts, as in protobuf.
  onnx::ModelProto m = addModel();
  const std::string tensorBytes = m.graph().initializer(0).SerializeAsString() + other.SerializeAsString();
  m.mutable_graph()->clear_initializer();
  std::string graphBytes = m.graph().SerializeAsString();
  appendField(graphBytes, 5, tensorBytes);
  m.clear_graph();
  std::string model = m.SerializeAsString();
  appendField(model, 7, graphBytes);
  requireSameAsProtobuf(model);
  REQUIRE(splitInitializerBytes(model.data(), model.size(), split).empty());
  REQUIRE(split.rawData.size() == 1);
  REQUIRE(*split.rawData[0] == other.raw_data());
}

TEST_CASE("hostile wire data gives an error naming the file, never a crash", "[onnx]") {
  const std::string good = addModel().SerializeAsString();

  // A truncated varint: graph's tag, then a length whose continuation bit
  // promises a byte that is not there.
  const std::string truncatedVarint("\x08\x08\x3a\xff", 4);
  REQUIRE(scanProblem(truncatedVarint) == "byte 3: varint runs past the end of its message");
  REQUIRE(importError(truncatedVarint, "tv.onnx") ==
          "tv.onnx: not an ONNX model (protobuf parse failed at byte 3: varint runs past the end of its message)");
  REQUIRE(scanProblem(std::string(11, '\xff')) == "byte 0: varint longer than 10 bytes");

  // A length past the end of the file.
  const std::string pastEnd("\x08\x08\x3a\x7f\x00", 5);
  REQUIRE(scanProblem(pastEnd) == "byte 2: length runs past the end of its message");
  REQUIRE(importError(pastEnd, "pe.onnx").rfind("pe.onnx: not an ONNX model (protobuf parse failed at byte 2: ", 0) ==
          0);

  // Nested lengths that lie: the initializer claims more bytes than its
  // graph holds, though the file has them.
  std::string lying("\x3a\x03\x2a\x05\x4a", 5);
  lying += std::string("\x12\x00\x12\x00\x12\x00", 6);  // more valid fields after the graph
  REQUIRE(scanProblem(lying) == "byte 2: length runs past the end of its message");
  onnx::ModelProto check;
  REQUIRE(!check.ParseFromString(lying));  // protobuf agrees
  REQUIRE(importError(lying, "ly.onnx").find("ly.onnx: not an ONNX model") == 0);
  // raw_data's own length lying inside its tensor.
  const std::string lyingRaw("\x3a\x04\x2a\x02\x4a\x09", 6);
  REQUIRE(scanProblem(lyingRaw) == "byte 4: length runs past the end of its message");

  // Field number 0, invalid wire types, a fixed-size field cut short.
  REQUIRE(scanProblem(std::string("\x00\x01", 2)) == "byte 0: field number 0");
  REQUIRE(scanProblem("\x0e") == "byte 0: invalid wire type");
  REQUIRE(scanProblem("\x09\x01\x02") == "byte 0: fixed-size field runs past the end of its message");

  // Every prefix: the scan and protobuf agree on which are well formed,
  // and the import never crashes.
  for (size_t n = 0; n < good.size(); ++n) {
    const std::string prefix = good.substr(0, n);
    onnx::ModelProto whole;
    INFO("prefix of " << n << " bytes");
    REQUIRE(scanProblem(prefix).empty() == whole.ParseFromString(prefix));
    try {
      importOnnxBytes(prefix.data(), prefix.size(), "prefix.onnx");
    } catch (const Error& e) {
      REQUIRE(std::string(e.what()).rfind("prefix.onnx: ", 0) == 0);
    }
  }

  // Random corruptions: when both accept, they agree on the content.
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::string bytes = good;
    for (int k = 0; k < 3; ++k) bytes[rng() % bytes.size()] = char(rng());
    onnx::ModelProto whole, rebuilt;
    if (whole.ParseFromString(bytes) && reassemble(bytes, rebuilt))
      REQUIRE(google::protobuf::util::MessageDifferencer::Equals(whole, rebuilt));
    try {
      importOnnxBytes(bytes.data(), bytes.size(), "corrupt.onnx");
    } catch (const Error& e) {
      REQUIRE(std::string(e.what()).rfind("corrupt.onnx: ", 0) == 0);
    }
  }
}

TEST_CASE("bytes the scan refuses but protobuf accepts still import", "[onnx]") {
  // An unknown group field (wire types 3 and 4, which onnx.proto never
  // uses): protobuf keeps it as an unknown field, the scan hands over.
  std::string bytes = addModel().SerializeAsString();
  bytes += std::string("\xa3\x06\x08\x01\xa4\x06", 6);  // field 100: start group, varint field 1, end group
  onnx::ModelProto whole;
  REQUIRE(whole.ParseFromString(bytes));
  REQUIRE(scanProblem(bytes).find("group wire type") != std::string::npos);
  Graph g = importOnnxBytes(bytes.data(), bytes.size(), "group.onnx");
  REQUIRE(g.outputs.size() == 1);
}

TEST_CASE("external data and a wrong raw_data size are still refused", "[onnx]") {
  onnx::ModelProto m = addModel();
  onnx::TensorProto* w = m.mutable_graph()->mutable_initializer(0);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* entry = w->add_external_data();
  entry->set_key("location");
  entry->set_value("weights.bin");
  std::string err = importError(m.SerializeAsString(), "ext.onnx");
  REQUIRE(err == "ext.onnx: initializer 'w': external data is not supported");

  onnx::ModelProto short_ = addModel();
  short_.mutable_graph()->mutable_initializer(0)->set_raw_data(std::string(12, '\0'));
  err = importError(short_.SerializeAsString(), "short.onnx");
  REQUIRE(err == "short.onnx: initializer 'w': raw_data has 12 bytes, expected 16 for f32[1,4]");
}
