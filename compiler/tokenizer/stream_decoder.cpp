// The stream decoder (stream_decoder.h).
#include "compiler/tokenizer/stream_decoder.h"

namespace mgc::tok {

// tokenizers' step_decode_stream: decode the window ids_ with and without
// the new id; the difference is new text once it does not end in U+FFFD.
std::string StreamDecoder::push(int64_t id) {
  ids_.push_back(id);
  const std::string text = t_.decode(ids_, skip_);
  if (text.size() <= prefix_.size() || (text.size() >= 3 && text.compare(text.size() - 3, 3, "\xEF\xBF\xBD") == 0))
    return "";
  // A decoder may rewrite earlier text once more tokens follow; then the
  // window's text does not extend what was printed, and the new text is
  // what follows the common part.
  size_t common = 0;
  while (common < prefix_.size() && prefix_[common] == text[common]) ++common;
  std::string fresh = text.substr(common);
  // The next window starts at the ids of this step's context. One departure
  // from tokenizers: a window whose text would be empty (a lone "▁", a
  // skipped special token) is not taken, the whole one is kept instead.
  // sentencepiece drops the leading space of every piece while its output
  // is still empty, so after such a window "▁and" would lose the space that
  // a full decode keeps.
  const std::vector<int64_t> window(ids_.begin() + long(prefixIndex_), ids_.end());
  std::string windowText = t_.decode(window, skip_);
  if (windowText.empty()) {
    prefix_ = text;
    prefixIndex_ = 0;
  } else {
    prefixIndex_ = ids_.size() - prefixIndex_;
    ids_ = window;
    prefix_ = std::move(windowText);
  }
  return fresh;
}

}  // namespace mgc::tok
