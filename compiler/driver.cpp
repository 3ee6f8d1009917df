// The driver: import → graph passes → lowering → memory plan → schedule →
// bundle. Each phase is timed for the report.
#include "compiler/driver.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/onnx/import.h"
#include "compiler/report.h"
#include "formats/bundle_writer.h"
#include "kernels/lower.h"
#include "kernels/registry.h"
#include "passes/memory_plan.h"
#include "passes/pipeline.h"
#include "passes/schedule.h"

namespace mgc {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(path + ": cannot open file");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Constant data converted to the device representation (32-bit words).
void appendDeviceWords(const HostTensor& t, DType dev, std::vector<uint8_t>& out, uint64_t offset) {
  uint8_t* dst = out.data() + offset;
  if (dev == DType::F32 && t.type.dtype == DType::F32) {
    std::memcpy(dst, t.data.data(), t.data.size());
    return;
  }
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (dev == DType::F32) {
      float f = float(t.getF(i));
      std::memcpy(dst + 4 * i, &f, 4);
    } else {
      int32_t v = int32_t(t.getI(i));
      std::memcpy(dst + 4 * i, &v, 4);
    }
  }
}

}  // namespace

Graph loadModel(const std::string& path) {
  if (endsWith(path, ".mgir")) return parseGraph(readFile(path), path);
  return importOnnx(path);
}

namespace {

CompileResult compileImpl(Graph g, const std::string& source, const CompileOptions& opts,
                          std::vector<PhaseTime> phases) {
  CompileResult result;
  result.phases = std::move(phases);
  ReportBuilder report(source);
  report.recordImportedOps(g);

  // Graph passes.
  for (const Pass& pass : graphPipeline()) {
    auto t0 = Clock::now();
    try {
      pass.run(g);
    } catch (const Error& e) {
      throw Error(source + ": pass '" + pass.name + "': " + e.what());
    }
    result.phases.push_back({pass.name, msSince(t0)});
    if (opts.printIrAfterAll) std::fprintf(stderr, "// ----- IR after %s -----\n%s\n", pass.name, printGraph(g, true).c_str());
  }

  // Lowering: node → dispatches.
  auto t0 = Clock::now();
  MemoryPlanInput mpi;
  std::vector<std::vector<DispatchPlan>> plans(g.nodes.size());
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& n = g.nodes[k];
    bool alias = isAliasOp(n);
    mpi.isAlias.push_back(alias);
    OpClass cls = opInfo(n.op).cls;
    mpi.mayRunInPlace.push_back(!alias && (cls == OpClass::Unary || cls == OpClass::Binary) &&
                                deviceDType(g.type(n.outputs[0]).dtype) == deviceDType(g.type(n.inputs[0]).dtype));
    if (alias) continue;
    try {
      plans[k] = lowerNode(g, n);
    } catch (const Error& e) {
      throw Error(source + ": " + e.what());
    }
  }
  result.phases.push_back({"lower", msSince(t0)});

