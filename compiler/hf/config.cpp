// config.json → ModelConfig (config.h): every key read and checked, ignored
// on purpose, or refused.
#include "compiler/hf/config.h"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "compiler/hf/json_text.h"
#include "ir/types.h"

namespace mgc::hf {

namespace {

using nlohmann::json;

// Keys that do not change the forward pass of these architectures: token
// ids, generation and training knobs, bookkeeping. Everything else is read
// below or refused.
const std::set<std::string>& ignoredKeys() {
  static const std::set<std::string> k = {
      "_name_or_path",
      "_attn_implementation_autoset",
      "attention_dropout",
      "bos_token_id",
      "dtype",
      "eos_token_id",
      "initializer_range",
      "is_llama_config",
      "max_window_layers",
      "output_attentions",
      "output_hidden_states",
      "pad_token_id",
      "pretraining_tp",
      "return_dict",
      "sliding_window",
      "tokenizer_class",
      "torch_dtype",
      "torchscript",
      "transformers_version",
      "use_bfloat16",
      "use_cache",
  };
  return k;
}

class Reader {
 public:
  Reader(const json& root, const std::string& file) : root_(root), file_(file) {}

  [[noreturn]] void fail(const std::string& key, const std::string& why) const {
    throw Error(file_ + ": field '" + key + "': " + why);
  }
  bool has(const std::string& key) const {
    auto it = root_.find(key);
    return it != root_.end() && !it->is_null();
  }
  const json& at(const std::string& key) const { return root_.at(key); }

  int64_t integer(const std::string& key, int64_t min, int64_t def = -1) const {
    if (!has(key)) {
      if (def >= 0) return def;
      fail(key, "missing (required)");
    }
    const json& v = at(key);
    if (!v.is_number_integer()) fail(key, "is not an integer: " + v.dump());
    int64_t x = v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX) ? INT64_MAX : v.get<int64_t>();
    if (x < min || x > kMaxConfigDim)
      fail(key, std::to_string(x) + " is outside [" + std::to_string(min) + ", " + std::to_string(kMaxConfigDim) + "]");
    return x;
  }
  double positive(const std::string& key, double def) const {
    if (!has(key)) return def;
    return positiveIn(at(key), key);
  }
  double positiveIn(const json& v, const std::string& key) const {
    if (!v.is_number()) fail(key, "is not a number: " + v.dump());
    double x = v.get<double>();
    if (!(x > 0) || !std::isfinite(x)) fail(key, "must be a positive finite number, got " + v.dump());
    return x;
  }
  bool boolean(const std::string& key, bool def) const {
    if (!has(key)) return def;
    if (!at(key).is_boolean()) fail(key, "is not true/false: " + at(key).dump());
    return at(key).get<bool>();
  }
  std::string string(const std::string& key, const std::string& def) const {
    if (!has(key)) return def;
    if (!at(key).is_string()) fail(key, "is not a string: " + at(key).dump());
    return at(key).get<std::string>();
  }
  // A key the model supports only at one value ("mlp_bias": false).
  void requireBool(const std::string& key, bool supported, const std::string& why) const {
    if (has(key) && boolean(key, supported) != supported) fail(key, why);
  }

