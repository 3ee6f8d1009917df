// Checkpoint folder → the fixed-length forward graph (import.h).
#include "compiler/hf/import.h"

#include <sys/stat.h>

#include "compiler/hf/checkpoint.h"
#include "compiler/hf/config.h"
#include "compiler/hf/llama.h"
#include "ir/builder.h"

namespace mgc::hf {

bool isCheckpointDir(const std::string& dir) {
  struct stat st {};
  return ::stat((dir + "/config.json").c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

Graph importCheckpoint(const std::string& dir, int64_t seqLen, WeightPacking linear) {
  if (seqLen == 0) seqLen = kDefaultSeqLen;
  if (seqLen < 1 || seqLen > kMaxSeqLen)
    throw Error(dir + ": sequence length " + std::to_string(seqLen) + " is outside [1, " + std::to_string(kMaxSeqLen) +
                "]");
  const ModelConfig config = readConfig(dir);
  Checkpoint weights(dir);

  GraphBuilder b;
  b.g.name = "main";
  ChunkInputs in;
  in.inputIds = b.g.addInput("input_ids", TensorType{DType::I64, {1, seqLen}});
  HostTensor positions(TensorType{DType::I64, {seqLen}});
  for (int64_t t = 0; t < seqLen; ++t) positions.as<int64_t>()[t] = t;
  in.positions = b.addConstant("positions", std::move(positions));
  in.mask = b.causalMask("mask", in.positions, in.positions, DType::F32);

  LlamaGraph model(config, weights, b, seqLen, nullptr, linear);
  ChunkOnlyKv kv;
  b.g.outputs.push_back(model.forward(in, kv, "logits"));

  requireAllTensorsUsed(weights, config);
  return std::move(b.g);
}

void requireAllTensorsUsed(const Checkpoint& weights, const ModelConfig& config) {
  const std::vector<std::string> unused = weights.unusedTensors();
  if (unused.empty()) return;
  std::string list;
  for (size_t k = 0; k < unused.size() && k < 5; ++k) list += (k ? ", " : "") + unused[k];
  if (unused.size() > 5) list += ", ... (" + std::to_string(unused.size()) + " in all)";
  throw Error(weights.source() + ": tensors that " + config.file + " (" + architectureName(config.arch) +
              ") does not use: " + list + " (does the config miss a field, e.g. attention_bias or a layer?)");
}

}  // namespace mgc::hf
