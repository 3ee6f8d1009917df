// The bundle writer: layout, determinism, checksum (whole and in pieces), a
// data section in spans, and a manifest that the FlatBuffers verifier accepts.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>

#include "formats/bundle_layout.h"
#include "formats/bundle_writer.h"
#include "formats/mgb_generated.h"

namespace {

mgb::BundleSpec sampleSpec() {
  mgb::BundleSpec s;
  s.producer = "mgc test";
  mgb::KernelEntry k;
  k.name = "eltwise";
  k.numBindings = 2;
  mgb::KernelVariantEntry fast;
  fast.tag = "f16s";
  fast.spirv = {0x07230203, 0x00010000, 0, 8, 0, 43};
  fast.localSize[0] = 128;
  fast.features = uint32_t(mgb::Feature::Storage16) | uint32_t(mgb::Feature::Float16);
  fast.subgroupSize = 32;
  mgb::KernelVariantEntry portable;
  portable.tag = "portable";
  portable.spirv = {0x07230203, 0x00010000, 0, 8, 0, 42};
  portable.msl = "kernel void main0() {}";
  portable.localSize[0] = 64;
  k.variants = {fast, portable};
  s.kernels.push_back(k);
  s.arenas = {{0, 12}, {1, 512}};
  mgb::TensorEntry w;
  w.name = "w";
  w.shape = {3};
  w.size = 12;
  s.tensors.push_back(w);
  mgb::TensorEntry x = w;
  x.name = "x";
  x.dtype = 3;        // I64 outside
  x.deviceDtype = 4;  // I32 inside
  x.arena = 1;
  x.offset = 256;
  s.tensors.push_back(x);
  mgb::EntryPointEntry e;
  e.name = "infer";
  e.inputs = {1};
  e.outputs = {1};
  mgb::DispatchEntry d;
  d.params = {7, 8};
  d.bindings = {{0, 0, 12}, {1, 256, 12}};
  d.groups[1] = 5;
  d.items = 1000;
  d.barrier = false;
  d.node = "n0";
  e.dispatches.push_back(d);
  s.entryPoints.push_back(e);
  s.weights = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  return s;
}

mgb::Header header(const std::vector<uint8_t>& f) {
  mgb::Header h;
  std::memcpy(&h, f.data(), sizeof h);
  return h;
}

}  // namespace

TEST_CASE("writeBundle lays out header, manifest and aligned weights", "[formats]") {
  const std::vector<uint8_t> f = mgb::writeBundle(sampleSpec());
  const mgb::Header h = header(f);
  CHECK(std::memcmp(h.magic, mgb::kMagic, 4) == 0);
  CHECK(h.version == mgb::kFormatVersion);
  CHECK(h.file_size == f.size());
  CHECK(h.manifest_offset == mgb::kHeaderSize);
  CHECK(h.manifest_offset % 8 == 0);
  CHECK(h.weights_offset % mgb::kWeightsAlign == 0);
  CHECK(h.weights_offset >= h.manifest_offset + h.manifest_size);
  CHECK(h.weights_size == 12);
  CHECK(h.weights_offset + h.weights_size == f.size());
  CHECK(f[h.weights_offset] == 1);
  CHECK(f[h.weights_offset + 11] == 12);
  CHECK(h.checksum == mgb::bundleChecksum(f.data(), f.size()));
  CHECK(h.reserved == 0);
}

TEST_CASE("writeBundle output is deterministic", "[formats]") {
  CHECK(mgb::writeBundle(sampleSpec()) == mgb::writeBundle(sampleSpec()));
  mgb::BundleSpec other = sampleSpec();
  other.weights[0] = 99;
  CHECK(mgb::writeBundle(other) != mgb::writeBundle(sampleSpec()));
}

TEST_CASE("the manifest verifies and reads back every field", "[formats]") {
  const std::vector<uint8_t> f = mgb::writeBundle(sampleSpec());
  const mgb::Header h = header(f);
  const uint8_t* m = f.data() + h.manifest_offset;
  flatbuffers::Verifier v(m, h.manifest_size);
  REQUIRE(mgb::VerifyBundleBuffer(v));
  REQUIRE(mgb::BundleBufferHasIdentifier(m));
  const mgb::Bundle* b = mgb::GetBundle(m);
  CHECK(b->producer()->str() == "mgc test");

  const mgb::Kernel* k = b->kernels()->Get(0);
  CHECK(k->name()->str() == "eltwise");
  CHECK(k->num_bindings() == 2);
  REQUIRE(k->variants()->size() == 2);
  const mgb::KernelVariant* v0 = k->variants()->Get(0);
  CHECK(v0->tag()->str() == "f16s");
  CHECK(v0->features() == (mgb::Feature::Storage16 | mgb::Feature::Float16));
  CHECK(v0->subgroup_size() == 32);
  CHECK(v0->local_size()->Get(0) == 128);
  CHECK(v0->spirv()->Get(5) == 43);
  const mgb::KernelVariant* v1 = k->variants()->Get(1);
  CHECK(v1->tag()->str() == "portable");
  CHECK(v1->spirv()->size() == 6);
  CHECK(v1->hash() == mgb::fnv1a(reinterpret_cast<const uint8_t*>(v1->spirv()->data()), 24));
  CHECK(v1->msl()->str() == "kernel void main0() {}");
  CHECK(v1->local_size()->Get(0) == 64);
  CHECK(v1->local_size()->Get(2) == 1);
  CHECK(v1->features() == mgb::Feature::NONE);

  // Defaults are stored explicitly (kind Weights = 0, offset 0, ...).
  CHECK(b->arenas()->Get(0)->kind() == mgb::ArenaKind::Weights);
  CHECK(b->arenas()->Get(1)->kind() == mgb::ArenaKind::Activations);
  CHECK(b->arenas()->Get(1)->size() == 512);

  const mgb::Tensor* x = b->tensors()->Get(1);
  CHECK(x->name()->str() == "x");
  CHECK(x->dtype() == mgb::DType::I64);
  CHECK(x->device_dtype() == mgb::DType::I32);
  CHECK(x->shape()->Get(0) == 3);
  CHECK(x->arena() == 1);
  CHECK(x->offset() == 256);
  CHECK(x->size() == 12);

  const mgb::EntryPoint* e = b->entry_points()->Get(0);
  CHECK(e->name()->str() == "infer");
  CHECK(e->inputs()->Get(0) == 1);
  const mgb::Dispatch* d = e->dispatches()->Get(0);
  CHECK(d->params()->Get(1) == 8);
  CHECK(d->bindings()->Get(1)->offset() == 256);
  CHECK(d->groups()->Get(1) == 5);
  CHECK(d->items() == 1000);
  CHECK_FALSE(d->barrier());
  CHECK(d->node()->str() == "n0");
}

