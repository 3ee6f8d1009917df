// Loading libmgc_sentencepiece.so (sentencepiece_library.h).
#include "compiler/tokenizer/sentencepiece_library.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <vector>

#include "ir/types.h"

namespace mgc::tok {

namespace {

const char kLibraryName[] = "libmgc_sentencepiece.so";

// The executable's folder, or "" when /proc/self/exe cannot be read.
std::string executableDir() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  const std::string path(buf, size_t(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

// Where the library may be, in order: an installed mgc's (CMake's
// MGC_SENTENCEPIECE_INSTALL_REL, relative to bin/), next to the executable
// (build/mgc), then the build folder's (any test binary of that build).
std::vector<std::string> candidates() {
  std::vector<std::string> r;
  if (std::string dir = executableDir(); !dir.empty()) {
    r.push_back(dir + "/" + MGC_SENTENCEPIECE_INSTALL_REL);
    r.push_back(dir + "/" + kLibraryName);
  }
  if (std::find(r.begin(), r.end(), MGC_SENTENCEPIECE_BUILD_PATH) == r.end()) r.push_back(MGC_SENTENCEPIECE_BUILD_PATH);
  return r;
}

template <typename F>
bool bind(void* handle, const char* symbol, F* out) {
  *out = reinterpret_cast<F>(::dlsym(handle, symbol));
  return *out != nullptr;
}

struct Loaded {
  SentencePieceApi api{};
  std::string error;  // non-empty: not loaded, and why
};

Loaded loadLibrary() {
  Loaded r;
  void* handle = nullptr;
  std::string tried;
  for (const std::string& path : candidates()) {
    if (::access(path.c_str(), R_OK) != 0) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    // A new namespace: the library and its libsentencepiece.so.0 bind to
    // their own protobuf, never to the process's libprotobuf.
    handle = ::dlmopen(LM_ID_NEWLM, path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* e = ::dlerror();
      r.error = std::string("cannot load ") + path + ": " + (e ? e : "dlmopen failed") +
                " (is Debian's libsentencepiece0 installed? tools/setup.sh installs it)";
      return r;
    }
    break;
  }
  if (!handle) {
    r.error =
        std::string("mgc's SentencePiece library ") + kLibraryName + " is not installed (looked for " + tried + ")";
    return r;
  }
  int (*abi)() = nullptr;
  SentencePieceApi& a = r.api;
  if (!bind(handle, "mgc_spm_abi_version", &abi) || abi() != MGC_SPM_ABI_VERSION ||
      !bind(handle, "mgc_spm_load", &a.load) || !bind(handle, "mgc_spm_free", &a.free) ||
      !bind(handle, "mgc_spm_piece_count", &a.pieceCount) || !bind(handle, "mgc_spm_bos_id", &a.bosId) ||
      !bind(handle, "mgc_spm_piece", &a.piece) || !bind(handle, "mgc_spm_piece_kind", &a.pieceKind) ||
      !bind(handle, "mgc_spm_encode", &a.encode) || !bind(handle, "mgc_spm_decode", &a.decode))
    r.error = std::string(kLibraryName) + " is not the version this mgc was built with (rebuild and reinstall)";
  // The handle stays open for the life of the process (the API points into it).
  return r;
}

}  // namespace

const SentencePieceApi& sentencePieceApi(const std::string& name) {
  static const Loaded loaded = loadLibrary();  // thread-safe, once
  if (!loaded.error.empty()) throw Error(name + ": " + loaded.error);
  return loaded.api;
}

}  // namespace mgc::tok
