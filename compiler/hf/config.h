// config.json of a Hugging Face checkpoint folder, for the Llama family
// (docs/llm.md): LlamaForCausalLM (Llama 2/3, SmolLM2), Qwen2ForCausalLM,
// Qwen3ForCausalLM.
//
// The file is untrusted and the model it describes must be the model mgc
// builds, so the parser is strict: every key is either one that mgc reads
// (and checks), one known not to change the forward pass (token ids,
// training knobs, bookkeeping), or an error naming the file and the key. A
// supported key with a value mgc does not implement (hidden_act "gelu",
// rope_scaling type "yarn", use_sliding_window true, ...) is an error too.
#pragma once

#include <cstdint>
#include <string>

namespace mgc::hf {

enum class Architecture { Llama, Qwen2, Qwen3 };
const char* architectureName(Architecture a);  // "LlamaForCausalLM", ...

// RoPE frequency scaling as transformers' ROPE_INIT_FUNCTIONS define it.
struct RopeScaling {
  enum class Kind { None, Linear, Llama3 } kind = Kind::None;
  double factor = 1;                             // linear: positions / factor; llama3: long wavelengths / factor
  double lowFreqFactor = 1, highFreqFactor = 4;  // llama3
  int64_t originalMaxPositions = 8192;           // llama3
};

struct ModelConfig {
  std::string file;  // the config.json path, for messages
  Architecture arch = Architecture::Llama;
  int64_t hidden = 0;        // hidden_size
  int64_t intermediate = 0;  // intermediate_size (SwiGLU width)
  int64_t layers = 0;        // num_hidden_layers
  int64_t heads = 0;         // num_attention_heads
  int64_t kvHeads = 0;       // num_key_value_heads (GQA; = heads when absent)
  int64_t headDim = 0;       // head_dim (= hidden / heads when absent)
  int64_t vocab = 0;         // vocab_size
  int64_t maxPositions = 0;  // max_position_embeddings (0: not given)
  double rmsEps = 1e-6;      // rms_norm_eps
  double ropeTheta = 10000;  // rope_theta
  RopeScaling rope;
  bool tieEmbeddings = false;  // tie_word_embeddings: lm_head = embed_tokens
  bool qkvBias = false;        // biases on q/k/v projections (Qwen2; attention_bias)
  bool outputBias = false;     // bias on o_proj (attention_bias of Llama/Qwen3)
  bool qkNorm = false;         // RMSNorm of each head of q and k (Qwen3)
};

// Largest dimension / count the parser accepts (a lie about sizes is caught
// later against the tensors; this bounds arithmetic on the numbers).
constexpr int64_t kMaxConfigDim = int64_t(1) << 24;

// Parses the text of a config.json; `file` names it in errors
// ("<file>: field 'hidden_act': \"gelu\" is not supported (silu only)").
// Throws mgc::Error, never anything else.
ModelConfig parseConfig(const std::string& text, const std::string& file);

// Reads and parses `<dir>/config.json`.
ModelConfig readConfig(const std::string& dir);

}  // namespace mgc::hf
