// The JSON files of a checkpoint folder (config.json,
// model.safetensors.index.json) as nlohmann::json, read as untrusted input:
// a size cap, a nesting cap, and errors that name the file.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace mgc::hf {

constexpr size_t kMaxJsonBytes = size_t(64) << 20;  // an index of ~1M tensors
constexpr int kMaxJsonDepth = 16;

// Parses `text`; throws mgc::Error "<file>: not valid JSON: ..." on bad
// syntax or nesting deeper than kMaxJsonDepth.
nlohmann::json parseJsonText(const std::string& text, const std::string& file);

// The whole file (at most kMaxJsonBytes); throws mgc::Error naming `path`.
std::string readTextFile(const std::string& path);

}  // namespace mgc::hf
