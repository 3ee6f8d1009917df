// Untrusted JSON files of a checkpoint folder (json_text.h).
#include "compiler/hf/json_text.h"

#include "formats/file_read.h"
#include "ir/types.h"

namespace mgc::hf {

namespace {

// Thrown out of the parser callback; turned into an mgc::Error below.
struct TooDeep {};

}  // namespace

nlohmann::json parseJsonText(const std::string& text, const std::string& file) {
  if (text.size() > kMaxJsonBytes) throw Error(file + ": larger than " + std::to_string(kMaxJsonBytes >> 20) + " MiB");
  // The parser itself is iterative, but every consumer walks the tree;
  // capping the depth keeps a hostile file from costing anything.
  auto limitDepth = [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > kMaxJsonDepth) throw TooDeep{};
    return true;
  };
  try {
    return nlohmann::json::parse(text, limitDepth);
  } catch (const TooDeep&) {
    throw Error(file + ": not valid JSON: nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  } catch (const nlohmann::json::exception& e) {
    throw Error(file + ": not valid JSON: " + e.what());
  }
}

std::string readTextFile(const std::string& path) {
  std::string text, error;
  if (!fileio::readAll(path, &text, &error, kMaxJsonBytes)) throw Error(error);
  return text;
}

}  // namespace mgc::hf
