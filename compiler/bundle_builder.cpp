#include "compiler/bundle_builder.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "kernels/lower.h"
#include "kernels/kernel_entry.h"
#include "passes/plan/schedule.h"

namespace mgc {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

uint64_t alignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

constexpr uint32_t kWeightsArena = 0, kStateArena = 2;  // arena 1: activations

// Host data converted to its device dtype (numel * dtypeSize(dev) bytes).
std::shared_ptr<std::vector<uint8_t>> convertedWords(const HostTensor& t, DType dev) {
  HostTensor d(TensorType{dev, t.type.shape});
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (isFloat(dev)) d.setF(i, t.getF(i));
    else d.setI(i, t.getI(i));
  }
  return std::make_shared<std::vector<uint8_t>>(std::move(d.data));
}

// Blocks OR-ed together (a loop the compiler vectorizes; a byte-wise
// early-exit scan of AdamW's moments took ~10% of a SmolLM2 train compile).
bool allZero(const HostTensor& t) {
  const uint8_t* p = t.data.data();
  size_t n = t.data.size();
  constexpr size_t kBlock = 4096;
  for (; n >= kBlock; n -= kBlock, p += kBlock) {
    uint8_t any = 0;
    for (size_t i = 0; i < kBlock; ++i) any |= p[i];
    if (any) return false;
  }
  return std::all_of(p, p + n, [](uint8_t b) { return b == 0; });
}

mgb::TensorEntry tensorEntry(const Value& val, uint32_t arena, uint64_t offset, uint64_t size) {
  mgb::TensorEntry t;
  t.name = val.name;
  t.dtype = uint8_t(val.type.dtype);
  t.deviceDtype = uint8_t(deviceDType(val.type.dtype));
  t.shape = val.type.shape;
  t.arena = arena;
  t.offset = offset;
  // A zero-element tensor keeps a 4-byte slot (a dispatch binding is never
  // empty) but declares 0 bytes: what its elements need, as the runtime checks.
  t.size = val.type.numel() == 0 ? 0 : size;
  return t;
}

}  // namespace

BundleBuilder::DataPiece BundleBuilder::devicePiece(const std::shared_ptr<const HostTensor>& t, DType dev,
                                                   uint64_t offset) {
  DataPiece p;
  p.offset = offset;
  if (dev == t->type.dtype) {
    p.keep = t;
    p.data = t->data.data();
    p.size = t->data.size();
  } else {
    auto words = convertedWords(*t, dev);
    p.data = words->data();
    p.size = words->size();
    p.keep = std::move(words);
  }
  return p;
}

void BundleBuilder::appendSpans(const std::vector<DataPiece>& pieces, uint64_t end, std::vector<mgb::DataSpan>& out) {
  uint64_t at = 0;
  for (const DataPiece& p : pieces) {
    if (p.offset > at) out.push_back({nullptr, p.offset - at, nullptr});
    if (p.size) out.push_back({p.data, p.size, p.keep});
    at = p.offset + p.size;
  }
  if (end > at) out.push_back({nullptr, end - at, nullptr});
}

TensorSlot BundleBuilder::stateSlot(const Graph& g, ValueId v) {
  const Value& val = g.value(v);
  auto it = state_.find(val.name);
  if (it != state_.end()) {
    if (it->second.type != val.type)
      throw Error(source_ + ": state '" + val.name + "' is " + val.type.str() + " in one entry point and " +
                  it->second.type.str() + " in another");
    return {int(kStateArena), it->second.offset, it->second.size};
  }
  StateSlot s;
  s.type = val.type;
  s.offset = stateBytes_;
  s.size = deviceBytes(val.type);
  stateBytes_ = alignUp(stateBytes_ + s.size, kArenaAlign);
  // Only a state with nonzero initial values extends the stored initial
  // bytes: the arena's rest starts as zeros (mgb.fbs Arena), so a train
  // bundle does not store its optimizer moments, nor a generation bundle
  // its KV cache.
  if (val.initial && !allZero(*val.initial)) {
    stateInit_.push_back(devicePiece(val.initial, deviceDType(val.type.dtype), s.offset));
    stateInitBytes_ = s.offset + s.size;
  }
  spec_.tensors.push_back(tensorEntry(val, kStateArena, s.offset, s.size));
  s.tensor = uint32_t(spec_.tensors.size() - 1);
  spec_.state.push_back(s.tensor);
  state_[val.name] = s;
  stateOrder_.push_back(val.name);
  return {int(kStateArena), s.offset, s.size};
}

