// Semantic checks of the manifest: indices, ranges, sizes, device limits.
#include <algorithm>
#include <set>
#include <string>

#include "formats/bundle_layout.h"
#include "runtime/core/dtype.h"
#include "formats/features.h"
#include "runtime/core/status.h"
#include "runtime/core/variant_select.h"
#include "runtime/core/verify.h"

namespace mgrt {
namespace {

typedef unsigned long long ull;

// Dispatch.shape's bound (mgb.fbs).
constexpr uint32_t kMaxShapeText = 256;

mgrt_status bad(const std::string& where, const std::string& what) {
  return failMessage(MGRT_INVALID_BUNDLE, where + ": " + what);
}

bool inside(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

// FlatBuffers 2.0's verifier checks only the 4-byte alignment of a vector's
// length, not of its elements: a hostile manifest can place a vector of
// 8-byte elements ([long], [BufferRange]) at a 4-byte boundary, and reading
// it is undefined behaviour. The writer always aligns them.
template <class V>
bool elementsAligned(const V* v) {
  // An empty vector (a rank-0 tensor's shape) has no element to misread,
  // and FlatBuffers does not pad it.
  return !v || v->size() == 0 || reinterpret_cast<uintptr_t>(v->Data()) % 8 == 0;
}

// Structure of every variant (whether or not this device can run it):
// a bundle whose fallback is broken is broken everywhere.
mgrt_status checkVariant(const mgb::KernelVariant& v, const std::string& where) {
  const auto* spirv = v.spirv();
  if (!spirv || spirv->size() < 5) return bad(where, "SPIR-V is missing or shorter than its header");
  const uint64_t hash = mgb::fnv1a(reinterpret_cast<const uint8_t*>(spirv->data()),
                                   size_t(spirv->size()) * 4);
  if (hash != v.hash()) return bad(where, "hash does not match its SPIR-V (corrupted kernel)");
  // A SPIR-V newer than 1.6 is not malformed, only beyond every device this
  // runtime knows: chooseVariant skips it and says so if nothing else fits.
  const uint32_t version = spirv->Get(1);
  if (spirv->Get(0) == 0x07230203 && (version & 0xff0000ffu) == 0 && version > 0x00010600u) return MGRT_OK;
  if ((uint32_t(v.features()) & ~mgb::kKnownFeatures) != 0)
    return bad(where, format("needs unknown device features (bits 0x%x)", uint32_t(v.features()) & ~mgb::kKnownFeatures));
  const auto* coop = v.cooperative_matrix();
  const uint32_t coopFeatures = uint32_t(mgb::Feature::CooperativeMatrixNV) | uint32_t(mgb::Feature::CooperativeMatrixKHR);
  if (coop && coop->size() != 0 && (coop->size() != 3 || (uint32_t(v.features()) & coopFeatures) == 0))
    return bad(where, "cooperative_matrix must be an M, N, K shape on a variant that needs cooperative matrices");
  const auto* ls = v.local_size();
  if (!ls || ls->size() != 3) return bad(where, "local_size must have 3 entries");
  uint32_t local[3];
  for (uint32_t a = 0; a < 3; ++a) {
    local[a] = ls->Get(a);
    if (local[a] == 0) return bad(where, format("local_size[%u] is 0", a));
  }
  return checkSpirv(spirv->data(), spirv->size(), local, uint32_t(v.features()), where);
}

mgrt_status checkKernel(const mgb::Kernel& k, size_t i, const DeviceLimits& lim, uint32_t* chosen) {
  const std::string where = label("kernel", i, k.name());
  if (!k.variants() || k.variants()->size() == 0) return bad(where, "has no variants");
  for (uint32_t v = 0; v < k.variants()->size(); ++v)
    MGRT_TRY(checkVariant(*k.variants()->Get(v), where + format(" variant %u", v)));
  if (uint64_t(k.num_bindings()) + 1 + (k.stream() ? 1 : 0) > lim.maxStorageBuffersPerStage)
    return failMessage(MGRT_UNSUPPORTED,
                       where + format(": %u tensor bindings + params%s exceed the device's %u storage buffers per stage",
                                      k.num_bindings(), k.stream() ? " + stream counters" : "",
                                      lim.maxStorageBuffersPerStage));
  for (uint32_t v = 0; v < k.variants()->size(); ++v) {
    const mgb::KernelVariant& kv = *k.variants()->Get(v);
    MGRT_TRY(checkSpirvInterface(kv.spirv()->data(), kv.spirv()->size(), k.num_bindings(), k.stream(),
                                 where + format(" variant %u", v)));
  }
  return chooseVariant(k, where, lim, chosen);
}

mgrt_status checkTensor(const mgb::Bundle& b, const mgb::Tensor& t, size_t i) {
  const std::string where = label("tensor", i, t.name());
  if (!isValidDType(t.dtype())) return bad(where, format("dtype %u is not a known dtype", unsigned(t.dtype())));
  if (!canStoreOnDevice(t.dtype(), t.device_dtype()))
    return bad(where, format("device dtype %s cannot hold external dtype %s (expected %s)",
                             dtypeName(t.device_dtype()), dtypeName(t.dtype()),
                             dtypeName(deviceDTypeFor(t.dtype()))));
  if (!elementsAligned(t.shape())) return bad(where, "shape vector is not 8-byte aligned");
  uint64_t numel = 0;
  if (!shapeNumel(t.shape(), &numel)) return bad(where, "shape has a negative or overflowing dimension");
  const uint64_t width = deviceElementSize(t.device_dtype());
  if (t.size() != numel * width)
    return bad(where, format("size %llu bytes but its %llu elements need %llu",
                             (ull)t.size(), (ull)numel, (ull)(numel * width)));
  if (t.arena() >= b.arenas()->size())
    return bad(where, format("arena %u does not exist (%u arenas)", t.arena(), b.arenas()->size()));
  const uint64_t arenaSize = b.arenas()->Get(t.arena())->size();
  if (t.offset() % 4 != 0) return bad(where, format("offset %llu is not a multiple of 4", (ull)t.offset()));
  if (!inside(t.offset(), t.size(), arenaSize))
    return bad(where, format("range [%llu, +%llu) outside arena %u of %llu bytes", (ull)t.offset(),
                             (ull)t.size(), t.arena(), (ull)arenaSize));
  return MGRT_OK;
}

mgrt_status checkDispatch(const mgb::Bundle& b, const mgb::Dispatch& d, const std::string& where,
                          const DeviceLimits& lim, const std::vector<uint32_t>& variants) {
  if (d.kernel() >= b.kernels()->size())
    return bad(where, format("kernel %u does not exist (%u kernels)", d.kernel(), b.kernels()->size()));
  const mgb::Kernel& k = *b.kernels()->Get(d.kernel());
  if (!elementsAligned(d.bindings())) return bad(where, "bindings vector is not 8-byte aligned");
  const uint32_t nb = d.bindings() ? d.bindings()->size() : 0;
  if (nb != k.num_bindings())
    return bad(where, format("%u bindings but kernel %u expects %u", nb, d.kernel(), k.num_bindings()));
  if (d.params() && uint64_t(d.params()->size()) * 4 > lim.maxStorageBufferRange)
    return failMessage(MGRT_UNSUPPORTED, where + ": params exceed the device's maxStorageBufferRange");
  for (uint32_t j = 0; j < nb; ++j) {
    const mgb::BufferRange* r = d.bindings()->Get(j);
    const std::string at = where + format(" binding %u", j + 1);
    if (r->arena() >= b.arenas()->size())
      return bad(at, format("arena %u does not exist (%u arenas)", r->arena(), b.arenas()->size()));
    const uint64_t arenaSize = b.arenas()->Get(r->arena())->size();
    if (r->size() == 0 || r->size() % 4 != 0)
      return bad(at, format("size %llu is not a positive multiple of 4", (ull)r->size()));
    if (r->offset() % 4 != 0 || r->offset() % lim.minStorageBufferOffsetAlignment != 0)
      return bad(at, format("offset %llu is not a multiple of the device's storage buffer alignment %llu",
                            (ull)r->offset(), (ull)lim.minStorageBufferOffsetAlignment));
    if (!inside(r->offset(), r->size(), arenaSize))
      return bad(at, format("range [%llu, %llu) outside arena %u of %llu bytes", (ull)r->offset(),
                            (ull)(r->offset() + r->size()), r->arena(), (ull)arenaSize));
    if (r->size() > lim.maxStorageBufferRange)
      return failMessage(MGRT_UNSUPPORTED, at + format(": %llu bytes exceed the device's maxStorageBufferRange %llu",
                                                      (ull)r->size(), (ull)lim.maxStorageBufferRange));
  }
  if (d.shape() && d.shape()->size() > kMaxShapeText)  // profiling metadata, shown to users
    return bad(where, format("shape text is %u bytes, more than %u", d.shape()->size(), kMaxShapeText));
  if (!d.groups() || d.groups()->size() != 3) return bad(where, "groups must have 3 entries");
  uint32_t groups[3];
  MGRT_TRY(dispatchGroups(k, variants[d.kernel()], d, where, groups));
  for (uint32_t a = 0; a < 3; ++a) {
    const uint32_t g = groups[a];
    if (g == 0) return bad(where, format("groups[%u] is 0", a));
    if (g > lim.maxWorkGroupCount[a])
      return failMessage(MGRT_UNSUPPORTED, where + format(": groups[%u] = %u exceeds the device limit %u",
                                                         a, g, lim.maxWorkGroupCount[a]));
  }
  return MGRT_OK;
}

// Inputs/outputs: valid, named, unique; inputs writable and disjoint.
mgrt_status checkInterface(const mgb::Bundle& b, const mgb::EntryPoint& e, const std::string& where) {
  const auto* tensors = b.tensors();
  for (int pass = 0; pass < 2; ++pass) {
    const auto* list = pass == 0 ? e.inputs() : e.outputs();
    const char* kind = pass == 0 ? "input" : "output";
    if (!list) continue;
    std::set<std::string> names;
    for (uint32_t j = 0; j < list->size(); ++j) {
      const uint32_t ti = list->Get(j);
      if (ti >= tensors->size())
        return bad(where, format("%s %u: tensor %u does not exist (%u tensors)", kind, j, ti, tensors->size()));
      const mgb::Tensor* t = tensors->Get(ti);
      if (!t->name() || t->name()->size() == 0) return bad(where, format("%s %u: tensor %u has no name", kind, j, ti));
      if (!names.insert(t->name()->str()).second)
        return bad(where, format("%s name '%s' appears twice", kind, t->name()->c_str()));
      if (pass == 1) continue;
      if (b.arenas()->Get(t->arena())->kind() == mgb::ArenaKind::Weights)
        return bad(where, format("input '%s' lies in the read-only weights arena", t->name()->c_str()));
      if (b.arenas()->Get(t->arena())->kind() == mgb::ArenaKind::State)
        return bad(where, format("input '%s' lies in a State arena (state is written through mgrt_model_write_state)",
                                 t->name()->c_str()));
      for (uint32_t k = 0; k < j; ++k) {
        const mgb::Tensor* u = tensors->Get(list->Get(k));
        if (u->arena() == t->arena() && t->offset() < u->offset() + u->size() &&
            u->offset() < t->offset() + t->size())
          return bad(where, format("inputs '%s' and '%s' overlap", u->name()->c_str(), t->name()->c_str()));
      }
    }
  }
  return MGRT_OK;
}

}  // namespace

mgrt_status verifyManifest(const mgb::Bundle& b, uint64_t weightsSize, const DeviceLimits& lim,
                           std::vector<uint32_t>* variants) {
  if (!b.kernels() || !b.arenas() || !b.tensors() || !b.entry_points())
    return fail(MGRT_INVALID_BUNDLE, "manifest lacks kernels, arenas, tensors or entry_points");
  variants->assign(b.kernels()->size(), 0);
  for (uint32_t i = 0; i < b.kernels()->size(); ++i)
    MGRT_TRY(checkKernel(*b.kernels()->Get(i), i, lim, &(*variants)[i]));

  const auto* arenas = b.arenas();
  if (arenas->size() == 0 || arenas->Get(0)->kind() != mgb::ArenaKind::Weights)
    return fail(MGRT_INVALID_BUNDLE, "arena 0 must be the Weights arena");
  for (uint32_t i = 0; i < arenas->size(); ++i) {
    const mgb::ArenaKind kind = arenas->Get(i)->kind();
    if (uint8_t(kind) > uint8_t(mgb::ArenaKind::State))
      return fail(MGRT_INVALID_BUNDLE, "arena %u: unknown kind %u", i, unsigned(kind));
    if (i > 0 && kind == mgb::ArenaKind::Weights)
      return fail(MGRT_INVALID_BUNDLE, "arena %u: only arena 0 may be a Weights arena", i);
  }
  // The data section holds arena 0's bytes, then State arenas' initial
  // bytes; it must end exactly where the last of them does.
  uint64_t dataEnd = arenas->Get(0)->size();
  for (uint32_t i = 0; i < arenas->size(); ++i) {
    const mgb::Arena& a = *arenas->Get(i);
    if (a.init_offset() == 0 && a.init_size() == 0) continue;
    if (a.kind() != mgb::ArenaKind::State)
      return fail(MGRT_INVALID_BUNDLE, "arena %u: only State arenas have initial contents", i);
    if (a.init_size() > a.size())
      return fail(MGRT_INVALID_BUNDLE, "arena %u: %llu initial bytes exceed its size %llu", i, (ull)a.init_size(),
                  (ull)a.size());
    if (a.init_offset() < arenas->Get(0)->size() || !inside(a.init_offset(), a.init_size(), weightsSize))
      return fail(MGRT_INVALID_BUNDLE, "arena %u: initial bytes [%llu, +%llu) outside the data section after the weights (%llu bytes)",
                  i, (ull)a.init_offset(), (ull)a.init_size(), (ull)weightsSize);
    dataEnd = std::max(dataEnd, a.init_offset() + a.init_size());
  }
  if (dataEnd != weightsSize)
    return fail(MGRT_INVALID_BUNDLE, "weights section is %llu bytes but arena 0 (Weights) and the state initializers end at %llu",
                (ull)weightsSize, (ull)dataEnd);

  for (uint32_t i = 0; i < b.tensors()->size(); ++i) MGRT_TRY(checkTensor(b, *b.tensors()->Get(i), i));

  if (b.state()) {  // named state tensors: in State arenas, unique names
    std::set<std::string> stateNames;
    for (uint32_t j = 0; j < b.state()->size(); ++j) {
      const uint32_t ti = b.state()->Get(j);
      if (ti >= b.tensors()->size())
        return fail(MGRT_INVALID_BUNDLE, "state %u: tensor %u does not exist (%u tensors)", j, ti, b.tensors()->size());
      const mgb::Tensor* t = b.tensors()->Get(ti);
      if (!t->name() || t->name()->size() == 0) return fail(MGRT_INVALID_BUNDLE, "state %u: tensor %u has no name", j, ti);
      if (b.arenas()->Get(t->arena())->kind() != mgb::ArenaKind::State)
        return fail(MGRT_INVALID_BUNDLE, "state '%s' is not in a State arena", t->name()->c_str());
      if (!stateNames.insert(t->name()->str()).second)
        return fail(MGRT_INVALID_BUNDLE, "state name '%s' appears twice", t->name()->c_str());
    }
  }

  if (b.entry_points()->size() == 0) return fail(MGRT_INVALID_BUNDLE, "bundle has no entry points");
  std::set<std::string> names;
  for (uint32_t i = 0; i < b.entry_points()->size(); ++i) {
    const mgb::EntryPoint& e = *b.entry_points()->Get(i);
    const std::string where = label("entry point", i, e.name());
    if (!e.name() || e.name()->size() == 0) return bad(where, "has no name");
    if (!names.insert(e.name()->str()).second) return bad(where, "name appears twice");
    MGRT_TRY(checkInterface(b, e, where));
    if (!e.dispatches()) continue;
    for (uint32_t j = 0; j < e.dispatches()->size(); ++j) {
      const mgb::Dispatch& d = *e.dispatches()->Get(j);
      const std::string at = format("entry point '%s' dispatch %u (node '%s')", e.name()->c_str(), j,
                                    d.node() ? d.node()->c_str() : "");
      MGRT_TRY(checkDispatch(b, d, at, lim, *variants));
    }
  }
  return verifyCheck(b);
}

}  // namespace mgrt
