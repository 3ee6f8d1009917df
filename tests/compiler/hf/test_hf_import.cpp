// The checkpoint-folder frontend without a GPU: a tiny checkpoint written
// here (zeros, shapes from config.json) imports into the expected graph,
// and every way a folder can be wrong or lie is a clear error naming the
// file and the field or tensor.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "compiler/frontends.h"
#include "compiler/hf/config.h"
#include "compiler/hf/import.h"
#include "compiler/hf/rope.h"
#include "compiler/hf/shard_index.h"
#include "formats/safetensors.h"

using namespace mgc;
using Catch::Contains;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// hidden 8, 2 heads of 4 over 1 K/V head, 1 layer, vocab 16.
struct TinyCheckpoint {
  fs::path dir;
  json config = {{"architectures", {"LlamaForCausalLM"}},
                 {"model_type", "llama"},
                 {"hidden_size", 8},
                 {"intermediate_size", 12},
                 {"num_hidden_layers", 1},
                 {"num_attention_heads", 2},
                 {"num_key_value_heads", 1},
                 {"vocab_size", 16},
                 {"rms_norm_eps", 1e-5},
                 {"rope_theta", 10000.0},
                 {"tie_word_embeddings", false}};
  std::map<std::string, std::vector<int64_t>> shapes = {
      {"model.embed_tokens.weight", {16, 8}},
      {"model.layers.0.input_layernorm.weight", {8}},
      {"model.layers.0.post_attention_layernorm.weight", {8}},
      {"model.layers.0.self_attn.q_proj.weight", {8, 8}},
      {"model.layers.0.self_attn.k_proj.weight", {4, 8}},
      {"model.layers.0.self_attn.v_proj.weight", {4, 8}},
      {"model.layers.0.self_attn.o_proj.weight", {8, 8}},
      {"model.layers.0.mlp.gate_proj.weight", {12, 8}},
      {"model.layers.0.mlp.up_proj.weight", {12, 8}},
      {"model.layers.0.mlp.down_proj.weight", {8, 12}},
      {"model.norm.weight", {8}},
      {"lm_head.weight", {16, 8}},
  };
  std::string dtype = "F32";

  TinyCheckpoint() {
    static int counter = 0;
    dir = fs::temp_directory_path() / ("mgc_hf_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(dir);
  }
  ~TinyCheckpoint() { fs::remove_all(dir); }
  std::string path() const { return dir.string(); }
  std::string file(const std::string& name) const { return (dir / name).string(); }

  std::vector<uint8_t> tensorFile(const std::vector<std::string>& names) const {
    std::vector<std::vector<uint8_t>> data;
    std::vector<safetensors::TensorData> ts;
    for (const std::string& n : names) {
      int64_t numel = 1;
      for (int64_t d : shapes.at(n)) numel *= d;
      data.emplace_back(size_t(numel) * safetensors::dtypeSize(dtype), 0);
      ts.push_back({n, dtype, shapes.at(n), data.back().data(), data.back().size()});
    }
    return safetensors::serialize(ts, {});
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [n, s] : shapes) out.push_back(n);
    return out;
  }
  void write(const std::string& name, const std::string& bytes) const { std::ofstream(file(name)) << bytes; }
  void writeBytes(const std::string& name, const std::vector<uint8_t>& b) const {
    std::ofstream(file(name), std::ios::binary)
        .write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
  }
  // config.json + model.safetensors.
  std::string save() const {
    write("config.json", config.dump());
    writeBytes("model.safetensors", tensorFile(names()));
    return path();
  }
};

}  // namespace

TEST_CASE("hf: a tiny Llama folder imports as input_ids → logits", "[hf]") {
  TinyCheckpoint ck;
  Graph g = importModel(ck.save(), FrontendOptions{false, 5, {}});
  REQUIRE(g.inputs.size() == 1);
  CHECK(g.value(g.inputs[0]).name == "input_ids");
  CHECK(g.type(g.inputs[0]) == TensorType{DType::I64, {1, 5}});
  REQUIRE(g.outputs.size() == 1);
  CHECK(g.value(g.outputs[0]).name == "logits");
  CHECK(g.type(g.outputs[0]) == TensorType{DType::F32, {1, 5, 16}});
  CHECK(std::string(frontendFor(ck.path()).name) == "hf");
  // Default sequence length.
  Graph byDefault = hf::importCheckpoint(ck.path(), 0);
  CHECK(byDefault.type(byDefault.inputs[0]).shape == Shape{1, hf::kDefaultSeqLen});
}

