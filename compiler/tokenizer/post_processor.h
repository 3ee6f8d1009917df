// tokenizer.json "post_processor": the special tokens encode adds when asked
// to (add_special_tokens). TemplateProcessing's "single" template (BOS for
// Llama 2 / Llama 3.1), ByteLevel (offsets only: no ids change), Sequence,
// null. Others (RobertaProcessing, BertProcessing) are errors.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/tokenizer/json_fields.h"

namespace mgc::tok {

// The encoded ids → the ids with the template's special tokens.
using PostProcessor = std::function<std::vector<int32_t>(const std::vector<int32_t>&)>;

// Special-token ids must lie in [0, vocabSize) (the model's and the added
// tokens' ids).
PostProcessor makePostProcessor(const Json& j, const std::string& where, int64_t vocabSize);

}  // namespace mgc::tok