  // Memory plan.
  t0 = Clock::now();
  MemoryPlan mem = planMemory(g, mpi);
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& n = g.nodes[k];
    if (mpi.isAlias[k] && g.value(n.inputs[0]).isConstant())
      mem.slots[size_t(n.outputs[0])] = mem.slots[size_t(n.inputs[0])];
  }
  result.phases.push_back({"memory-plan", msSince(t0)});

  // Bundle spec: kernels (deduplicated), dispatches, barriers, tensors.
  t0 = Clock::now();
  mgb::BundleSpec spec;
  spec.producer = "mgc 0.1.0";
  spec.arenas = {{0, mem.weightsBytes}, {1, mem.activationBytes}};
  spec.weights.assign(mem.weightsBytes, 0);
  for (size_t v = 0; v < g.values.size(); ++v) {
    const Value& val = g.values[v];
    const TensorSlot& slot = mem.slots[v];
    if (val.isConstant() && slot.arena == 0)
      appendDeviceWords(*val.constant, deviceDType(val.type.dtype), spec.weights, slot.offset);
  }

  std::map<std::string, uint32_t> kernelIndex;
  mgb::EntryPointEntry entry;
  entry.name = "infer";
  std::vector<DispatchAccess> access;
  auto rangeOf = [&](ValueId v, const std::string& node) {
    const TensorSlot& s = mem.slots[size_t(v)];
    if (s.arena < 0) throw Error(source + ": node '" + node + "': tensor '" + g.value(v).name + "' has no storage");
    return mgb::RangeEntry{uint32_t(s.arena), s.offset, s.size};
  };
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    for (const DispatchPlan& p : plans[k]) {
      auto [it, inserted] = kernelIndex.emplace(p.kernel, uint32_t(spec.kernels.size()));
      if (inserted) {
        const KernelBinary* kb = findKernel(p.kernel);
        if (!kb) throw Error(source + ": node '" + p.node + "': no kernel named '" + p.kernel + "'");
        mgb::KernelEntry ke;
        ke.name = kb->name;
        ke.spirv.assign(kb->spirv, kb->spirv + kb->spirvWords);
        ke.msl = kb->msl;
        for (int i = 0; i < 3; ++i) ke.localSize[i] = kb->localSize[i];
        ke.numBindings = kb->numBindings;
        spec.kernels.push_back(std::move(ke));
      }
      mgb::DispatchEntry d;
      d.kernel = it->second;
      d.params = p.params;
      d.node = p.node;
      for (int i = 0; i < 3; ++i) d.groups[i] = p.groups[i];
      DispatchAccess acc;
      for (size_t b = 0; b < p.bindings.size(); ++b) {
        mgb::RangeEntry r = rangeOf(p.bindings[b], p.node);
        d.bindings.push_back(r);
        ByteRange br{int(r.arena), r.offset, r.size};
        (b + p.numWritten >= p.bindings.size() ? acc.writes : acc.reads).push_back(br);
      }
      report.recordDispatch(p);
      access.push_back(std::move(acc));
      entry.dispatches.push_back(std::move(d));
    }
  }
  std::vector<bool> barriers = placeBarriers(access);
  int barrierCount = 0;
  for (size_t i = 0; i < barriers.size(); ++i) {
    entry.dispatches[i].barrier = barriers[i];
    barrierCount += barriers[i];
  }
  auto addTensor = [&](ValueId v) {
    const Value& val = g.value(v);
    mgb::TensorEntry t;
    t.name = val.name;
    t.dtype = uint8_t(val.type.dtype);
    t.deviceDtype = uint8_t(deviceDType(val.type.dtype));
    t.shape = val.type.shape;
    mgb::RangeEntry r = rangeOf(v, "<io>");
    t.arena = r.arena;
    t.offset = r.offset;
    t.size = r.size;
    spec.tensors.push_back(std::move(t));
    return uint32_t(spec.tensors.size() - 1);
  };
  for (ValueId v : g.inputs) entry.inputs.push_back(addTensor(v));
  for (ValueId v : g.outputs) entry.outputs.push_back(addTensor(v));
  spec.entryPoints.push_back(std::move(entry));
  result.phases.push_back({"schedule", msSince(t0)});

  t0 = Clock::now();
  result.bundle = mgb::writeBundle(spec);
  result.phases.push_back({"write-bundle", msSince(t0)});

  report.recordMemory(mem);
  report.recordBundle(spec, result.bundle.size(), barrierCount);
  report.recordPhases(result.phases);
  result.reportJson = report.json();
  result.summary = report.summary();
  return result;
}

}  // namespace

CompileResult compileGraph(Graph g, const std::string& source, const CompileOptions& opts) {
  return compileImpl(std::move(g), source, opts, {});
}

CompileResult compileFile(const std::string& path, const CompileOptions& opts) {
  auto t0 = Clock::now();
  Graph g = loadModel(path);
  return compileImpl(std::move(g), path, opts, {{"import", msSince(t0)}});
}

}  // namespace mgc