TEST_CASE("hf: F16 and BF16 weight files import", "[hf]") {
  for (const char* dt : {"F16", "BF16"}) {
    TinyCheckpoint ck;
    ck.dtype = dt;
    CHECK(importModel(ck.save(), FrontendOptions{false, 3, {}}).outputs.size() == 1);
  }
}

TEST_CASE("hf: sharded checkpoints follow the index", "[hf]") {
  TinyCheckpoint ck;
  ck.write("config.json", ck.config.dump());
  std::vector<std::string> all = ck.names(), a(all.begin(), all.begin() + 5), b(all.begin() + 5, all.end());
  ck.writeBytes("model-00001-of-00002.safetensors", ck.tensorFile(a));
  ck.writeBytes("model-00002-of-00002.safetensors", ck.tensorFile(b));
  json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", json::object()}};
  for (const auto& n : a) index["weight_map"][n] = "model-00001-of-00002.safetensors";
  for (const auto& n : b) index["weight_map"][n] = "model-00002-of-00002.safetensors";
  ck.write("model.safetensors.index.json", index.dump());
  CHECK(importModel(ck.path(), FrontendOptions{false, 4, {}}).outputs.size() == 1);

  SECTION("an index entry its shard does not hold") {
    index["weight_map"][a[0]] = "model-00002-of-00002.safetensors";
    ck.write("model.safetensors.index.json", index.dump());
    CHECK_THROWS_WITH(importModel(ck.path()),
                      Contains("model.safetensors.index.json: weight_map says tensor '" + a[0]));
  }
  SECTION("a missing shard") {
    fs::remove(ck.file("model-00002-of-00002.safetensors"));
    CHECK_THROWS_WITH(importModel(ck.path()), Contains("model-00002-of-00002.safetensors: cannot open"));
  }
  SECTION("a shard outside the folder") {
    index["weight_map"][a[0]] = "../model.safetensors";
    ck.write("model.safetensors.index.json", index.dump());
    CHECK_THROWS_WITH(importModel(ck.path()), Contains("not a .safetensors file name inside the checkpoint folder"));
  }
}

TEST_CASE("hf: config.json errors name the file and the field", "[hf]") {
  TinyCheckpoint ck;
  const std::string cfg = ck.file("config.json");
  auto fails = [&](const std::string& why) {
    ck.save();
    CHECK_THROWS_WITH(importModel(ck.path()), Contains(cfg) && Contains(why));
  };
  SECTION("unknown architecture") {
    ck.config["architectures"] = {"MistralForCausalLM"};
    fails("field 'architectures': 'MistralForCausalLM' is not supported");
  }
  SECTION("model_type disagrees") {
    ck.config["model_type"] = "qwen2";
    fails("field 'model_type'");
  }
  SECTION("activation") {
    ck.config["hidden_act"] = "gelu";
    fails("field 'hidden_act': 'gelu' is not supported");
  }
  SECTION("rope scaling type") {
    ck.config["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0}};
    fails("field 'rope_scaling': type 'yarn' is not supported");
  }
  SECTION("llama3 scaling without its factors") {
    ck.config["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", 8.0}};
    fails("needs 'low_freq_factor'");
  }
  SECTION("an unknown field") {
    ck.config["logit_softcapping"] = 30.0;
    fails("unknown field 'logit_softcapping'");
  }
  SECTION("a missing size") {
    ck.config.erase("hidden_size");
    fails("field 'hidden_size': missing");
  }
  SECTION("heads that do not group") {
    ck.config["num_key_value_heads"] = 3;
    fails("field 'num_key_value_heads': 3 does not divide num_attention_heads 2");
  }
  SECTION("a negative size") {
    ck.config["vocab_size"] = -4;
    fails("field 'vocab_size': -4 is outside");
  }
  SECTION("sliding window") {
    ck.config["use_sliding_window"] = true;
    fails("field 'use_sliding_window'");
  }
  SECTION("quantized") {
    ck.config["quantization_config"] = {{"quant_method", "gptq"}};
    fails("quantized checkpoints are not supported");
  }
  SECTION("not JSON") {
    ck.save();
    ck.write("config.json", "{\"hidden_size\": ");
    CHECK_THROWS_WITH(importModel(ck.path()), Contains(cfg + ": not valid JSON"));
  }
}