 private:
  const json& root_;
  const std::string& file_;
};

Architecture readArchitecture(const Reader& r) {
  struct Known {
    const char* cls;
    const char* modelType;
    Architecture arch;
  };
  static const Known kKnown[] = {{"LlamaForCausalLM", "llama", Architecture::Llama},
                                 {"Qwen2ForCausalLM", "qwen2", Architecture::Qwen2},
                                 {"Qwen3ForCausalLM", "qwen3", Architecture::Qwen3}};
  const std::string supported = "LlamaForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM";
  const Known* found = nullptr;
  if (r.has("architectures")) {
    const json& a = r.at("architectures");
    if (!a.is_array() || a.size() != 1 || !a[0].is_string())
      r.fail("architectures", "must list exactly one class name, got " + a.dump());
    const std::string cls = a[0].get<std::string>();
    for (const Known& k : kKnown)
      if (cls == k.cls) found = &k;
    if (!found) r.fail("architectures", "'" + cls + "' is not supported (supported: " + supported + ")");
  }
  const std::string modelType = r.string("model_type", "");
  if (!found) {
    for (const Known& k : kKnown)
      if (modelType == k.modelType) found = &k;
    if (!found)
      r.fail(modelType.empty() ? "architectures" : "model_type",
             modelType.empty() ? "missing (and no model_type)"
                               : "'" + modelType + "' is not supported (supported: " + supported + ")");
  }
  if (!modelType.empty() && modelType != found->modelType)
    r.fail("model_type",
           "'" + modelType + "' does not match architectures " + found->cls + " ('" + found->modelType + "')");
  return found->arch;
}

RopeScaling readRopeScaling(const Reader& r) {
  RopeScaling s;
  if (!r.has("rope_scaling")) return s;
  const json& o = r.at("rope_scaling");
  const std::string key = "rope_scaling";
  if (!o.is_object()) r.fail(key, "is not an object or null: " + o.dump());
  std::string type;
  for (const char* k : {"rope_type", "type"}) {
    if (!o.contains(k)) continue;
    if (!o[k].is_string()) r.fail(key, std::string(k) + " is not a string");
    if (!type.empty() && type != o[k].get<std::string>()) r.fail(key, "'type' and 'rope_type' disagree");
    type = o[k].get<std::string>();
  }
  if (type.empty()) r.fail(key, "has no rope_type");
  std::set<std::string> allowed = {"rope_type", "type"};
  if (type == "default") {
    s.kind = RopeScaling::Kind::None;
  } else if (type == "linear") {
    s.kind = RopeScaling::Kind::Linear;
    allowed.insert("factor");
  } else if (type == "llama3") {
    s.kind = RopeScaling::Kind::Llama3;
    allowed.insert({"factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"});
  } else {
    r.fail(key, "type '" + type + "' is not supported (default, linear, llama3)");
  }
  for (const auto& [k, v] : o.items())
    if (!allowed.count(k)) r.fail(key, "unknown key '" + k + "' for type '" + type + "'");
  auto num = [&](const char* k, bool required, double def) {
    if (!o.contains(k)) {
      if (required) r.fail(key, std::string("type '") + type + "' needs '" + k + "'");
      return def;
    }
    return r.positiveIn(o[k], key + "." + k);
  };
  if (s.kind == RopeScaling::Kind::None) return s;
  s.factor = num("factor", true, 1);
  if (s.kind == RopeScaling::Kind::Llama3) {
    s.lowFreqFactor = num("low_freq_factor", true, 1);
    s.highFreqFactor = num("high_freq_factor", true, 4);
    double orig = num("original_max_position_embeddings", true, 8192);
    if (orig != std::floor(orig) || orig > double(kMaxConfigDim))
      r.fail(key, "original_max_position_embeddings must be an integer <= " + std::to_string(kMaxConfigDim));
    s.originalMaxPositions = checkedFloatToInt64(orig);
    if (!(s.highFreqFactor > s.lowFreqFactor)) r.fail(key, "high_freq_factor must exceed low_freq_factor");
  }
  return s;
}

}  // namespace

const char* architectureName(Architecture a) {
  switch (a) {
    case Architecture::Llama:
      return "LlamaForCausalLM";
    case Architecture::Qwen2:
      return "Qwen2ForCausalLM";
    case Architecture::Qwen3:
      return "Qwen3ForCausalLM";
  }
  return "?";
}

