// The frontend rows (see frontends.h) and the choice between them.
#include "compiler/frontends.h"

#include <sys/stat.h>

#include <fstream>

#include "ir/parser.h"
#include "compiler/hf/import.h"
#include "compiler/onnx/import.h"
#include "formats/file_read.h"

namespace mgc {

namespace {

constexpr size_t kHeadBytes = 256;

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// ---- ONNX -------------------------------------------------------------------

// By content: a ModelProto whose first field is ir_version (field 1,
// varint: tag byte 0x08), which is how protobuf serializers, and so every
// ONNX exporter, write it. A model without ir_version is refused by the
// importer anyway.
SniffMatch sniffOnnx(const SniffInput& in) {
  if (in.isDirectory) return SniffMatch::No;
  if (endsWith(in.path, ".onnx")) return SniffMatch::ByName;
  return !in.head.empty() && uint8_t(in.head[0]) == 0x08 ? SniffMatch::ByContent : SniffMatch::No;
}

// --weights packs the linear layers of checkpoint folders only.
void requireF32Weights(const std::string& path, const FrontendOptions& opts) {
  if (opts.linear.format != WeightFormat::F32)
    throw Error(path + ": --weights " + weightFormatInfo(opts.linear.format).name +
                " is for Hugging Face checkpoint folders (packed linear layers); this model keeps its weights as stored");
}

Graph importOnnxRow(const std::string& path, const FrontendOptions& opts) {
  requireF32Weights(path, opts);
  ImportOptions io;
  io.keepParameters = opts.keepParameters;
  return importOnnx(path, io);
}

// ---- text IR ----------------------------------------------------------------

// By content: the first token after blank lines and `//` comments is
// `graph` (docs/ir.md).
SniffMatch sniffTextIr(const SniffInput& in) {
  if (in.isDirectory) return SniffMatch::No;
  if (endsWith(in.path, ".mgir")) return SniffMatch::ByName;
  const std::string& h = in.head;
  size_t at = 0;
  while (at < h.size()) {
    if (h[at] == ' ' || h[at] == '\t' || h[at] == '\r' || h[at] == '\n') {
      ++at;
    } else if (h.compare(at, 2, "//") == 0) {
      size_t eol = h.find('\n', at);
      if (eol == std::string::npos) return SniffMatch::No;  // a comment longer than the head: unsure
      at = eol + 1;
    } else {
      break;
    }
  }
  bool graph = h.compare(at, 5, "graph") == 0 && at + 5 < h.size() && (h[at + 5] == ' ' || h[at + 5] == '\t');
  return graph ? SniffMatch::ByContent : SniffMatch::No;
}

Graph importTextIr(const std::string& path, const FrontendOptions& opts) {
  requireF32Weights(path, opts);
  return parseGraphFile(path);
}

// ---- Hugging Face checkpoint folder -------------------------------------------

// By name: a folder holding config.json (the importer then reports a
// missing or unusable weight file).
SniffMatch sniffCheckpoint(const SniffInput& in) {
  return in.isDirectory && hf::isCheckpointDir(in.path) ? SniffMatch::ByName : SniffMatch::No;
}

Graph importCheckpointRow(const std::string& path, const FrontendOptions& opts) {
  return hf::importCheckpoint(path, opts.seqLen, opts.linear);
}

}  // namespace

const std::vector<Frontend>& frontends() {
  static const std::vector<Frontend> kRows = {
      {"onnx", "ONNX (.onnx, or a protobuf ModelProto)", sniffOnnx, importOnnxRow},
      {"mgir", "text IR (.mgir, or text starting with `graph`)", sniffTextIr, importTextIr},
      {"hf", "Hugging Face checkpoint folder (config.json + model.safetensors)", sniffCheckpoint, importCheckpointRow},
  };
  return kRows;
}

const Frontend& frontendFor(const std::string& path) {
  SniffInput in;
  in.path = path;
  struct stat st {};
  bool exists = ::stat(path.c_str(), &st) == 0;
  in.isDirectory = exists && S_ISDIR(st.st_mode);
  bool readable = false;
  if (exists && S_ISREG(st.st_mode)) {
    std::ifstream f(path, std::ios::binary);
    if (f) {
      readable = true;
      in.head.resize(kHeadBytes);
      f.read(&in.head[0], std::streamsize(kHeadBytes));
      in.head.resize(size_t(f.gcount()));
    }
  }
  const Frontend* best = nullptr;
  SniffMatch bestMatch = SniffMatch::No;
  for (const Frontend& f : frontends()) {
    SniffMatch m = f.sniff(in);
    if (int(m) > int(bestMatch)) best = &f, bestMatch = m;
  }
  // A name match is enough: the importer then reports the missing file.
  if (best && (bestMatch == SniffMatch::ByName || exists)) return *best;
  if (in.isDirectory)
    throw Error(path + ": is a folder without config.json (a folder must be a Hugging Face checkpoint: config.json + "
                       "model.safetensors)");
  if (std::string problem = fileio::notAFile(path); !problem.empty()) throw Error(problem);
  if (!readable) throw Error(path + ": cannot open file");
  std::string tried;
  for (const Frontend& f : frontends()) tried += std::string(tried.empty() ? "" : "; ") + f.formats;
  throw Error(path + ": unknown model format (tried " + tried + ")");
}

Graph importModel(const std::string& path, const FrontendOptions& opts) { return frontendFor(path).import(path, opts); }

}  // namespace mgc
