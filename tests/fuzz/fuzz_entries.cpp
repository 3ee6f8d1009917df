#include "tests/fuzz/fuzz_entries.h"

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/hf/config.h"
#include "compiler/hf/shard_index.h"
#include "compiler/onnx/import.h"
#include "compiler/tokenizer/sentencepiece_model.h"
#include "compiler/tokenizer/stream_decoder.h"
#include "compiler/tokenizer/tokenizer.h"
#include "compiler/tokenizer/utf8.h"
#include "formats/bundle_layout.h"
#include "formats/idx.h"
#include "formats/npy.h"
#include "formats/safetensors.h"
#include "ir/parser.h"
#include "ir/types.h"
#include "runtime/core/verify_fuzz_entry.h"
#include "runtime/include/mgrt.h"
#include "runtime/vulkan/pipeline_cache_file.h"

namespace mgc_fuzz {
namespace {

// A reader broke its contract: abort so that libFuzzer (and the
// regression test, through the exit status) sees a crash.
[[noreturn]] void contractBroken(const char* what) {
  std::fprintf(stderr, "fuzz contract broken: %s\n", what);
  std::abort();
}

void checkStatus(mgrt_status s) {
  if (s != MGRT_OK && s != MGRT_INVALID_BUNDLE && s != MGRT_UNSUPPORTED && s != MGRT_OUT_OF_MEMORY)
    contractBroken("dryRunLoad returned a status a load must not return");
  if (s != MGRT_OK && std::strlen(mgrt_last_error()) == 0) contractBroken("refusal without a message");
}

}  // namespace

void bundle(const uint8_t* data, size_t size) {
  for (int which = 0; which < 2; ++which)
    checkStatus(mgrt::dryRunLoad(data, size, mgrt::fuzzDeviceLimits(which)));
  // Random bytes almost never carry a valid checksum, so also try the input
  // with its header's file size and checksum repaired: that is what lets
  // mutations reach the FlatBuffers and semantic checks.
  if (size < mgb::kHeaderSize) return;
  std::vector<uint8_t> fixed(data, data + size);
  mgb::Header h;
  std::memcpy(&h, fixed.data(), sizeof h);
  h.file_size = size;
  h.checksum = 0;
  std::memcpy(fixed.data(), &h, sizeof h);
  h.checksum = mgb::bundleChecksum(fixed.data(), fixed.size());
  std::memcpy(fixed.data(), &h, sizeof h);
  for (int which = 0; which < 2; ++which)
    checkStatus(mgrt::dryRunLoad(fixed.data(), fixed.size(), mgrt::fuzzDeviceLimits(which)));
}

void onnx(const uint8_t* data, size_t size) {
  try {
    mgc::Graph g = mgc::importOnnxBytes(data, size, "fuzz.onnx");
    (void)g;
  } catch (const mgc::Error& e) {
    if (std::strlen(e.what()) == 0) contractBroken("importer error without a message");
  }
}

void ir(const uint8_t* data, size_t size) {
  try {
    mgc::Graph g = mgc::parseGraph(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.mgir");
    (void)g;
  } catch (const mgc::Error& e) {
    if (std::strlen(e.what()) == 0) contractBroken("parser error without a message");
  }
}

void npy(const uint8_t* data, size_t size) {
  mgb::npy::Array a;
  std::string error;
  if (!mgb::npy::read(data, size, &a, &error)) {
    if (error.empty()) contractBroken("npy refusal without a message");
    return;
  }
  uint64_t numel = 0;
  if (!mgb::npy::numElements(a.shape, &numel)) contractBroken("accepted npy has a bad shape");
  if (a.data.size() != numel * mgb::npy::elementSize(a.dtype)) contractBroken("accepted npy data size");
  std::vector<uint8_t> bytes;
  if (!mgb::npy::write(a, &bytes, &error)) contractBroken("accepted npy cannot be written back");
  mgb::npy::Array b;
  if (!mgb::npy::read(bytes.data(), bytes.size(), &b, &error)) contractBroken("written npy cannot be read");
  if (b.dtype != a.dtype || b.shape != a.shape || b.data != a.data) contractBroken("npy round trip differs");
}

void safetensors(const uint8_t* data, size_t size) {
  ::safetensors::Header h;
  std::string error;
  if (!::safetensors::parseHeader(data, size, &h, &error)) {
    if (error.empty()) contractBroken("safetensors refusal without a message");
    return;
  }
  if (h.dataOffset > size) contractBroken("safetensors data area starts past the end");
  std::vector<::safetensors::TensorData> tensors;
  for (const ::safetensors::TensorInfo& t : h.tensors) {
    if (h.find(t.name) != &t) contractBroken("safetensors find() disagrees with the tensor list");
    if (t.begin > t.end || t.end > size - h.dataOffset) contractBroken("accepted safetensors range escapes the file");
    const size_t element = ::safetensors::dtypeSize(t.dtype);
    uint64_t numel = 1;
    for (int64_t d : t.shape) numel *= uint64_t(d);  // overflow ruled out by the reader
    if (element && numel * element != t.end - t.begin) contractBroken("accepted safetensors size mismatch");
    // Touch every byte of the range: ASan catches a range the reader got wrong.
    const uint8_t* p = data + h.dataOffset + t.begin;
    volatile uint8_t sink = 0;
    for (uint64_t i = 0; i < t.end - t.begin; ++i) sink = sink ^ p[i];
    tensors.push_back({t.name, t.dtype, t.shape, p, t.end - t.begin});
  }
  const std::vector<uint8_t> again = ::safetensors::serialize(tensors, h.metadata);
  ::safetensors::Header h2;
  if (!::safetensors::parseHeader(again.data(), again.size(), &h2, &error))
    contractBroken("re-serialized safetensors does not parse");
  if (h2.tensors.size() != h.tensors.size() || h2.metadata != h.metadata)
    contractBroken("safetensors round trip differs");
}

namespace {

// The device the fuzzed cache files claim to be for (the seed corpus,
// tests/fuzz/corpus/pipeline_cache/, is written for it).
mgrt::vk::PipelineCacheKey fuzzCacheKey() {
  mgrt::vk::PipelineCacheKey k;
  k.vendorId = 0x10de;
  k.deviceId = 0x2335;
  k.driverVersion = 0x8a8c0000;
  for (int i = 0; i < 16; ++i) k.uuid[i] = uint8_t(0xa0 + i);
  return k;
}

// Checks the file and the contract on what an accepted one must be; true if accepted.
bool checkCacheFile(const uint8_t* file, size_t size, const mgrt::vk::PipelineCacheKey& key) {
  const uint8_t* payload = nullptr;
  size_t payloadSize = 0;
  std::string why;
  if (!mgrt::vk::checkPipelineCacheFile(file, size, key, &payload, &payloadSize, &why)) {
    if (why.empty()) contractBroken("pipeline cache refusal without a reason");
    if (payload || payloadSize) contractBroken("refused pipeline cache still points at a payload");
    return false;
  }
  if (payload != file + mgrt::vk::kPipelineCacheHeaderSize || payloadSize != size - mgrt::vk::kPipelineCacheHeaderSize)
    contractBroken("accepted pipeline cache payload is not the rest of the file");
  uint32_t words[4];
  std::memcpy(words, payload, sizeof words);  // an accepted payload holds the driver header
  if (words[0] < mgrt::vk::kVulkanCacheHeaderSize || words[0] > payloadSize || words[1] != 1 ||
      words[2] != key.vendorId || words[3] != key.deviceId || std::memcmp(payload + 16, key.uuid, 16) != 0)
    contractBroken("accepted pipeline cache has a driver header for another device");
  return true;
}

}  // namespace

void pipelineCache(const uint8_t* data, size_t size) {
  const mgrt::vk::PipelineCacheKey key = fuzzCacheKey();
  checkCacheFile(data, size, key);
  // Random bytes rarely carry a valid checksum: seal the input as the
  // payload of a correct file too, so mutations reach the driver-header
  // checks. Sealing and checking must round-trip.
  const std::vector<uint8_t> sealed = mgrt::vk::makePipelineCacheFile(key, data, size);
  const bool accepted = checkCacheFile(sealed.data(), sealed.size(), key);
  if (accepted && std::memcmp(sealed.data() + mgrt::vk::kPipelineCacheHeaderSize, data, size) != 0)
    contractBroken("sealed pipeline cache payload differs from the input");
  mgrt::vk::PipelineCacheKey other = key;
  other.driverVersion ^= 1;
  if (checkCacheFile(sealed.data(), sealed.size(), other)) contractBroken("pipeline cache accepted for another driver");
}

void hfJson(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const mgc::hf::ModelConfig c = mgc::hf::parseConfig(text, "config.json");
    for (int64_t d : {c.hidden, c.intermediate, c.layers, c.heads, c.kvHeads, c.headDim, c.vocab})
      if (d < 1 || d > mgc::hf::kMaxConfigDim) contractBroken("accepted config has a size out of range");
    if (c.heads % c.kvHeads != 0 || c.headDim % 2 != 0) contractBroken("accepted config has heads that do not group");
    if (!(c.rmsEps > 0) || !(c.ropeTheta > 0) || !(c.rope.factor > 0)) contractBroken("accepted config has a bad number");
  } catch (const mgc::Error& e) {
    if (std::strlen(e.what()) == 0) contractBroken("config refusal without a message");
  }
  try {
    for (const auto& [tensor, shard] : mgc::hf::parseShardIndex(text, "index.json"))
      if (shard.find('/') != std::string::npos || shard.rfind('.', 0) == 0) contractBroken("shard name leaves the folder");
  } catch (const mgc::Error& e) {
    if (std::strlen(e.what()) == 0) contractBroken("index refusal without a message");
  }
}

void tokenizer(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const mgc::tok::Tokenizer t(text, "tokenizer.json");
    const std::vector<int64_t> ids = t.encode("Hello, world! 12345 caf\xC3\xA9 \xE4\xBD\xA0\xE5\xA5\xBD \xF0\x9F\x98\x80 <|x|>\n", true);
    for (int64_t id : ids)
      if (id < 0 || id >= t.vocabSize()) contractBroken("encode produced an id outside the vocabulary");
    const std::string decoded = t.decode(ids, false);
    if (!mgc::tok::isValidUtf8(decoded)) contractBroken("decode produced invalid UTF-8");
    mgc::tok::StreamDecoder stream(t, true);
    for (int64_t id : ids) stream.push(id);
  } catch (const mgc::Error& e) {
    if (std::strlen(e.what()) == 0) contractBroken("tokenizer refusal without a message");
  }
}