ModelConfig parseConfig(const std::string& text, const std::string& file) {
  const json root = parseJsonText(text, file);
  if (!root.is_object()) throw Error(file + ": not a JSON object");
  Reader r(root, file);

  // Refuse what is known to change the math before anything else, so the
  // message names the real reason.
  if (r.has("quantization_config")) r.fail("quantization_config", "quantized checkpoints are not supported");

  ModelConfig c;
  c.file = file;
  c.arch = readArchitecture(r);
  c.hidden = r.integer("hidden_size", 1);
  c.intermediate = r.integer("intermediate_size", 1);
  c.layers = r.integer("num_hidden_layers", 1);
  c.heads = r.integer("num_attention_heads", 1);
  c.kvHeads = r.integer("num_key_value_heads", 1, c.heads);
  c.vocab = r.integer("vocab_size", 1);
  c.maxPositions = r.integer("max_position_embeddings", 1, 0);
  if (c.heads % c.kvHeads != 0)
    r.fail("num_key_value_heads",
           std::to_string(c.kvHeads) + " does not divide num_attention_heads " + std::to_string(c.heads));
  if (r.has("head_dim")) {
    c.headDim = r.integer("head_dim", 2);
  } else {
    if (c.hidden % c.heads != 0)
      r.fail("num_attention_heads", std::to_string(c.heads) + " does not divide hidden_size " +
                                        std::to_string(c.hidden) + " (and there is no head_dim)");
    c.headDim = c.hidden / c.heads;
  }
  if (c.headDim % 2 != 0) r.fail("head_dim", std::to_string(c.headDim) + " is odd (RoPE rotates pairs)");
  c.rmsEps = r.positive("rms_norm_eps", 1e-6);
  c.ropeTheta = r.positive("rope_theta", 10000);
  c.rope = readRopeScaling(r);
  c.tieEmbeddings = r.boolean("tie_word_embeddings", false);

  const std::string act = r.string("hidden_act", "silu");
  if (act != "silu") r.fail("hidden_act", "'" + act + "' is not supported (silu only)");
  r.requireBool("mlp_bias", false, "true is not supported (MLP projections without bias only)");
  r.requireBool("use_sliding_window", false, "true is not supported (full attention only)");
  r.requireBool("rope_interleaved", false, "true is not supported (rotate-half RoPE only)");
  if (r.has("partial_rotary_factor") && r.positive("partial_rotary_factor", 1) != 1.0)
    r.fail("partial_rotary_factor", "only 1.0 is supported (RoPE over the whole head)");
  if (r.has("layer_types")) {
    const json& lt = r.at("layer_types");
    if (!lt.is_array()) r.fail("layer_types", "is not a list");
    for (const json& t : lt)
      if (t != "full_attention") r.fail("layer_types", t.dump() + " is not supported (full_attention only)");
  }
  const bool attentionBias = r.boolean("attention_bias", false);
  switch (c.arch) {
    case Architecture::Qwen2:
      // Qwen2 always has q/k/v biases and none on o_proj; its code ignores
      // attention_bias, so a true there is a config that disagrees with it.
      if (attentionBias)
        r.fail("attention_bias", "true is not a Qwen2 setting (q/k/v always have biases, o_proj none)");
      c.qkvBias = true;
      break;
    case Architecture::Qwen3:
      c.qkNorm = true;
      c.qkvBias = c.outputBias = attentionBias;
      break;
    case Architecture::Llama:
      c.qkvBias = c.outputBias = attentionBias;
      break;
  }

  static const std::set<std::string> kRead = {"architectures",
                                              "model_type",
                                              "hidden_size",
                                              "intermediate_size",
                                              "num_hidden_layers",
                                              "num_attention_heads",
                                              "num_key_value_heads",
                                              "vocab_size",
                                              "max_position_embeddings",
                                              "head_dim",
                                              "rms_norm_eps",
                                              "rope_theta",
                                              "rope_scaling",
                                              "tie_word_embeddings",
                                              "hidden_act",
                                              "mlp_bias",
                                              "use_sliding_window",
                                              "rope_interleaved",
                                              "partial_rotary_factor",
                                              "layer_types",
                                              "attention_bias",
                                              "quantization_config"};
  for (const auto& [k, v] : root.items())
    if (!kRead.count(k) && !ignoredKeys().count(k))
      throw Error(file + ": unknown field '" + k +
                  "' (mgc cannot tell whether it changes the model; docs/llm.md lists the fields it reads)");
  return c;
}

ModelConfig readConfig(const std::string& dir) {
  const std::string path = dir + "/config.json";
  return parseConfig(readTextFile(path), path);
}

}  // namespace mgc::hf
