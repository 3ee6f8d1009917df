// tokenizer.json "normalizer": NFC (Qwen2/3), Prepend and Replace in a
// Sequence (Llama 2 style sentencepiece BPE: "▁" before the text, spaces
// as "▁"), or null. Any other type is an error naming it.
#pragma once

#include <functional>
#include <string>

#include "compiler/tokenizer/json_fields.h"

namespace mgc::tok {

// Text → normalized text. An empty function means no normalizer.
using Normalizer = std::function<std::string(const std::string&)>;

Normalizer makeNormalizer(const Json& j, const std::string& where);

}  // namespace mgc::tok