TEST_CASE("hf: weights that disagree with config.json", "[hf]") {
  TinyCheckpoint ck;
  SECTION("a missing tensor") {
    ck.shapes.erase("model.layers.0.mlp.up_proj.weight");
    ck.save();
    CHECK_THROWS_WITH(importModel(ck.path()),
                      Contains("model.safetensors: tensor 'model.layers.0.mlp.up_proj.weight' is missing"));
  }
  SECTION("a config that lies about a size") {
    ck.config["intermediate_size"] = 16;
    ck.save();
    CHECK_THROWS_WITH(
        importModel(ck.path()),
        Contains("tensor 'model.layers.0.mlp.gate_proj.weight' has shape [12,8], config.json implies [16,8]"));
  }
  SECTION("a huge head_dim is refused by the weights, before any table is built") {
    ck.config["head_dim"] = 1 << 22;
    ck.save();
    CHECK_THROWS_WITH(importModel(ck.path()),
                      Contains("tensor 'model.layers.0.self_attn.q_proj.weight' has shape [8,8]"));
  }
  SECTION("a tensor the config does not declare") {
    ck.shapes["model.layers.0.self_attn.q_proj.bias"] = {8};
    ck.save();
    CHECK_THROWS_WITH(importModel(ck.path()), Contains("does not use: model.layers.0.self_attn.q_proj.bias"));
  }
  SECTION("a layer more than num_hidden_layers") {
    ck.shapes["model.layers.1.input_layernorm.weight"] = {8};
    ck.save();
    CHECK_THROWS_WITH(importModel(ck.path()), Contains("does not use: model.layers.1.input_layernorm.weight"));
  }
  SECTION("an integer weight") {
    ck.dtype = "I32";
    ck.save();
    CHECK_THROWS_WITH(importModel(ck.path()), Contains("is I32 (F32, F16 and BF16 are read)"));
  }
  SECTION("a truncated file") {
    ck.save();
    fs::resize_file(ck.file("model.safetensors"), fs::file_size(ck.file("model.safetensors")) - 4);
    CHECK_THROWS_WITH(importModel(ck.path()), Contains("model.safetensors: tensor") && Contains("truncated file?"));
  }
  SECTION("tied embeddings with a different lm_head") {
    ck.config["tie_word_embeddings"] = true;
    ck.save();  // lm_head and embed_tokens are both zeros: equal, accepted
    CHECK(importModel(ck.path(), FrontendOptions{false, 2, {}}).outputs.size() == 1);
    ck.shapes["lm_head.weight"] = {16, 8};
    std::vector<uint8_t> bytes = ck.tensorFile(ck.names());
    safetensors::Header h;
    std::string err;
    REQUIRE(safetensors::parseHeader(bytes.data(), bytes.size(), &h, &err));
    bytes[size_t(h.dataOffset + h.find("lm_head.weight")->begin)] = 1;
    ck.writeBytes("model.safetensors", bytes);
    CHECK_THROWS_WITH(importModel(ck.path()), Contains("lm_head.weight differs from model.embed_tokens.weight"));
  }
  SECTION("no weights") {
    ck.write("config.json", ck.config.dump());
    CHECK_THROWS_WITH(importModel(ck.path()), Contains("no model.safetensors or model.safetensors.index.json"));
  }
  SECTION("a bad sequence length") {
    ck.save();
    CHECK_THROWS_WITH(hf::importCheckpoint(ck.path(), -3), Contains("sequence length -3"));
  }
}

TEST_CASE("hf: config fields that are read", "[hf]") {
  json j = {{"architectures", {"Qwen3ForCausalLM"}},
            {"hidden_size", 64},
            {"intermediate_size", 128},
            {"num_hidden_layers", 2},
            {"num_attention_heads", 4},
            {"num_key_value_heads", 2},
            {"vocab_size", 256},
            {"head_dim", 32},
            {"attention_bias", true},
            {"rope_scaling", {{"type", "linear"}, {"factor", 2.0}}}};
  hf::ModelConfig c = hf::parseConfig(j.dump(), "c.json");
  CHECK(c.arch == hf::Architecture::Qwen3);
  CHECK(c.headDim == 32);
  CHECK(c.kvHeads == 2);
  CHECK(c.qkNorm);
  CHECK(c.qkvBias);
  CHECK(c.outputBias);
  CHECK(c.rope.kind == hf::RopeScaling::Kind::Linear);
  // Linear scaling divides every frequency by the factor.
  hf::ModelConfig plain = c;
  plain.rope = {};
  CHECK(hf::ropeInverseFrequencies(c)[1] == Approx(hf::ropeInverseFrequencies(plain)[1] / 2));
  // Qwen2 always has q/k/v biases and none on o_proj.
  j["architectures"] = {"Qwen2ForCausalLM"};
  j.erase("attention_bias");
  c = hf::parseConfig(j.dump(), "c.json");
  CHECK(c.qkvBias);
  CHECK(!c.outputBias);
  CHECK(!c.qkNorm);
  CHECK_THROWS_WITH(hf::parseConfig("[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]", "d.json"),
                    Contains("d.json: not valid JSON: nested deeper"));
}

