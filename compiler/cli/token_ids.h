// Token ids on the command line: "1,5,9" in (--prompt-ids, --decode) and
// out (--print-ids, mgc tokenize).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mgc {

// "1,5,9" → {1, 5, 9} appended to *ids; false on anything else (empty
// items, signs, more than 18 digits).
bool parseIds(const std::string& text, std::vector<int64_t>* ids);

std::string joinIds(const std::vector<int64_t>& ids);

}  // namespace mgc
