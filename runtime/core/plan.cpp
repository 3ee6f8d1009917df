// Host-side planning of a model and its sessions (see plan.h). Runs on a
// verified bundle, so indices and ranges are known good; the fuzzer's dry run
// still re-checks every range these functions produce.
#include "runtime/core/plan.h"

#include <algorithm>
#include <cstring>

#include "runtime/core/dtype.h"
#include "runtime/core/variant_select.h"
#include "runtime/core/verify.h"

namespace mgrt {
namespace {

TensorPlan describe(const mgb::Bundle& b, uint32_t index) {
  const mgb::Tensor* t = b.tensors()->Get(index);
  TensorPlan p;
  p.tensor = t;
  p.name = t->name()->str();
  p.dtype = t->dtype();
  p.deviceDtype = t->device_dtype();
  if (t->shape()) p.shape.assign(t->shape()->begin(), t->shape()->end());
  shapeNumel(t->shape(), &p.numel);  // verified: cannot fail
  p.externalBytes = size_t(p.numel * externalElementSize(p.dtype));
  p.arena = t->arena();
  p.offset = t->offset();
  p.size = t->size();
  return p;
}

}  // namespace

ParamsPlan planParams(const mgb::Bundle& b, const DeviceLimits& limits) {
  ParamsPlan plan;
  plan.align = std::max<uint64_t>(limits.minStorageBufferOffsetAlignment, 16);
  uint64_t at = 0;
  for (const mgb::EntryPoint* e : *b.entry_points()) {
    plan.offset.emplace_back();
    if (!e->dispatches()) continue;
    for (const mgb::Dispatch* d : *e->dispatches()) {
      plan.offset.back().push_back(at);
      at += paramsSlotSize(*d, plan.align);
    }
  }
  plan.size = at;
  return plan;
}

void packParams(const mgb::Bundle& b, const ParamsPlan& plan, uint8_t* dst) {
  for (uint32_t i = 0; i < b.entry_points()->size(); ++i) {
    const mgb::EntryPoint& e = *b.entry_points()->Get(i);
    if (!e.dispatches()) continue;
    for (uint32_t j = 0; j < e.dispatches()->size(); ++j) {
      const mgb::Dispatch& d = *e.dispatches()->Get(j);
      if (d.params() && d.params()->size())
        std::memcpy(dst + plan.offset[i][j], d.params()->data(), d.params()->size() * 4);
    }
  }
}

StatePlan planState(const mgb::Bundle& b) {
  StatePlan plan;
  for (uint32_t i = 0; i < b.arenas()->size(); ++i)
    if (b.arenas()->Get(i)->kind() == mgb::ArenaKind::State) plan.arenas.push_back(i);
  if (b.state())
    for (uint32_t ti : *b.state()) plan.tensors.push_back(describe(b, ti));  // verified: State-arena tensors
  return plan;
}

SessionPlan planSession(const VerifiedBundle& vb, uint32_t entry, const ParamsPlan& params) {
  const mgb::Bundle& b = *vb.manifest;
  const mgb::EntryPoint& e = *b.entry_points()->Get(entry);
  SessionPlan plan;
  plan.entry = entry;
  for (uint32_t i = 1; i < b.arenas()->size(); ++i)
    if (b.arenas()->Get(i)->kind() != mgb::ArenaKind::State) plan.arenas.push_back(i);
  // Each staging buffer holds its inputs' (outputs') device words, 16-byte aligned.
  for (int pass = 0; pass < 2; ++pass) {
    const auto* list = pass == 0 ? e.inputs() : e.outputs();
    std::vector<TensorPlan>& ios = pass == 0 ? plan.inputs : plan.outputs;
    uint64_t& at = pass == 0 ? plan.inputStagingSize : plan.outputStagingSize;
    if (!list) continue;
    for (uint32_t ti : *list) {
      TensorPlan p = describe(b, ti);
      p.stagingOffset = at;
      at += (p.size + 15) / 16 * 16;
      ios.push_back(std::move(p));
    }
  }
  if (!e.dispatches()) return plan;
  for (uint32_t j = 0; j < e.dispatches()->size(); ++j) {
    const mgb::Dispatch& d = *e.dispatches()->Get(j);
    DispatchPlan p;
    p.kernel = d.kernel();
    const uint64_t words = d.params() ? d.params()->size() : 0;
    p.params = {0, params.offset[entry][j], words ? words * 4 : 16};
    if (d.bindings())  // absent when the kernel has no tensor bindings
      for (const mgb::BufferRange* r : *d.bindings()) p.bindings.push_back({r->arena(), r->offset(), r->size()});
    // Verified: the chosen variant's grid exists and fits the device.
    (void)dispatchGroups(*b.kernels()->Get(d.kernel()), vb.variant[d.kernel()], d, "", p.groups);
    p.barrier = d.barrier();
    plan.dispatches.push_back(std::move(p));
  }
  return plan;
}

}  // namespace mgrt
