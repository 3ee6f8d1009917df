// The Llama-family decoder as IR (llama.h).
#include "compiler/hf/llama.h"

#include <cmath>
#include <cstring>
#include <optional>

#include "compiler/hf/rope.h"

namespace mgc::hf {

namespace {

std::string layerPrefix(int64_t layer) { return "model.layers." + std::to_string(layer); }

}  // namespace

LlamaGraph::LlamaGraph(const ModelConfig& config, Checkpoint& weights, GraphBuilder& builder, int64_t ropePositions,
                       const Graph* donor, WeightPacking linear)
    : c_(config), w_(weights), b_(builder), ropePositions_(ropePositions), donor_(donor), lw_(linear) {}

std::pair<ValueId, ValueId> LlamaGraph::ropeRows(ValueId positions) {
  // Built on first use, after q_proj's shape has been checked against the
  // file: head_dim is then backed by real bytes, and a config that lies
  // about it cannot make mgc allocate a huge table.
  if (cos_ == kNoValue) {
    cos_ = b_.addConstant(b_.freshName("rope.cos"), ropeTable(c_, ropePositions_, false));
    // The sine with its first half negated, for rotaryHalfSigned.
    HostTensor sin = ropeTable(c_, ropePositions_, true);
    const int64_t d = sin.type.shape.back();
    for (int64_t e = 0; e < sin.numel(); ++e)
      if (e % d < d / 2) sin.setF(e, -sin.getF(e));
    sin_ = b_.addConstant(b_.freshName("rope.sin_signed"), std::move(sin));
  }
  auto it = ropeRows_.find(positions);
  if (it != ropeRows_.end()) return it->second;
  // The chunk's rows of the tables, shared by every layer: [T, D].
  ValueId cos = b_.emit(Op::Gather, {cos_, positions}, {{"axis", int64_t(0)}}, "rope");
  ValueId sin = b_.emit(Op::Gather, {sin_, positions}, {{"axis", int64_t(0)}}, "rope");
  return ropeRows_[positions] = {cos, sin};
}

ValueId LlamaGraph::param(const std::string& name, const std::function<HostTensor()>& load) {
  auto it = params_.find(name);
  if (it != params_.end()) return it->second;
  ValueId shared = donor_ ? donor_->find(name) : kNoValue;
  ValueId v;
  if (shared != kNoValue && donor_->value(shared).isConstant()) {
    v = b_.g.addValue(name, donor_->type(shared));
    b_.g.value(v).constant = donor_->value(shared).constant;  // immutable: shared, not copied
  } else {
    // Straight into the graph, not through the builder's fold budget:
    // weights are the model, not folding by-products.
    v = b_.g.addConstant(name, load());
  }
  params_[name] = v;
  return v;
}

ValueId LlamaGraph::vector(const std::string& name, int64_t n) {
  return param(name, [&] { return w_.take(name, {n}); });
}

ValueId LlamaGraph::packedProduct(const std::string& weight, ValueId x, const std::function<HostTensor()>& rows,
                                  const std::string& node, const std::string& outName) {
  const WeightFormatInfo& info = weightFormatInfo(lw_.format);
  std::optional<QuantizedWeight> packed;  // both constants from one read of the weight
  auto pack = [&]() -> QuantizedWeight& {
    if (!packed) {
      HostTensor w = rows();
      const std::string problem = quantizeProblem(lw_.format, w.type.shape[1], lw_.group);
      if (!problem.empty()) throw Error(w_.source() + ": " + weight + ": --weights " + info.name + ": " + problem);
      packed = quantizeWeight(w, lw_.format, lw_.group);
    }
    return *packed;
  };
  std::vector<ValueId> in{x, param(weight + "." + info.name, [&] { return std::move(pack().words); })};
  if (info.scaled) in.push_back(param(weight + ".scales", [&] { return std::move(pack().scales); }));
  return b_.emit(Op::QMatMul, std::move(in), {{"format", int64_t(lw_.format)}, {"group", lw_.group}}, node, outName);
}

ValueId LlamaGraph::linear(const std::string& prefix, ValueId x, int64_t in, int64_t out, bool bias) {
  const std::string name = prefix + ".weight";
  ValueId y;
  if (lw_.format != WeightFormat::F32) {
    y = packedProduct(name, x, [&] { return w_.take(name, {out, in}); }, prefix);
  } else {
    ValueId w = param(name, [&] { return w_.takeTransposed(name, out, in); });
    y = b_.emit(Op::MatMul, {x, w}, {}, prefix);
  }
  if (bias) y = b_.emit(Op::Add, {y, vector(prefix + ".bias", out)}, {}, prefix);
  return y;
}

ValueId LlamaGraph::rmsNorm(const std::string& name, ValueId x, int64_t width) {
  const std::string node = name.substr(0, name.rfind('.'));  // "...input_layernorm"
  return b_.rmsNorm(node, x, vector(name, width), c_.rmsEps);
}

ValueId LlamaGraph::attention(int64_t layer, ValueId x, const ChunkInputs& in, KvSource& kv) {
  const std::string p = layerPrefix(layer) + ".self_attn";
  const int64_t T = b_.g.type(x).shape[1], D = c_.headDim, H = c_.heads, KV = c_.kvHeads, G = H / KV;
  ValueId q = linear(p + ".q_proj", x, c_.hidden, H * D, c_.qkvBias);
  ValueId k = linear(p + ".k_proj", x, c_.hidden, KV * D, c_.qkvBias);
  ValueId v = linear(p + ".v_proj", x, c_.hidden, KV * D, c_.qkvBias);
  q = b_.reshapeTo(p, q, {1, T, H, D});
  k = b_.reshapeTo(p, k, {1, T, KV, D});
  v = b_.reshapeTo(p, v, {1, T, KV, D});
  if (c_.qkNorm) {  // Qwen3: RMSNorm over each head, before RoPE
    q = rmsNorm(p + ".q_norm.weight", q, D);
    k = rmsNorm(p + ".k_norm.weight", k, D);
  }
  auto [cos, sin] = ropeRows(in.positions);
  const Attrs headsFirst{{"perm", std::vector<int64_t>{0, 2, 1, 3}}};
  q = b_.emit(Op::Transpose, {q}, headsFirst, p);  // [1, H, T, D]
  k = b_.emit(Op::Transpose, {k}, headsFirst, p);
  v = b_.emit(Op::Transpose, {v}, headsFirst, p);
  q = b_.rotaryHalfSigned(p + ".rope", q, cos, sin);
  k = b_.rotaryHalfSigned(p + ".rope", k, cos, sin);

  auto [keys, values] = kv.keysValues(b_, layer, k, v);
  const int64_t S = b_.g.type(keys).shape[2];
  // GQA as broadcasting: query heads [KV, G] against K/V heads [KV, 1], so
  // the G heads of a group read one K/V head (transformers' repeat_kv, with
  // head h using K/V head h / G), without copying K/V G times.
  ValueId q5 = b_.reshapeTo(p, q, {1, KV, G, T, D});
  ValueId k5 = b_.reshapeTo(p, keys, {1, KV, 1, S, D});
  ValueId v5 = b_.reshapeTo(p, values, {1, KV, 1, S, D});
  ValueId o = b_.attention(p, q5, k5, v5, in.mask, 1.0 / std::sqrt(double(D)));  // [1, KV, G, T, D]
  o = b_.reshapeTo(p, o, {1, H, T, D});
  o = b_.emit(Op::Transpose, {o}, headsFirst, p);  // [1, T, H, D]
  o = b_.reshapeTo(p, o, {1, T, H * D});
  return linear(p + ".o_proj", o, H * D, c_.hidden, c_.outputBias);
}

ValueId LlamaGraph::mlp(int64_t layer, ValueId x) {
  const std::string p = layerPrefix(layer) + ".mlp";
  ValueId gate = linear(p + ".gate_proj", x, c_.hidden, c_.intermediate, false);
  ValueId up = linear(p + ".up_proj", x, c_.hidden, c_.intermediate, false);
  ValueId silu = b_.emit(Op::Mul, {gate, b_.emit(Op::Sigmoid, {gate}, {}, p)}, {}, p);
  return linear(p + ".down_proj", b_.emit(Op::Mul, {silu, up}, {}, p), c_.intermediate, c_.hidden, false);
}

ValueId LlamaGraph::logits(ValueId h, const std::string& name) {
  const std::string embed = "model.embed_tokens.weight";
  if (!c_.tieEmbeddings && lw_.format != WeightFormat::F32) {
    const std::string head = "lm_head.weight";
    return packedProduct(head, h, [&] { return w_.take(head, {c_.vocab, c_.hidden}); }, "lm_head", name);
  }
  if (!c_.tieEmbeddings) {
    const std::string head = "lm_head.weight";
    ValueId w = param(head, [&] { return w_.takeTransposed(head, c_.vocab, c_.hidden); });
    return b_.emit(Op::MatMul, {h, w}, {}, "lm_head", name);
  }
  // Tied: lm_head is embed_tokens (already in the graph: forward() reads
  // it first). A checkpoint that also stores lm_head must store the same
  // matrix, or config.json is lying about the tie.
  auto tiedRows = [&]() -> HostTensor {
    const HostTensor& table = *b_.g.value(params_.at(embed)).constant;
    if (w_.has("lm_head.weight")) {
      HostTensor head = w_.take("lm_head.weight", {c_.vocab, c_.hidden});
      if (std::memcmp(head.data.data(), table.data.data(), head.data.size()) != 0)
        throw Error(w_.source() + ": tie_word_embeddings is true in " + c_.file +
                    " but lm_head.weight differs from " + embed);
    }
    return table;
  };
  // Packed: the embedding table stays f32 for the gather, lm_head gets
  // its own packed copy (read every token, unlike one embedding row).
  if (lw_.format != WeightFormat::F32) return packedProduct("lm_head.weight", h, tiedRows, "lm_head", name);
  ValueId w = param("lm_head.weight", [&] { return transposed(tiedRows()); });
  return b_.emit(Op::MatMul, {h, w}, {}, "lm_head", name);
}

ValueId LlamaGraph::forward(const ChunkInputs& in, KvSource& kv, const std::string& logitsName) {
  ValueId table =
      param("model.embed_tokens.weight", [&] { return w_.take("model.embed_tokens.weight", {c_.vocab, c_.hidden}); });
  ValueId h = b_.emit(Op::Gather, {table, in.inputIds}, {{"axis", int64_t(0)}}, "model.embed_tokens");
  for (int64_t l = 0; l < c_.layers; ++l) {
    const std::string p = layerPrefix(l);
    ValueId a = rmsNorm(p + ".input_layernorm.weight", h, c_.hidden);
    h = b_.emit(Op::Add, {h, attention(l, a, in, kv)}, {}, p);
    ValueId m = rmsNorm(p + ".post_attention_layernorm.weight", h, c_.hidden);
    h = b_.emit(Op::Add, {h, mlp(l, m)}, {}, p);
  }
  return logits(rmsNorm("model.norm.weight", h, c_.hidden), logitsName);
}

}  // namespace mgc::hf
