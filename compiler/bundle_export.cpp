#include "compiler/bundle_export.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "ir/types.h"
#include "formats/bundle_layout.h"
#include "formats/bundle_writer.h"
#include "formats/mgb_generated.h"
#include "formats/safetensors.h"

namespace mgc {

namespace {

uint64_t alignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Byte ranges of one arena, merged and packed into a new arena.
struct Packer {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // [begin, end)
  std::vector<std::pair<uint64_t, uint64_t>> merged;  // [begin, end)
  std::vector<uint64_t> placed;                       // new offset of each merged range
  void add(uint64_t off, uint64_t size) { ranges.push_back({off, off + size}); }
  uint64_t pack(uint64_t base) {
    std::sort(ranges.begin(), ranges.end());
    for (auto r : ranges) {
      if (!merged.empty() && r.first < merged.back().second) merged.back().second = std::max(merged.back().second, r.second);
      else merged.push_back(r);
    }
    uint64_t at = base;
    for (auto m : merged) {
      placed.push_back(at);
      at = alignUp(at + (m.second - m.first), mgb::kTensorAlign);
    }
    return at;
  }
  uint64_t map(uint64_t off) const {
    auto it = std::upper_bound(merged.begin(), merged.end(), std::make_pair(off, UINT64_MAX));
    size_t k = size_t(it - merged.begin()) - 1;
    return placed[k] + (off - merged[k].first);
  }
};

}  // namespace

std::vector<uint8_t> exportInferenceBundle(const std::vector<uint8_t>& file, const std::vector<uint8_t>& ckpt,
                                           const std::string& ckptName, const std::string& entryName,
                                           ExportStats* stats) {
  // Header and manifest (structurally verified; the runtime verifies the result again).
  if (file.size() < mgb::kHeaderSize) throw Error("bundle is too small");
  mgb::Header h;
  std::memcpy(&h, file.data(), sizeof h);
  if (std::memcmp(h.magic, mgb::kMagic, 4) != 0 || h.version != mgb::kFormatVersion || h.file_size != file.size())
    throw Error("not a .mgb bundle of format version " + std::to_string(mgb::kFormatVersion));
  if (h.checksum != mgb::bundleChecksum(file.data(), file.size())) throw Error("bundle checksum mismatch (corrupted)");
  if (h.manifest_offset > file.size() || h.manifest_size > file.size() - h.manifest_offset ||
      h.weights_offset > file.size() || h.weights_size > file.size() - h.weights_offset)
    throw Error("bundle sections lie outside the file");
  flatbuffers::Verifier verifier(file.data() + h.manifest_offset, size_t(h.manifest_size));
  if (!mgb::VerifyBundleBuffer(verifier)) throw Error("bundle manifest is malformed");
  const mgb::Bundle& b = *mgb::GetBundle(file.data() + h.manifest_offset);
  if (!b.kernels() || !b.arenas() || !b.tensors() || !b.entry_points() || b.arenas()->size() == 0)
    throw Error("bundle manifest lacks kernels, arenas, tensors or entry points");
  const uint8_t* data = file.data() + h.weights_offset;
  const uint64_t dataSize = h.weights_size;

  const mgb::EntryPoint* entry = nullptr;
  for (const mgb::EntryPoint* e : *b.entry_points())
    if (e->name() && e->name()->str() == entryName) entry = e;
  if (!entry) throw Error("bundle has no entry point '" + entryName + "'");

  // Current state contents (device words) per State arena: the bundle's
  // initial bytes, overwritten by the checkpoint.
  const uint32_t numArenas = b.arenas()->size();
  std::vector<std::vector<uint8_t>> stateBytes(numArenas);
  for (uint32_t i = 0; i < numArenas; ++i) {
    const mgb::Arena& a = *b.arenas()->Get(i);
    if (a.kind() != mgb::ArenaKind::State) continue;
    stateBytes[i].assign(size_t(a.size()), 0);
    if (a.init_size() > a.size() || a.init_offset() > dataSize || a.init_size() > dataSize - a.init_offset())
      throw Error("state arena " + std::to_string(i) + " initializer lies outside the data section");
    std::memcpy(stateBytes[i].data(), data + a.init_offset(), size_t(a.init_size()));
  }
  if (!ckpt.empty()) {
    safetensors::Header st;
    std::string err;
    if (!safetensors::parseHeader(ckpt.data(), ckpt.size(), &st, &err)) throw Error(ckptName + ": " + err);
    if (!b.state() || b.state()->size() == 0) throw Error("bundle has no state tensors to load '" + ckptName + "' into");
    for (uint32_t ti : *b.state()) {
      if (ti >= b.tensors()->size()) throw Error("bundle state list is malformed");
      const mgb::Tensor& t = *b.tensors()->Get(ti);
      const std::string name = t.name() ? t.name()->str() : "";
      const safetensors::TensorInfo* ct = st.find(name);
      if (!ct) throw Error(ckptName + ": checkpoint lacks state tensor '" + name + "'");
      std::vector<int64_t> shape = t.shape() ? std::vector<int64_t>(t.shape()->begin(), t.shape()->end()) : std::vector<int64_t>{};
      if (ct->dtype != safetensors::dtypeName(unsigned(t.dtype())) || ct->shape != shape)
        throw Error(ckptName + ": tensor '" + name + "' is " + ct->dtype + " " + shapeStr(ct->shape) +
                    " in the checkpoint but " + safetensors::dtypeName(unsigned(t.dtype())) + " " + shapeStr(shape) + " in the bundle");
      // The checkpoint's bytes are copied as they are: the device must hold the same type.
      if ((t.dtype() != mgb::DType::F32 && t.dtype() != mgb::DType::I32) || t.device_dtype() != t.dtype())
        throw Error(ckptName + ": tensor '" + name + "': only f32 and i32 state stored as such can be exported");
      if (t.arena() >= numArenas || stateBytes[t.arena()].size() < t.offset() ||
          stateBytes[t.arena()].size() - t.offset() < ct->end - ct->begin)
        throw Error("bundle state tensor '" + name + "' lies outside its arena");
      std::memcpy(stateBytes[t.arena()].data() + t.offset(), ckpt.data() + st.dataOffset + ct->begin,
                  size_t(ct->end - ct->begin));
    }
  }

  // Ranges the entry point uses in the weights arena and in State arenas.
  std::vector<Packer> packers(numArenas);
  uint64_t activationEnd = 0;
  auto use = [&](uint32_t arena, uint64_t off, uint64_t size) {
    if (arena >= numArenas) throw Error("bundle references arena " + std::to_string(arena) + " that does not exist");
    const mgb::ArenaKind k = b.arenas()->Get(arena)->kind();
    if (k == mgb::ArenaKind::Activations) activationEnd = std::max(activationEnd, off + size);
    else packers[arena].add(off, size);
  };
  if (entry->dispatches())
    for (const mgb::Dispatch* d : *entry->dispatches())
      if (d->bindings())
        for (const mgb::BufferRange* r : *d->bindings()) use(r->arena(), r->offset(), r->size());
  for (const auto* list : {entry->inputs(), entry->outputs()})
    if (list)
      for (uint32_t ti : *list) {
        if (ti >= b.tensors()->size()) throw Error("bundle entry point references a missing tensor");
        const mgb::Tensor& t = *b.tensors()->Get(ti);
        use(t.arena(), t.offset(), t.size());
      }

  // New weights arena: used weights, then used state (its current values).
  mgb::BundleSpec spec;
  spec.producer = b.producer() ? b.producer()->str() : "mgc";
  uint64_t at = packers[0].pack(0);
  for (uint32_t i = 1; i < numArenas; ++i)
    if (b.arenas()->Get(i)->kind() == mgb::ArenaKind::State) at = packers[i].pack(at);
  spec.weights.assign(size_t(at), 0);
  size_t baked = 0;
  for (uint32_t i = 0; i < numArenas; ++i) {
    const Packer& p = packers[i];
    for (size_t k = 0; k < p.merged.size(); ++k) {
      const uint64_t begin = p.merged[k].first, len = p.merged[k].second - begin;
      const uint8_t* src;
      if (i == 0) {
        if (begin + len > b.arenas()->Get(0)->size() || begin + len > dataSize) throw Error("weights range outside the data section");
        src = data + begin;
      } else {
        if (begin + len > stateBytes[i].size()) throw Error("state range outside its arena");
        src = stateBytes[i].data() + begin;
        ++baked;
      }
      std::memcpy(spec.weights.data() + p.placed[k], src, size_t(len));
    }
  }
  spec.arenas = {{0, at}, {1, activationEnd}};
  auto remap = [&](uint32_t arena, uint64_t off, uint32_t* newArena, uint64_t* newOff) {
    const mgb::ArenaKind k = b.arenas()->Get(arena)->kind();
    if (k == mgb::ArenaKind::Activations) {
      *newArena = 1;
      *newOff = off;
    } else {
      *newArena = 0;
      *newOff = packers[arena].map(off);
    }
  };

  std::map<uint32_t, uint32_t> kernelMap;
  mgb::EntryPointEntry e;
  e.name = entryName;
  if (entry->dispatches()) {
    for (const mgb::Dispatch* d : *entry->dispatches()) {
      if (d->kernel() >= b.kernels()->size()) throw Error("bundle dispatch references a missing kernel");
      auto [it, inserted] = kernelMap.emplace(d->kernel(), uint32_t(spec.kernels.size()));
      if (inserted) {
        const mgb::Kernel& k = *b.kernels()->Get(d->kernel());
        mgb::KernelEntry ke;
        ke.name = k.name() ? k.name()->str() : "";
        ke.numBindings = k.num_bindings();
        ke.stream = k.stream();
        if (k.variants())
          for (const mgb::KernelVariant* v : *k.variants()) {
            mgb::KernelVariantEntry ve;
            ve.tag = v->tag() ? v->tag()->str() : "";
            if (v->spirv()) ve.spirv.assign(v->spirv()->begin(), v->spirv()->end());
            ve.msl = v->msl() ? v->msl()->str() : "";
            for (uint32_t a = 0; a < 3 && v->local_size() && a < v->local_size()->size(); ++a)
              ve.localSize[a] = v->local_size()->Get(a);
            ve.features = uint32_t(v->features());
            ve.subgroupSize = v->subgroup_size();
            if (v->cooperative_matrix())
              ve.cooperativeMatrix.assign(v->cooperative_matrix()->begin(), v->cooperative_matrix()->end());
            ke.variants.push_back(std::move(ve));
          }
        spec.kernels.push_back(std::move(ke));
      }
      mgb::DispatchEntry de;
      de.kernel = it->second;
      if (d->params()) de.params.assign(d->params()->begin(), d->params()->end());
      if (d->bindings())
        for (const mgb::BufferRange* r : *d->bindings()) {
          mgb::RangeEntry re;
          remap(r->arena(), r->offset(), &re.arena, &re.offset);
          re.size = r->size();
          de.bindings.push_back(re);
        }
      for (uint32_t a = 0; a < 3 && d->groups() && a < d->groups()->size(); ++a) de.groups[a] = d->groups()->Get(a);
      de.items = d->items();
      de.barrier = d->barrier();
      de.node = d->node() ? d->node()->str() : "";
      e.dispatches.push_back(std::move(de));
    }
  }
  auto addTensor = [&](uint32_t ti) {
    const mgb::Tensor& t = *b.tensors()->Get(ti);
    mgb::TensorEntry te;
    te.name = t.name() ? t.name()->str() : "";
    te.dtype = uint8_t(t.dtype());
    te.deviceDtype = uint8_t(t.device_dtype());
    if (t.shape()) te.shape.assign(t.shape()->begin(), t.shape()->end());
    remap(t.arena(), t.offset(), &te.arena, &te.offset);
    te.size = t.size();
    spec.tensors.push_back(std::move(te));
    return uint32_t(spec.tensors.size() - 1);
  };
  if (entry->inputs())
    for (uint32_t ti : *entry->inputs()) e.inputs.push_back(addTensor(ti));
  if (entry->outputs())
    for (uint32_t ti : *entry->outputs()) e.outputs.push_back(addTensor(ti));
  spec.entryPoints.push_back(std::move(e));
  if (stats) *stats = {baked, spec.kernels.size(), at, activationEnd};
  return mgb::writeBundle(spec);
}

}  // namespace mgc
