// model.safetensors.index.json of a sharded checkpoint:
//   {"metadata": {"total_size": N}, "weight_map": {"tensor": "shard file"}}
// Shard names are file names inside the checkpoint folder; anything that
// could point elsewhere (a '/', "..", an absolute path) is refused.
#pragma once

#include <map>
#include <string>

namespace mgc::hf {

// tensor name → shard file name. Throws mgc::Error naming `file` and the
// entry on bad JSON, a missing or empty weight_map, or a bad shard name.
std::map<std::string, std::string> parseShardIndex(const std::string& text, const std::string& file);

}  // namespace mgc::hf
