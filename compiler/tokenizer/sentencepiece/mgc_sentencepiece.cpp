// libsentencepiece behind a C ABI (mgc_sentencepiece.h). Every entry point
// catches everything: no exception may unwind into the caller's namespace.
#include "compiler/tokenizer/sentencepiece/mgc_sentencepiece.h"

#include <sentencepiece_processor.h>

#include <climits>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

struct mgc_spm {
  sentencepiece::SentencePieceProcessor processor;
};

namespace {

void setError(char* error, size_t size, const std::string& message) {
  if (error && size) std::snprintf(error, size, "%s", message.c_str());
}

// f() with every exception turned into the error text and `failed`.
template <typename R, typename F>
R guarded(char* error, size_t errorSize, R failed, F f) {
  try {
    return f();
  } catch (const std::exception& e) {
    setError(error, errorSize, e.what());
  } catch (...) {
    setError(error, errorSize, "unknown error");
  }
  return failed;
}

// 0, or 1 with the status's text in `error`.
int statusCode(const sentencepiece::util::Status& s, char* error, size_t errorSize) {
  if (s.ok()) return 0;
  setError(error, errorSize, s.ToString());
  return 1;
}

}  // namespace

extern "C" {

int mgc_spm_abi_version(void) { return MGC_SPM_ABI_VERSION; }

mgc_spm* mgc_spm_load(const void* data, size_t size, char* error, size_t error_size) {
  return guarded(error, error_size, static_cast<mgc_spm*>(nullptr), [&]() -> mgc_spm* {
    if (size > size_t(INT_MAX)) {
      setError(error, error_size, "larger than 2 GiB");
      return nullptr;
    }
    auto m = std::make_unique<mgc_spm>();
    const sentencepiece::util::Status s =
        m->processor.LoadFromSerializedProto(absl::string_view(static_cast<const char*>(data), size));
    return statusCode(s, error, error_size) == 0 ? m.release() : nullptr;
  });
}

void mgc_spm_free(mgc_spm* m) { delete m; }

int32_t mgc_spm_piece_count(const mgc_spm* m) { return m->processor.GetPieceSize(); }

int32_t mgc_spm_bos_id(const mgc_spm* m) { return m->processor.bos_id(); }

const char* mgc_spm_piece(const mgc_spm* m, int32_t id, size_t* size) {
  const std::string& p = m->processor.IdToPiece(id);
  *size = p.size();
  return p.data();
}

uint32_t mgc_spm_piece_kind(const mgc_spm* m, int32_t id) {
  const sentencepiece::SentencePieceProcessor& p = m->processor;
  return (p.IsControl(id) ? MGC_SPM_CONTROL : 0) | (p.IsUnknown(id) ? MGC_SPM_UNKNOWN : 0) |
         (p.IsByte(id) ? MGC_SPM_BYTE : 0) | (p.IsUnused(id) ? MGC_SPM_UNUSED : 0);
}

int mgc_spm_encode(const mgc_spm* m, const char* text, size_t size, mgc_spm_ids_sink sink, void* ctx, char* error,
                   size_t error_size) {
  return guarded(error, error_size, 1, [&] {
    std::vector<int> ids;
    if (statusCode(m->processor.Encode(absl::string_view(text, size), &ids), error, error_size)) return 1;
    static_assert(sizeof(int) == sizeof(int32_t), "ids cross as int32_t");
    sink(ctx, reinterpret_cast<const int32_t*>(ids.data()), ids.size());
    return 0;
  });
}

int mgc_spm_decode(const mgc_spm* m, const int32_t* ids, size_t count, mgc_spm_text_sink sink, void* ctx, char* error,
                   size_t error_size) {
  return guarded(error, error_size, 1, [&] {
    const std::vector<int> in(ids, ids + count);
    std::string text;
    if (statusCode(m->processor.Decode(in, &text), error, error_size)) return 1;
    sink(ctx, text.data(), text.size());
    return 0;
  });
}

}  // extern "C"
