// The tensors of a checkpoint folder: model.safetensors, or the shards that
// model.safetensors.index.json names. Only headers are read when the folder
// is opened; each tensor's bytes are read when the graph builder asks for
// it, straight into the constant that holds it (safetensors.h, "files too
// large to read whole"), widened to f32 from F32, F16 or BF16.
//
// The checkpoint keeps count of what was taken: a tensor the model never
// asked for means config.json and the weights disagree (a bias the config
// does not declare, a layer more than num_hidden_layers), which is an error,
// not something to drop silently (unusedTensors()).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "formats/safetensors.h"
#include "ir/types.h"

namespace mgc::hf {

class Checkpoint {
 public:
  // Reads the headers of `dir`'s weight files; throws mgc::Error naming the
  // file on a missing file, a bad header, a tensor in two shards, or an
  // index entry its shard does not hold.
  explicit Checkpoint(const std::string& dir);

  bool has(const std::string& name) const { return tensors_.count(name) != 0; }
  // The tensor as f32, which must have `shape` (what config.json implies);
  // errors name the file, the tensor and both shapes or the dtype.
  HostTensor take(const std::string& name, const Shape& shape);
  // A linear layer's weight, stored [out, in] as in PyTorch, returned
  // transposed to [in, out] so that y = x · w is a plain MatMul.
  HostTensor takeTransposed(const std::string& name, int64_t out, int64_t in);

  // Tensors never taken, other than buffers that carry no parameters
  // (rotary_emb.inv_freq, which mgc recomputes from config.json).
  std::vector<std::string> unusedTensors() const;
  // "<dir>/model.safetensors" or "<dir>/model.safetensors.index.json".
  const std::string& source() const { return source_; }

 private:
  struct Shard {
    std::string path;
    safetensors::Header header;
  };
  struct Entry {
    size_t shard;
    const safetensors::TensorInfo* info;
  };
  std::string source_;
  std::vector<Shard> shards_;
  std::map<std::string, Entry> tensors_;
  std::set<std::string> taken_;

  size_t addShard(const std::string& path);
};

// A 2-D f32 tensor transposed.
HostTensor transposed(const HostTensor& w);

}  // namespace mgc::hf
