#include "tests/runtime/hostile/hostile_bundles.h"

#include <cstring>

#include "formats/bundle_layout.h"
#include "formats/mgb_generated.h"

namespace hostile {

std::vector<uint32_t> fakeSpirv(uint32_t version, const std::vector<uint32_t>& extra) {
  std::vector<uint32_t> w = {0x07230203, version, 0, 8, 0};
  w.insert(w.end(), {(2u << 16) | 17, 1});  // OpCapability Shader
  w.insert(w.end(), extra.begin(), extra.end());
  w.insert(w.end(), {(3u << 16) | 14, 0, 1});                    // OpMemoryModel Logical GLSL450
  w.insert(w.end(), {(5u << 16) | 15, 5, 1, 0x6e69616d, 0});     // OpEntryPoint GLCompute %1 "main"
  w.insert(w.end(), {(6u << 16) | 16, 1, 17, 1, 1, 1});          // OpExecutionMode %1 LocalSize 1 1 1
  return w;
}

std::vector<uint32_t> noopSpirv() {
  static const uint32_t kWords[] = {
#include "noop.spv.inc"
  };
  return std::vector<uint32_t>(std::begin(kWords), std::end(kWords));
}

std::vector<uint8_t> oneKernelBundle(const std::vector<uint32_t>& spirv, bool omitBindings,
                                     uint64_t activationBytes, bool stream) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.ForceDefaults(true);
  const std::vector<uint32_t> local = {1, 1, 1}, groups = {1, 1, 1};
  const uint64_t hash = mgb::fnv1a(reinterpret_cast<const uint8_t*>(spirv.data()), spirv.size() * 4);
  std::vector<flatbuffers::Offset<mgb::KernelVariant>> variants = {
      mgb::CreateKernelVariantDirect(fbb, "portable", hash, &spirv, "", &local)};
  std::vector<flatbuffers::Offset<mgb::Kernel>> kernels = {mgb::CreateKernelDirect(fbb, "noop", 0, &variants, stream)};
  std::vector<flatbuffers::Offset<mgb::Arena>> arenas = {
      mgb::CreateArena(fbb, mgb::ArenaKind::Weights, 0),
      mgb::CreateArena(fbb, mgb::ArenaKind::Activations, activationBytes)};
  const std::vector<int64_t> shape = {4};
  std::vector<flatbuffers::Offset<mgb::Tensor>> tensors = {
      mgb::CreateTensorDirect(fbb, "x", mgb::DType::F32, mgb::DType::F32, &shape, 1, 0, 16)};
  const std::vector<uint32_t> params = {7};
  const std::vector<mgb::BufferRange> noRanges;
  auto dispatch = mgb::CreateDispatchDirect(fbb, 0, &params, omitBindings ? nullptr : &noRanges,
                                            &groups, true, "noop");
  std::vector<flatbuffers::Offset<mgb::Dispatch>> dispatches = {dispatch};
  const std::vector<uint32_t> io = {0};
  std::vector<flatbuffers::Offset<mgb::EntryPoint>> entries = {
      mgb::CreateEntryPointDirect(fbb, "infer", &io, &io, &dispatches)};
  mgb::FinishBundleBuffer(fbb, mgb::CreateBundleDirect(fbb, "hostile tests", &kernels, &arenas,
                                                       &tensors, &entries));

  mgb::Header h;
  std::memset(&h, 0, sizeof h);
  std::memcpy(h.magic, mgb::kMagic, sizeof h.magic);
  h.version = mgb::kFormatVersion;
  h.manifest_offset = mgb::kHeaderSize;
  h.manifest_size = fbb.GetSize();
  h.weights_offset = (h.manifest_offset + h.manifest_size + mgb::kWeightsAlign - 1) /
                     mgb::kWeightsAlign * mgb::kWeightsAlign;
  h.weights_size = 0;
  h.file_size = h.weights_offset;
  std::vector<uint8_t> file(h.file_size, 0);
  std::memcpy(file.data() + h.manifest_offset, fbb.GetBufferPointer(), fbb.GetSize());
  std::memcpy(file.data(), &h, sizeof h);
  h.checksum = mgb::bundleChecksum(file.data(), file.size());
  std::memcpy(file.data(), &h, sizeof h);
  return file;
}

}  // namespace hostile
