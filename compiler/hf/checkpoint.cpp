// Checkpoint folder weights (checkpoint.h).
#include "compiler/hf/checkpoint.h"

#include <sys/stat.h>

#include <algorithm>

#include "compiler/hf/json_text.h"
#include "compiler/hf/shard_index.h"

namespace mgc::hf {

namespace {

bool isFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Checkpoint::Checkpoint(const std::string& dir) {
  const std::string single = dir + "/model.safetensors";
  const std::string index = dir + "/model.safetensors.index.json";
  // As transformers: a single file wins over an index.
  if (isFile(single)) {
    source_ = single;
    size_t s = addShard(single);
    for (const safetensors::TensorInfo& t : shards_[s].header.tensors) tensors_[t.name] = {s, &t};
    return;
  }
  if (!isFile(index))
    throw Error(dir + ": no model.safetensors or model.safetensors.index.json (only safetensors checkpoints are read)");
  source_ = index;
  const std::map<std::string, std::string> map = parseShardIndex(readTextFile(index), index);
  std::map<std::string, size_t> shardByName;
  for (const auto& [tensor, file] : map)
    if (!shardByName.count(file)) shardByName[file] = addShard(dir + "/" + file);
  // The shards are the truth; the index must agree with them.
  for (const Shard& sh : shards_) {
    for (const safetensors::TensorInfo& t : sh.header.tensors) {
      auto prev = tensors_.find(t.name);
      if (prev != tensors_.end())
        throw Error(sh.path + ": tensor '" + t.name + "' is also in " + shards_[prev->second.shard].path);
      tensors_[t.name] = {size_t(&sh - shards_.data()), &t};
    }
  }
  for (const auto& [tensor, file] : map) {
    auto it = tensors_.find(tensor);
    if (it == tensors_.end() || !endsWith(shards_[it->second.shard].path, "/" + file))
      throw Error(index + ": weight_map says tensor '" + tensor + "' is in " + file + ", which does not hold it");
  }
}

size_t Checkpoint::addShard(const std::string& path) {
  Shard s;
  s.path = path;
  std::string err;
  if (!safetensors::readHeaderFile(path, &s.header, &err)) throw Error(path + ": " + err);
  shards_.push_back(std::move(s));
  return shards_.size() - 1;
}

HostTensor Checkpoint::take(const std::string& name, const Shape& shape) {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) throw Error(source_ + ": tensor '" + name + "' is missing");
  const Shard& sh = shards_[it->second.shard];
  const safetensors::TensorInfo& t = *it->second.info;
  if (t.shape != shape)
    throw Error(sh.path + ": tensor '" + name + "' has shape " + shapeStr(t.shape) + ", config.json implies " +
                shapeStr(shape));
  if (t.dtype != "F32" && t.dtype != "F16" && t.dtype != "BF16")
    throw Error(sh.path + ": tensor '" + name + "' is " + t.dtype + " (F32, F16 and BF16 are read)");
  HostTensor h(TensorType{DType::F32, shape});
  std::string err;
  if (t.dtype == "F32") {
    if (!safetensors::readTensorData(sh.path, sh.header, t, h.data.data(), &err)) throw Error(sh.path + ": " + err);
  } else {
    std::vector<uint8_t> raw(size_t(t.end - t.begin));
    if (!safetensors::readTensorData(sh.path, sh.header, t, raw.data(), &err)) throw Error(sh.path + ": " + err);
    safetensors::floatsToF32(t.dtype, raw.data(), uint64_t(h.numel()), h.as<float>());
  }
  taken_.insert(name);
  return h;
}

HostTensor Checkpoint::takeTransposed(const std::string& name, int64_t out, int64_t in) {
  return transposed(take(name, {out, in}));
}

HostTensor transposed(const HostTensor& w) {
  const int64_t rows = w.type.shape.at(0), cols = w.type.shape.at(1);
  HostTensor t(TensorType{DType::F32, {cols, rows}});
  const float* src = w.as<float>();
  float* dst = t.as<float>();
  // In tiles, so that both sides stay in cache (an embedding table is
  // ~100 MB).
  constexpr int64_t kTile = 32;
  for (int64_t r0 = 0; r0 < rows; r0 += kTile)
    for (int64_t c0 = 0; c0 < cols; c0 += kTile)
      for (int64_t r = r0; r < std::min(rows, r0 + kTile); ++r)
        for (int64_t c = c0; c < std::min(cols, c0 + kTile); ++c) dst[c * rows + r] = src[r * cols + c];
  return t;
}

std::vector<std::string> Checkpoint::unusedTensors() const {
  std::vector<std::string> out;
  for (const auto& [name, e] : tensors_)
    if (!taken_.count(name) && !endsWith(name, ".rotary_emb.inv_freq")) out.push_back(name);
  return out;
}

}  // namespace mgc::hf
