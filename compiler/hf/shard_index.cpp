// model.safetensors.index.json → tensor → shard map (shard_index.h).
#include "compiler/hf/shard_index.h"

#include "compiler/hf/json_text.h"
#include "ir/types.h"

namespace mgc::hf {

namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A plain file name in the folder: no directory part, no hidden-file
// tricks, no control characters, a .safetensors file.
bool isPlainShardName(const std::string& s) {
  if (s.empty() || s.size() > 255 || s[0] == '.' || !endsWith(s, ".safetensors")) return false;
  for (char c : s)
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20) return false;
  return true;
}

}  // namespace

std::map<std::string, std::string> parseShardIndex(const std::string& text, const std::string& file) {
  const nlohmann::json root = parseJsonText(text, file);
  if (!root.is_object()) throw Error(file + ": not a JSON object");
  for (const auto& [k, v] : root.items())
    if (k != "metadata" && k != "weight_map") throw Error(file + ": unknown field '" + k + "'");
  auto wm = root.find("weight_map");
  if (wm == root.end() || !wm->is_object() || wm->empty())
    throw Error(file + ": field 'weight_map' is missing or not a non-empty object");
  std::map<std::string, std::string> out;
  for (const auto& [tensor, shard] : wm->items()) {
    if (!shard.is_string()) throw Error(file + ": weight_map '" + tensor + "': shard is not a string");
    const std::string name = shard.get<std::string>();
    if (!isPlainShardName(name))
      throw Error(file + ": weight_map '" + tensor + "': '" + name +
                  "' is not a .safetensors file name inside the checkpoint folder");
    out[tensor] = name;
  }
  return out;
}

}  // namespace mgc::hf
