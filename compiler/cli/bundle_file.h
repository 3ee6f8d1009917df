// A .mgb file read on the host without a device (mgc inspect, mgc
// bench-decode): its structure checked (header, checksum, FlatBuffer), not
// the device limits libmgrt checks at load.
#pragma once

#include <string>
#include <vector>

#include "formats/mgb_generated.h"

namespace mgc {

// The manifest of `file`, or null with *err naming `path` and the reason.
const mgb::Bundle* openBundle(const std::vector<uint8_t>& file, const std::string& path, std::string* err);

}  // namespace mgc
