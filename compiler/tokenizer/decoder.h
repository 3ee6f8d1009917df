// tokenizer.json "decoder": token strings → text. Supported: ByteLevel,
// Replace, ByteFallback, Fuse, Strip, Metaspace, Sequence, null (tokens
// joined by spaces, as tokenizers does). Each works on the list of token
// strings as the tokenizers crate's decode_chain does; the results are
// concatenated.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compiler/tokenizer/json_fields.h"

namespace mgc::tok {

using Decoder = std::function<void(std::vector<std::string>&)>;

Decoder makeDecoder(const Json& j, const std::string& where);

}  // namespace mgc::tok
