// PCRE2 behind tokenizer.json's patterns (regex.h).
#define PCRE2_CODE_UNIT_WIDTH 8
#include "compiler/tokenizer/regex.h"

#include <pcre2.h>

#include "compiler/tokenizer/utf8.h"
#include "ir/types.h"

namespace mgc::tok {

namespace {

// Backtracking steps per match: real patterns need a few per character; a
// pattern built to explode stops here with an error instead of hanging.
constexpr uint32_t kMatchLimit = 1000000;
constexpr uint32_t kDepthLimit = 10000;

std::string pcreMessage(int code) {
  PCRE2_UCHAR buf[256];
  if (pcre2_get_error_message(code, buf, sizeof buf) < 0) return "error " + std::to_string(code);
  return reinterpret_cast<const char*>(buf);
}

}  // namespace

struct Regex::Impl {
  pcre2_code* code = nullptr;
  pcre2_match_context* context = nullptr;
  std::string where, pattern;
  ~Impl() {
    pcre2_match_context_free(context);
    pcre2_code_free(code);
  }
};

Regex::Regex(const std::string& pattern, const std::string& where) : impl_(new Impl) {
  impl_->where = where;
  impl_->pattern = pattern;
  int err = 0;
  PCRE2_SIZE offset = 0;
  impl_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP, &err,
                              &offset, nullptr);
  if (!impl_->code)
    throw Error(where + ": regex '" + pattern + "' does not compile: " + pcreMessage(err) + " at offset " +
                std::to_string(offset));
  // JIT is only a speed-up: without it (an unsupported CPU) the interpreter
  // gives the same matches.
  pcre2_jit_compile(impl_->code, PCRE2_JIT_COMPLETE);
  impl_->context = pcre2_match_context_create(nullptr);
  pcre2_set_match_limit(impl_->context, kMatchLimit);
  pcre2_set_depth_limit(impl_->context, kDepthLimit);
}

Regex::~Regex() = default;

std::vector<std::pair<size_t, size_t>> Regex::findAll(const std::string& text) const {
  std::vector<std::pair<size_t, size_t>> out;
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(impl_->code, nullptr);
  const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t at = 0;
  while (at <= text.size()) {
    const int rc = pcre2_match(impl_->code, subject, text.size(), at, PCRE2_NO_UTF_CHECK, md, impl_->context);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      pcre2_match_data_free(md);
      throw Error(impl_->where + ": regex '" + impl_->pattern + "' failed on the input: " + pcreMessage(rc));
    }
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    const size_t begin = ov[0], end = ov[1];
    out.emplace_back(begin, end);
    if (end > begin) {
      at = end;
    } else if (end >= text.size()) {
      break;
    } else {
      size_t len;
      codePointAt(text, end, &len);
      at = end + len;
    }
  }
  pcre2_match_data_free(md);
  return out;
}

}  // namespace mgc::tok
