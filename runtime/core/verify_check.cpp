// The self-check section (mgb.fbs Check, mgc compile --embed-check),
// verified like the rest of the manifest: it names an entry point that
// binds no State arena (running it must neither depend on nor change the
// model's state), holds one data vector per input and output of that entry
// point, each exactly the tensor's size in its external dtype, and a finite
// tolerance >= 0.
#include <cmath>

#include "runtime/core/dtype.h"
#include "runtime/core/status.h"
#include "runtime/core/verify.h"

namespace mgrt {
namespace {

typedef unsigned long long ull;

mgrt_status bad(const std::string& what) { return failMessage(MGRT_INVALID_BUNDLE, "check: " + what); }

mgrt_status checkData(const mgb::Bundle& b, const flatbuffers::Vector<uint32_t>* tensors,
                      const flatbuffers::Vector<flatbuffers::Offset<mgb::CheckTensor>>* data, const char* kind) {
  const uint32_t want = tensors ? tensors->size() : 0;
  const uint32_t got = data ? data->size() : 0;
  if (got != want) return bad(format("%u %ss but the entry point has %u", got, kind, want));
  for (uint32_t i = 0; i < want; ++i) {
    const mgb::Tensor& t = *b.tensors()->Get(tensors->Get(i));  // indices verified with the entry point
    uint64_t numel = 0;
    shapeNumel(t.shape(), &numel);  // verified with the tensor
    const uint64_t bytes = numel * externalElementSize(t.dtype());
    const auto* d = data->Get(i)->data();
    const uint64_t have = d ? d->size() : 0;
    if (have != bytes)
      return bad(format("%s %u ('%s', %s): %llu bytes of data but it needs %llu", kind, i, t.name()->c_str(),
                        dtypeName(t.dtype()), (ull)have, (ull)bytes));
  }
  return MGRT_OK;
}

// Whether the entry point reads or writes a State arena (a tensor or a binding).
bool touchesState(const mgb::Bundle& b, const mgb::EntryPoint& e) {
  auto isState = [&](uint32_t arena) { return b.arenas()->Get(arena)->kind() == mgb::ArenaKind::State; };
  for (const auto* list : {e.inputs(), e.outputs()})
    if (list)
      for (uint32_t ti : *list)
        if (isState(b.tensors()->Get(ti)->arena())) return true;
  if (e.dispatches())
    for (const mgb::Dispatch* d : *e.dispatches())
      if (d->bindings())
        for (const mgb::BufferRange* r : *d->bindings())
          if (isState(r->arena())) return true;
  return false;
}

}  // namespace

const mgb::EntryPoint* checkEntryPoint(const mgb::Bundle& b) {
  const mgb::Check* c = b.check();
  if (!c || !c->entry_point()) return nullptr;
  for (const mgb::EntryPoint* e : *b.entry_points())
    if (e->name() && e->name()->str() == c->entry_point()->str()) return e;
  return nullptr;
}

mgrt_status verifyCheck(const mgb::Bundle& b) {
  const mgb::Check* c = b.check();
  if (!c) return MGRT_OK;
  if (!c->entry_point() || c->entry_point()->size() == 0) return bad("names no entry point");
  const mgb::EntryPoint* e = checkEntryPoint(b);
  if (!e) return bad(format("entry point '%s' does not exist", c->entry_point()->c_str()));
  if (touchesState(b, *e))
    return bad(format("entry point '%s' uses a State arena (its result would depend on the model's state)",
                      c->entry_point()->c_str()));
  if (!std::isfinite(c->tolerance()) || c->tolerance() < 0)
    return bad(format("tolerance %g is not a finite number >= 0", c->tolerance()));
  MGRT_TRY(checkData(b, e->inputs(), c->inputs(), "input"));
  return checkData(b, e->outputs(), c->outputs(), "output");
}

}  // namespace mgrt