// A kernel that declares specialization constants (kernels/specialize.h)
// gets one copy per distinct set of the params words they mirror; the
// others one entry for all their dispatches. Copies are built in finish()
// (buildKernels): those with a generated program compile GLSL.
uint32_t BundleBuilder::kernelIndex(const DispatchPlan& p) {
  const KernelBinary* kb = findKernel(p.kernel);
  if (!kb) throw Error(source_ + ": node '" + p.node + "': no kernel named '" + p.kernel + "'");
  auto [it, inserted] =
      kernelIndex_.emplace(specializeKernels_ ? specializationKey(*kb, p.params) : p.kernel, uint32_t(spec_.kernels.size()));
  if (inserted) {
    spec_.kernels.emplace_back();
    pendingKernels_.push_back({it->second, kb, p.params, p.node});
  }
  return it->second;
}

// The bundle's kernels, on up to 8 threads (each copy with a generated
// program is a GLSL compile of a few milliseconds).
void BundleBuilder::buildKernels() {
  const size_t n = pendingKernels_.size();
  std::vector<std::string> errors(n);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < n;) {
      const PendingKernel& k = pendingKernels_[i];
      try {
        spec_.kernels[k.index] = specializeKernels_ ? specializedKernelEntry(*k.kb, k.params) : kernelEntry(*k.kb);
      } catch (const Error& e) {
        errors[i] = source_ + ": node '" + k.node + "': " + e.what();
      }
    }
  };
  const size_t threads = std::min<size_t>({n, 8, std::max(1u, std::thread::hardware_concurrency())});
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  pendingKernels_.clear();
  for (const std::string& e : errors)
    if (!e.empty()) throw Error(e);
}

MemoryPlanInput memoryPlanInput(const Graph& g, const std::vector<std::vector<DispatchPlan>>& plans) {
  MemoryPlanInput in;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& n = g.nodes[k];
    const bool alias = isAliasOp(n);
    const OpClass cls = opInfo(n.op).cls;
    in.isAlias.push_back(alias);
    in.mayRunInPlace.push_back(!alias && (cls == OpClass::Unary || cls == OpClass::Binary) &&
                               deviceDType(g.type(n.outputs[0]).dtype) == deviceDType(g.type(n.inputs[0]).dtype));
    in.elementwise.push_back(readsWhereItWrites(plans[k]));
    in.earlyOutput.push_back(initializesOutputFirst(plans[k]));
    in.dispatches.push_back(int(plans[k].size()));
  }
  return in;
}

