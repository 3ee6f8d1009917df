// Token id lists (token_ids.h).
#include "compiler/cli/token_ids.h"

#include <sstream>

namespace mgc {

bool parseIds(const std::string& text, std::vector<int64_t>* ids) {
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty() || item.size() > 18 || item.find_first_not_of("0123456789") != std::string::npos) return false;
    ids->push_back(std::stoll(item));
  }
  return !ids->empty();
}

std::string joinIds(const std::vector<int64_t>& ids) {
  std::string r;
  for (size_t i = 0; i < ids.size(); ++i) r += (i ? "," : "") + std::to_string(ids[i]);
  return r;
}

}  // namespace mgc
