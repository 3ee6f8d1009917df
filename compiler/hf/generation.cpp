// The generation entry points over a KV cache (import.h): prefill (a chunk
// of tokens) and decode (one token), built by the same decoder (llama.h)
// with run-time positions and a KvSource that writes into state.
//
//   %pos   = add(%position, [0, 1, ..., T-1])               i64 [T]
//   %mask  = causal_mask(%pos, [0, 1, ..., maxSeq-1])        f32 [T, maxSeq], on the device
//   per layer:
//     %k' = state_write(%kv.L.k, %k, %position) {axis = 2}    the chunk's keys into the cache
//     update %kv.L.k = %k'                                     (in place: no copy)
//     attention(q, %k', %v', %mask)                            over the whole cache; the mask
//                                                               hides positions past each token
#include <cstdint>

#include "compiler/hf/checkpoint.h"
#include "compiler/hf/config.h"
#include "compiler/hf/import.h"
#include "compiler/hf/llama.h"
#include "ir/builder.h"

namespace mgc::hf {

namespace {

// Keys and values of every chunk so far, in state the entry points share.
class CacheKv : public KvSource {
 public:
  CacheKv(ValueId position, const ModelConfig& c, int64_t maxSeq) : position_(position), c_(c), maxSeq_(maxSeq) {}

  std::pair<ValueId, ValueId> keysValues(GraphBuilder& b, int64_t layer, ValueId k, ValueId v) override {
    const std::string base = "kv." + std::to_string(layer);
    return {write(b, base + ".k", k), write(b, base + ".v", v)};
  }

 private:
  ValueId write(GraphBuilder& b, const std::string& name, ValueId chunk) {
    const Shape shape{1, c_.kvHeads, maxSeq_, c_.headDim};
    checkedNumel(shape, name);  // kvHeads and headDim are backed by k_proj's bytes by now
    ValueId cache = b.g.addZeroState(name, TensorType{DType::F32, shape});
    ValueId next = b.emit(Op::StateWrite, {cache, chunk, position_}, {{"axis", int64_t(2)}}, name);
    b.g.stateUpdates.push_back({cache, next});
    return next;
  }

  ValueId position_;
  const ModelConfig& c_;
  int64_t maxSeq_;
};

HostTensor iota(int64_t n) {
  HostTensor t(TensorType{DType::I64, {n}});
  for (int64_t i = 0; i < n; ++i) t.as<int64_t>()[i] = i;
  return t;
}

Graph buildEntry(const std::string& name, const ModelConfig& config, Checkpoint& weights, int64_t tokens,
                 int64_t maxSeq, const Graph* donor, WeightPacking linear) {
  GraphBuilder b;
  b.g.name = name;
  ChunkInputs in;
  in.inputIds = b.g.addInput("input_ids", TensorType{DType::I64, {1, tokens}});
  ValueId position = b.g.addInput("position", TensorType{DType::I64, {1}});
  in.positions = b.emit(Op::Add, {position, b.addConstant("offsets", iota(tokens))}, {}, "positions");
  in.mask = b.causalMask("mask", in.positions, b.addConstant("cache_positions", iota(maxSeq)), DType::F32);
  LlamaGraph model(config, weights, b, maxSeq, donor, linear);
  CacheKv kv(position, config, maxSeq);
  b.g.outputs.push_back(model.forward(in, kv, "logits"));
  return std::move(b.g);
}

}  // namespace

GenerationGraphs importCheckpointForGeneration(const std::string& dir, int64_t maxSeq, int64_t chunk,
                                              WeightPacking linear) {
  if (maxSeq < 1 || maxSeq > kMaxSeqLen)
    throw Error(dir + ": --max-seq " + std::to_string(maxSeq) + " is outside [1, " + std::to_string(kMaxSeqLen) + "]");
  if (chunk < 1 || chunk > maxSeq || maxSeq % chunk != 0)
    throw Error(dir + ": the prefill chunk (" + std::to_string(chunk) + " tokens) must divide --max-seq (" +
                std::to_string(maxSeq) + ")");
  const ModelConfig config = readConfig(dir);
  Checkpoint weights(dir);
  GenerationGraphs r;
  r.prefill = buildEntry("prefill", config, weights, chunk, maxSeq, nullptr, linear);
  r.decode = buildEntry("decode", config, weights, 1, maxSeq, &r.prefill, linear);
  requireAllTensorsUsed(weights, config);
  return r;
}

}  // namespace mgc::hf
