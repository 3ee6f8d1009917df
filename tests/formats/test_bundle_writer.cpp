// The bundle writer: layout, determinism, checksum and a manifest that the
// FlatBuffers verifier accepts.
#include <catch2/catch.hpp>

#include <cstring>

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