void BundleBuilder::addEntryPoint(const std::string& name, const Graph& g, std::vector<PhaseTime>* phases) {
  // Lowering: node → dispatches.
  auto t0 = Clock::now();
  std::vector<std::vector<DispatchPlan>> plans(g.nodes.size());
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    if (isAliasOp(g.nodes[k])) continue;
    try {
      plans[k] = lowerNode(g, g.nodes[k]);
    } catch (const Error& e) {
      throw Error(source_ + ": " + e.what());
    }
  }
  const MemoryPlanInput mpi = memoryPlanInput(g, plans);
  // Memory plan first: it decides which updates are written in place.
  const auto tPlan = Clock::now();
  MemoryPlan mem = planMemory(g, mpi);
  const double planMs = msSince(tPlan);
  // The other state updates: a copy (an identity transpose) of each new
  // value into its state tensor, after every node.
  std::vector<DispatchPlan> updates;
  for (const auto& [state, next] : g.stateUpdates) {
    if (state == next || mem.stateHome[size_t(next)] == state) continue;
    Node copy{Op::Transpose, "update:" + g.value(state).name, {next}, {state}, {}};
    std::vector<int64_t> perm(size_t(g.type(state).rank()));
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = int64_t(i);
    copy.attrs["perm"] = perm;
    try {
      for (DispatchPlan& p : lowerNode(g, copy)) updates.push_back(std::move(p));
    } catch (const Error& e) {
      throw Error(source_ + ": " + e.what());
    }
  }
  if (phases) phases->push_back({name == "infer" ? "lower" : "lower:" + name, msSince(t0) - planMs});

  // Memory plan: activations from offset 0 of arena 1 (each entry point has
  // the arena to itself), constants after the previous entry points' in
  // the plan's order, except those an earlier entry point wrote already;
  // values living in a state (in-place updates, views) take its slot.
  t0 = Clock::now();
  std::vector<size_t> constants;
  for (size_t v = 0; v < g.values.size(); ++v) {
    const Value& val = g.values[v];
    TensorSlot& slot = mem.slots[v];
    if (val.isState) slot = stateSlot(g, ValueId(v));
    else if (mem.stateHome[v] != kNoValue) slot = stateSlot(g, mem.stateHome[v]);
    else if (slot.arena == int(kWeightsArena) && val.isConstant()) constants.push_back(v);
  }
  std::sort(constants.begin(), constants.end(),
            [&](size_t a, size_t b) { return mem.slots[a].offset < mem.slots[b].offset; });
  for (size_t v : constants) {
    const Value& val = g.values[v];
    TensorSlot& slot = mem.slots[v];
    DataPiece piece = devicePiece(val.constant, deviceDType(val.type.dtype), weightsBytes_);
    auto it = written_.find(val.name);
    if (it != written_.end() && it->second.type == val.type && it->second.size == slot.size) {
      const DataPiece& earlier = weights_[it->second.piece];
      if (earlier.size == piece.size && (piece.size == 0 || std::memcmp(earlier.data, piece.data, piece.size) == 0)) {
        slot.offset = it->second.offset;  // the same tensor: read the earlier copy
        continue;
      }
    }
    slot.offset = weightsBytes_;
    weightsBytes_ += alignUp(slot.size, kArenaAlign);
    if (it == written_.end()) written_[val.name] = {val.type, slot.offset, slot.size, weights_.size()};
    weights_.push_back(std::move(piece));
  }
  for (size_t k = 0; k < g.nodes.size(); ++k) {  // in order: chains of aliases
    const Node& n = g.nodes[k];
    const Value& in = g.value(n.inputs[0]);
    if (mpi.isAlias[k] && (in.isConstant() || in.isState))
      mem.slots[size_t(n.outputs[0])] = mem.slots[size_t(n.inputs[0])];
  }
  activationBytes_ = std::max(activationBytes_, mem.activationBytes);
  if (phases) phases->push_back({name == "infer" ? "memory-plan" : "memory-plan:" + name, planMs + msSince(t0)});

  // Dispatches, barriers, inputs and outputs.
  t0 = Clock::now();
  mgb::EntryPointEntry entry;
  entry.name = name;
  std::vector<DispatchAccess> access;
  auto rangeOf = [&](ValueId v, const std::string& node) {
    const TensorSlot& s = mem.slots[size_t(v)];
    if (s.arena < 0) throw Error(source_ + ": node '" + node + "': tensor '" + g.value(v).name + "' has no storage");
    return mgb::RangeEntry{uint32_t(s.arena), s.offset, s.size};
  };
  auto emit = [&](const DispatchPlan& p) {
    mgb::DispatchEntry d;
    d.kernel = kernelIndex(p);
    d.params = p.params;
    d.node = p.node;
    for (int i = 0; i < 3; ++i) d.groups[i] = p.groups[i];
    d.items = p.items;
    d.shape = p.shape;  // profiling metadata (kernels/cost.h)
    d.flops = p.flops;
    d.bytes = p.bytes;
    DispatchAccess acc;
    for (size_t b = 0; b < p.bindings.size(); ++b) {
      mgb::RangeEntry r = rangeOf(p.bindings[b], p.node);
      ByteRange br{int(r.arena), r.offset, r.size};
      // A kernel may view a tensor as vec4s (qmatvec.comp): the binding
      // covers its last partial vec4. Tensors start 256-aligned in arenas
      // of 256-aligned size, so those bytes are inside this tensor's slot.
      r.size = alignUp(r.size, 16);
      d.bindings.push_back(r);
      (b + p.numWritten >= p.bindings.size() ? acc.writes : acc.reads).push_back(br);
    }
    if (report_) report_->recordDispatch(p);
    access.push_back(std::move(acc));
    entry.dispatches.push_back(std::move(d));
  };
  for (size_t k = 0; k < g.nodes.size(); ++k)
    for (const DispatchPlan& p : plans[k]) emit(p);
  for (const DispatchPlan& p : updates) emit(p);
  // Independent dispatches move together so they share barriers (safe on
  // the planned byte ranges: passes/plan/schedule.h).
  std::vector<size_t> order = orderByLevel(access);
  entry.dispatches = applyOrder(std::move(entry.dispatches), order);
  access = applyOrder(std::move(access), order);
  std::vector<bool> barriers = placeBarriers(access);
  EntryPointStats st;
  st.name = name;
  for (size_t i = 0; i < barriers.size(); ++i) {
    entry.dispatches[i].barrier = barriers[i];
    st.barriers += barriers[i];
  }
  auto addTensor = [&](ValueId v) {
    const Value& val = g.value(v);
    if (val.isState) return state_.at(val.name).tensor;
    mgb::RangeEntry r = rangeOf(v, "<io>");
    spec_.tensors.push_back(tensorEntry(val, r.arena, r.offset, r.size));
    return uint32_t(spec_.tensors.size() - 1);
  };
  for (ValueId v : g.inputs) entry.inputs.push_back(addTensor(v));
  for (ValueId v : g.outputs) entry.outputs.push_back(addTensor(v));
  st.dispatches = int(entry.dispatches.size());
  st.activationBytes = mem.activationBytes;
  st.naiveActivationBytes = mem.naiveActivationBytes;
  st.inPlace = mem.inPlaceCount;
  stats_.push_back(st);
  totalBarriers_ += st.barriers;
  if (spec_.entryPoints.empty()) firstPlan_ = mem;
  spec_.entryPoints.push_back(std::move(entry));
  if (phases) phases->push_back({name == "infer" ? "schedule" : "schedule:" + name, msSince(t0)});
}