TEST_CASE("a bundle without weights still has a well-formed empty section", "[formats]") {
  mgb::BundleSpec s = sampleSpec();
  s.weights.clear();
  const std::vector<uint8_t> f = mgb::writeBundle(s);
  const mgb::Header h = header(f);
  CHECK(h.weights_size == 0);
  CHECK(h.weights_offset == f.size());
  CHECK(h.weights_offset % mgb::kWeightsAlign == 0);
}

namespace {

// bundleChecksum as formats/bundle_layout.h stated it before it took the
// file in pieces: whole-buffer words in four lanes, then the tail.
uint64_t referenceChecksum(const uint8_t* file, size_t n) {
  constexpr uint64_t kPrime = 1099511628211ull;
  if (n < mgb::kHeaderSize) return 0;
  uint64_t lane[4] = {1469598103934665603ull, 0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull};
  const size_t words = n / 8;
  for (size_t i = 0; i < words; ++i) {
    uint64_t w = 0;
    if (i != offsetof(mgb::Header, checksum) / 8) std::memcpy(&w, file + 8 * i, 8);
    lane[i & 3] = (lane[i & 3] ^ w) * kPrime;
  }
  uint64_t h = mgb::fnv1a(file + 8 * words, n - 8 * words, lane[0]);
  for (int k = 1; k < 4; ++k) h = (h ^ lane[k]) * kPrime;
  return h ^ uint64_t(n);
}

}  // namespace

TEST_CASE("the checksum of a file in pieces equals that of the whole file", "[formats]") {
  std::mt19937 rng(3);
  for (size_t n : {size_t(0), size_t(63), size_t(64), size_t(65), size_t(200), size_t(1001)}) {
    std::vector<uint8_t> file(n);
    for (uint8_t& b : file) b = uint8_t(rng());
    // Zero runs, which a piece may stand for with a null pointer.
    for (size_t k = 0; k < n; k += 97) std::fill(file.begin() + long(k), file.begin() + long(std::min(n, k + 13)), 0);
    INFO("n = " << n);
    CHECK(mgb::bundleChecksum(file.data(), n) == referenceChecksum(file.data(), n));
    for (int round = 0; round < 50; ++round) {
      mgb::BundleChecksum sum;
      for (size_t at = 0; at < n;) {
        const size_t len = std::min<size_t>(n - at, rng() % 20);
        const bool zeros =
            std::all_of(file.begin() + long(at), file.begin() + long(at + len), [](uint8_t b) { return b == 0; });
        sum.add(zeros && rng() % 2 ? nullptr : file.data() + at, len);
        at += len;
      }
      CHECK(sum.finish() == referenceChecksum(file.data(), n));
    }
  }
}

TEST_CASE("a data section in spans writes the same file as one in `weights`", "[formats]") {
  const mgb::BundleSpec whole = sampleSpec();
  const std::vector<uint8_t> expected = mgb::writeBundle(whole);
  // The sample's 12 data bytes as pieces: 5 in `weights`, 7 in a span that
  // owns them.
  mgb::BundleSpec split = whole;
  split.weights.assign(whole.weights.begin(), whole.weights.begin() + 5);
  auto rest = std::make_shared<std::vector<uint8_t>>(whole.weights.begin() + 5, whole.weights.end());
  split.spans.push_back({rest->data(), rest->size(), rest});
  CHECK(mgb::dataSectionSize(split) == 12);
  CHECK(mgb::writeBundle(split) == expected);

  // Laid out but not assembled: the header and manifest in `bytes`, the
  // data section in spans pointing where the spec's bytes are.
  mgb::BundleImage image = mgb::layOutBundle(split);
  CHECK(image.size() == expected.size());
  CHECK(image.bytes.size() == expected.size() - 12);
  REQUIRE(image.rest.size() == 2);
  CHECK(image.rest[0].data == split.weights.data());
  CHECK(image.rest[1].data == rest->data());
  image.assemble();
  CHECK(image.rest.empty());
  CHECK(image.bytes == expected);

  // A zero span writes zeros, and the checksum covers them.
  mgb::BundleSpec zeros = whole;
  zeros.weights.assign(7, 0);
  mgb::BundleSpec zeroSpan = whole;
  zeroSpan.weights.clear();
  zeroSpan.spans.push_back({nullptr, 7, nullptr});
  const std::vector<uint8_t> f = mgb::writeBundle(zeroSpan);
  CHECK(f == mgb::writeBundle(zeros));
  CHECK(header(f).checksum == referenceChecksum(f.data(), f.size()));
}
