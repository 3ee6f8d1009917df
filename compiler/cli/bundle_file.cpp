// Host-side bundle reading (bundle_file.h).
#include "compiler/cli/bundle_file.h"

#include <cstring>

#include "formats/bundle_layout.h"

namespace mgc {

// Structural checks only (no device limits): header, checksum, FlatBuffer.
const mgb::Bundle* openBundle(const std::vector<uint8_t>& file, const std::string& path, std::string* err) {
  if (file.size() < mgb::kHeaderSize) return *err = path + ": not a .mgb bundle (too small)", nullptr;
  mgb::Header h;
  std::memcpy(&h, file.data(), sizeof h);
  if (std::memcmp(h.magic, mgb::kMagic, 4) != 0) return *err = path + ": not a .mgb bundle (bad magic)", nullptr;
  if (h.version != mgb::kFormatVersion)
    return *err = path + ": bundle format version " + std::to_string(h.version) + " is not supported", nullptr;
  if (h.file_size != file.size()) return *err = path + ": truncated or padded bundle", nullptr;
  if (h.checksum != mgb::bundleChecksum(file.data(), file.size())) return *err = path + ": checksum mismatch (corrupted bundle)", nullptr;
  if (h.manifest_offset > file.size() || h.manifest_size > file.size() - h.manifest_offset)
    return *err = path + ": manifest outside the file", nullptr;
  flatbuffers::Verifier v(file.data() + h.manifest_offset, h.manifest_size);
  if (!mgb::VerifyBundleBuffer(v)) return *err = path + ": manifest failed verification", nullptr;
  return mgb::GetBundle(file.data() + h.manifest_offset);
}


}  // namespace mgc