mgb::BundleImage BundleBuilder::finish(std::vector<PhaseTime>* phases, bool assemble) {
  auto t0 = Clock::now();
  buildKernels();
  if (phases) phases->push_back({"kernels", msSince(t0)});
  t0 = Clock::now();
  spec_.producer = "mgc 0.1.0";
  const uint64_t weightsBytes = weightsBytes_;
  spec_.arenas = {{0, weightsBytes}, {1, activationBytes_}};
  spec_.spans.clear();
  appendSpans(weights_, weightsBytes, spec_.spans);
  if (!state_.empty()) {
    mgb::ArenaEntry s;
    s.kind = 2;
    s.size = stateBytes_;
    s.initOffset = stateInitBytes_ == 0 ? 0 : weightsBytes;  // 0, 0: all zeros
    s.initSize = stateInitBytes_;
    spec_.arenas.push_back(s);
    appendSpans(stateInit_, stateInitBytes_, spec_.spans);
  }
  mgb::BundleImage bundle = mgb::layOutBundle(spec_);
  if (assemble) bundle.assemble();
  if (phases) phases->push_back({"write-bundle", msSince(t0)});
  if (report_) {
    MemoryPlan mem = firstPlan_;
    mem.weightsBytes = weightsBytes;
    mem.activationBytes = activationBytes_;
    report_->recordMemory(mem);
    report_->recordBundle(spec_, bundle.size(), totalBarriers_);
  }
  return bundle;
}

}  // namespace mgc
