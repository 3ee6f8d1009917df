// Reading a whole file, the one way every reader does it (mgc's commands, the
// importers, the npy/safetensors readers, mgrt_model_load_file): the path is
// checked to be a regular file first, so a folder, a device or a pipe gets
// the same clear message from every command, and the file is read with one
// allocation of its size (no growth copies).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fileio {

// "" when `path` names a regular file; otherwise the message every reader
// gives: "PATH: is a folder, not a file", "PATH: is a character device, not
// a file", "PATH: cannot open file" (it does not exist), "PATH: cannot open
// file (Permission denied)".
std::string notAFile(const std::string& path);

// The whole regular file at `path` in *out; false with *error (a message
// that starts with the path) when it is not one or cannot be read.
// `maxBytes` bounds the size (0: no bound).
bool readAll(const std::string& path, std::vector<uint8_t>* out, std::string* error, uint64_t maxBytes = 0);
bool readAll(const std::string& path, std::string* out, std::string* error, uint64_t maxBytes = 0);

}  // namespace fileio
