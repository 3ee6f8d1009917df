// Builds a .mgb file image from a BundleSpec. The writer does not judge the
// spec (tests build hostile bundles with it); the runtime verifies on load.
#include "formats/bundle_writer.h"

#include <cstring>

#include "formats/bundle_layout.h"
#include "formats/mgb_generated.h"

namespace mgb {
namespace {

uint64_t alignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

flatbuffers::Offset<Kernel> buildKernel(flatbuffers::FlatBufferBuilder& fbb, const KernelEntry& k) {
  std::vector<flatbuffers::Offset<KernelVariant>> variants;
  for (const KernelVariantEntry& v : k.variants) {
    const uint64_t hash =
        fnv1a(reinterpret_cast<const uint8_t*>(v.spirv.data()), v.spirv.size() * sizeof(uint32_t));
    std::vector<uint32_t> localSize(v.localSize, v.localSize + 3);
    // Copies of a kernel specialized to different dispatches share their
    // (generic) MSL: the builder stores equal strings once.
    // (Built one by one: the order of function arguments' evaluation is
    // unspecified, and the file's bytes must not depend on the compiler.)
    auto tag = fbb.CreateString(v.tag);
    auto spirv = fbb.CreateVector(v.spirv);
    auto msl = fbb.CreateSharedString(v.msl);
    auto local = fbb.CreateVector(localSize);
    auto coop = fbb.CreateVector(v.cooperativeMatrix);
    variants.push_back(CreateKernelVariant(fbb, tag, hash, spirv, msl, local, static_cast<Feature>(v.features),
                                           v.subgroupSize, coop));
  }
  return CreateKernelDirect(fbb, k.name.c_str(), k.numBindings, &variants, k.stream);
}

flatbuffers::Offset<Dispatch> buildDispatch(flatbuffers::FlatBufferBuilder& fbb,
                                            const DispatchEntry& d) {
  std::vector<BufferRange> ranges;
  ranges.reserve(d.bindings.size());
  for (const RangeEntry& r : d.bindings) ranges.emplace_back(r.arena, r.offset, r.size);
  std::vector<uint32_t> groups(d.groups, d.groups + 3);
  return CreateDispatchDirect(fbb, d.kernel, &d.params, &ranges, &groups, d.barrier,
                              d.node.c_str(), d.items,
                              d.shape.empty() ? nullptr : d.shape.c_str(), d.flops, d.bytes);
}

flatbuffers::Offset<Check> buildCheck(flatbuffers::FlatBufferBuilder& fbb, const CheckEntry& c) {
  auto tensors = [&](const std::vector<std::vector<uint8_t>>& list) {
    std::vector<flatbuffers::Offset<CheckTensor>> out;
    for (const std::vector<uint8_t>& data : list) out.push_back(CreateCheckTensorDirect(fbb, &data));
    return fbb.CreateVector(out);
  };
  auto entryPoint = fbb.CreateString(c.entryPoint);
  auto inputs = tensors(c.inputs);
  auto outputs = tensors(c.outputs);
  return CreateCheck(fbb, entryPoint, inputs, outputs, c.tolerance);
}

std::vector<uint8_t> buildManifest(const BundleSpec& spec) {
  flatbuffers::FlatBufferBuilder fbb(4096);
  // Defaults are written too, so a reader sees every field explicitly and
  // the bytes do not depend on which values happen to be zero.
  fbb.ForceDefaults(true);

  std::vector<flatbuffers::Offset<Kernel>> kernels;
  for (const KernelEntry& k : spec.kernels) kernels.push_back(buildKernel(fbb, k));

  std::vector<flatbuffers::Offset<Arena>> arenas;
  for (const ArenaEntry& a : spec.arenas)
    arenas.push_back(CreateArena(fbb, static_cast<ArenaKind>(a.kind), a.size, a.initOffset, a.initSize));

  std::vector<flatbuffers::Offset<Tensor>> tensors;
  for (const TensorEntry& t : spec.tensors)
    tensors.push_back(CreateTensorDirect(fbb, t.name.c_str(), static_cast<DType>(t.dtype),
                                         static_cast<DType>(t.deviceDtype), &t.shape, t.arena,
                                         t.offset, t.size));

  std::vector<flatbuffers::Offset<EntryPoint>> entryPoints;
  for (const EntryPointEntry& e : spec.entryPoints) {
    std::vector<flatbuffers::Offset<Dispatch>> dispatches;
    for (const DispatchEntry& d : e.dispatches) dispatches.push_back(buildDispatch(fbb, d));
    entryPoints.push_back(
        CreateEntryPointDirect(fbb, e.name.c_str(), &e.inputs, &e.outputs, &dispatches));
  }

  // Built in field order, as CreateBundleDirect does (same bytes as before
  // the tokenizer fields); the tokenizer through CreateString(std::string),
  // which takes its size, not strlen.
  auto producer = fbb.CreateString(spec.producer);
  auto kernelsVec = fbb.CreateVector(kernels);
  auto arenasVec = fbb.CreateVector(arenas);
  auto tensorsVec = fbb.CreateVector(tensors);
  auto entryVec = fbb.CreateVector(entryPoints);
  flatbuffers::Offset<flatbuffers::Vector<uint32_t>> state;
  if (!spec.state.empty()) state = fbb.CreateVector(spec.state);
  flatbuffers::Offset<flatbuffers::String> tokenizer;
  if (!spec.tokenizer.empty()) tokenizer = fbb.CreateString(spec.tokenizer);
  flatbuffers::Offset<flatbuffers::Vector<int64_t>> eos;
  if (!spec.eosTokenIds.empty()) eos = fbb.CreateVector(spec.eosTokenIds);
  flatbuffers::Offset<Check> check;  // absent unless asked for: other bundles keep their bytes
  if (!spec.check.entryPoint.empty()) check = buildCheck(fbb, spec.check);
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> tokenizerModel;
  if (!spec.tokenizerModel.empty())
    tokenizerModel =
        fbb.CreateVector(reinterpret_cast<const uint8_t*>(spec.tokenizerModel.data()), spec.tokenizerModel.size());
  auto root = CreateBundle(fbb, producer, kernelsVec, arenasVec, tensorsVec, entryVec, state, tokenizer, eos, check,
                           tokenizerModel);
  FinishBundleBuffer(fbb, root);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

}  // namespace

uint64_t dataSectionSize(const BundleSpec& spec) {
  uint64_t n = spec.weights.size();
  for (const DataSpan& s : spec.spans) n += s.size;
  return n;
}

uint64_t BundleImage::size() const {
  uint64_t n = bytes.size();
  for (const DataSpan& s : rest) n += s.size;
  return n;
}

void BundleImage::assemble() {
  // One growth, no zero fill first: the weights are most of the file.
  bytes.reserve(size_t(size()));
  for (const DataSpan& s : rest) {
    if (s.data) bytes.insert(bytes.end(), s.data, s.data + s.size);
    else bytes.resize(bytes.size() + size_t(s.size), 0);
  }
  rest.clear();
}

BundleImage layOutBundle(const BundleSpec& spec) {
  const std::vector<uint8_t> manifest = buildManifest(spec);

  Header h;
  std::memset(&h, 0, sizeof h);
  std::memcpy(h.magic, kMagic, sizeof h.magic);
  h.version = kFormatVersion;
  h.manifest_offset = kHeaderSize;  // 64: already 8-aligned for the FlatBuffer
  h.manifest_size = manifest.size();
  h.weights_offset = alignUp(h.manifest_offset + h.manifest_size, kWeightsAlign);
  h.weights_size = dataSectionSize(spec);
  h.file_size = h.weights_offset + h.weights_size;

  // Header, manifest and padding (zero) in `bytes`; the data section stays
  // where it is, checksummed in place.
  BundleImage image;
  std::vector<uint8_t>& head = image.bytes;
  head.reserve(size_t(h.weights_offset));
  head.resize(size_t(h.manifest_offset), 0);
  head.insert(head.end(), manifest.begin(), manifest.end());
  head.resize(size_t(h.weights_offset), 0);
  std::memcpy(head.data(), &h, sizeof h);
  if (!spec.weights.empty()) image.rest.push_back({spec.weights.data(), spec.weights.size(), nullptr});
  image.rest.insert(image.rest.end(), spec.spans.begin(), spec.spans.end());

  BundleChecksum sum;
  sum.add(head.data(), head.size());
  for (const DataSpan& s : image.rest) sum.add(s.data, size_t(s.size));
  h.checksum = sum.finish();
  std::memcpy(head.data() + offsetof(Header, checksum), &h.checksum, sizeof h.checksum);
  return image;
}

std::vector<uint8_t> writeBundle(const BundleSpec& spec) {
  BundleImage image = layOutBundle(spec);
  image.assemble();
  return std::move(image.bytes);
}

}  // namespace mgb