TEST_CASE("hf: shard index errors", "[hf]") {
  CHECK(hf::parseShardIndex(R"({"weight_map": {"a": "m-1.safetensors"}})", "i.json").at("a") == "m-1.safetensors");
  CHECK_THROWS_WITH(hf::parseShardIndex(R"({"weight_map": {}})", "i.json"), Contains("i.json: field 'weight_map'"));
  CHECK_THROWS_WITH(hf::parseShardIndex(R"({"weight_map": {"a": 3}})", "i.json"),
                    Contains("'a': shard is not a string"));
  CHECK_THROWS_WITH(hf::parseShardIndex(R"({"weight_map": {"a": "/etc/x.safetensors"}})", "i.json"),
                    Contains("inside the checkpoint folder"));
  CHECK_THROWS_WITH(hf::parseShardIndex(R"({"weights": {}})", "i.json"), Contains("unknown field 'weights'"));
}

TEST_CASE("hf: --weights packs the linear layers; widths that do not fit are errors naming the tensor", "[hf][packed]") {
  using Catch::Matchers::Contains;
  TinyCheckpoint ck;  // hidden 8, intermediate 12
  const std::string dir = ck.save();
  Graph g = hf::importCheckpoint(dir, 3, WeightPacking{WeightFormat::Int8, 4});
  int packed = 0, plain = 0;
  for (const Node& n : g.nodes) {
    packed += n.op == Op::QMatMul;
    plain += n.op == Op::MatMul && g.value(n.inputs[1]).isConstant();
  }
  CHECK(packed == 8);  // q, k, v, o, gate, up, down, lm_head
  CHECK(plain == 0);
  CHECK(g.find("model.layers.0.mlp.down_proj.weight.int8") != kNoValue);
  CHECK(g.find("model.layers.0.mlp.down_proj.weight.scales") != kNoValue);
  // int4 packs 8 per word: down_proj's input width 12 does not fit.
  CHECK_THROWS_WITH(hf::importCheckpoint(dir, 3, WeightPacking{WeightFormat::Int4, 8}),
                    Contains("model.layers.0.mlp.down_proj.weight") && Contains("--weights int4") &&
                        Contains("in_features (12) must be a multiple of 8"));
  CHECK_THROWS_WITH(hf::importCheckpoint(dir, 3, WeightPacking{WeightFormat::Int8, 8}),
                    Contains("must be a multiple of the group size 8"));
  CHECK_THROWS_WITH(hf::importCheckpoint(dir, 3, WeightPacking{WeightFormat::Int8, 6}),
                    Contains("the group size 6 must be a positive multiple of 4"));
  // Only checkpoint folders pack their weights.
  FrontendOptions onnx;
  onnx.linear.format = WeightFormat::Int8;
  CHECK_THROWS_WITH(importModel("examples/cnn.onnx", onnx), Contains("--weights int8 is for Hugging Face checkpoint folders"));
}

TEST_CASE("hf: generation entry points use the fused attention and rotary kernels", "[hf]") {
  // One Attention and two Rotary nodes per layer (q and k), no Softmax
  // left: the builder took the fused spellings for the cache's shapes.
  TinyCheckpoint ck;
  hf::GenerationGraphs gen = hf::importCheckpointForGeneration(ck.save(), 16, 8);
  for (const Graph* g : {&gen.prefill, &gen.decode}) {
    std::map<Op, int> count;
    for (const Node& n : g->nodes) ++count[n.op];
    INFO(g->name);
    CHECK(count[Op::Attention] == 1);
    CHECK(count[Op::Rotary] == 2);
    CHECK(count[Op::Softmax] == 0);
  }
}