void sentencepiece(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    const mgc::tok::SentencePieceModel m(bytes, "tokenizer.model");
    for (bool bos : {true, false}) {
      const std::vector<int64_t> ids =
          m.encode("Hello, world! 12345 caf\xC3\xA9 \xE4\xBD\xA0\xE5\xA5\xBD \xF0\x9F\x98\x80 <s>\n", bos);
      for (int64_t id : ids)
        if (id < 0 || id >= m.vocabSize()) contractBroken("sentencepiece encode produced an id outside the vocabulary");
      for (bool skip : {true, false})
        if (!mgc::tok::isValidUtf8(m.decode(ids, skip))) contractBroken("sentencepiece decode produced invalid UTF-8");
      mgc::tok::StreamDecoder stream(m, true);
      for (int64_t id : ids) stream.push(id);
    }
  } catch (const mgc::Error& e) {
    if (std::strlen(e.what()) == 0) contractBroken("sentencepiece refusal without a message");
  }
}

void idx(const uint8_t* data, size_t size) {
  ::idx::Array a;
  try {
    a = ::idx::parse(std::vector<uint8_t>(data, data + size), "fuzz.idx");
  } catch (const std::runtime_error& e) {
    if (std::strlen(e.what()) == 0) contractBroken("idx refusal without a message");
    return;
  }
  uint64_t numel = 1;
  for (int64_t d : a.shape) numel *= uint64_t(d);  // the reader bounds numel by 2^32
  if (a.shape.empty() || a.values.size() != numel) contractBroken("accepted idx has values that do not fill its shape");
  if (a.shape.size() != 1) return;
  // A rank-1 array is a label file: pair it with as many one-pixel images.
  ::idx::Array images;
  images.shape = {a.shape[0], 1, 1};
  images.values.assign(a.values.size(), 0.0f);
  try {
    ::idx::Dataset d = ::idx::makeDataset(images, a, "fuzz");
    if (d.labels.size() != a.values.size() || d.images.shape.size() != 4) contractBroken("idx dataset sizes");
  } catch (const std::runtime_error& e) {
    if (std::strlen(e.what()) == 0) contractBroken("idx dataset refusal without a message");
  }
}

}  // namespace mgc_fuzz
