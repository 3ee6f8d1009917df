// GPU differential test: every op case (op_cases.cpp) as a one-node bundle
// built here from the kernel registry and lowerNode, run through the
// libmgrt C API (lavapipe in CI, validation on), compared with the CPU
// reference evaluator (ir/eval.h).
#include <algorithm>
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "ir/eval.h"
#include "formats/bundle_writer.h"
#include "formats/features.h"
#include "kernels/lower.h"
#include "kernels/kernel_entry.h"
#include "op_cases.h"
#include "runtime/include/mgrt.h"

using namespace mgc;

namespace {

constexpr uint8_t kWeights = 0, kActivations = 1;
constexpr uint64_t kAlign = 256;

// A bundle with one entry point "infer" computing the graph's single node:
// every value gets a 256-aligned slot in the activations arena (except
// the results written in place, which share their state input's slot:
// inPlaceStateInput, ir/graph.h).
// `specialize`: kernels with specialization constants as the compiler
// writes them for each dispatch (kernels/specialize.h), else generic.
std::vector<uint8_t> bundleFor(const Graph& g, const std::vector<DispatchPlan>& plans, bool specialize) {
  mgb::BundleSpec spec;
  spec.producer = "test_kernels_gpu";
  spec.weights.assign(kAlign, 0);  // arena 0 unused, but present
  spec.arenas.push_back({kWeights, kAlign});
  std::map<ValueId, uint32_t> tensorOf;
  uint64_t offset = 0;
  auto addTensor = [&](ValueId v) {
    if (tensorOf.count(v)) return tensorOf[v];
    const Value& val = g.value(v);
    mgb::TensorEntry t;
    t.name = val.name;
    t.dtype = uint8_t(val.type.dtype);
    t.deviceDtype = uint8_t(deviceDType(val.type.dtype));
    t.shape = val.type.shape;
    t.arena = 1;
    t.offset = offset;
    t.size = uint64_t(val.type.numel()) * 4;
    offset += (t.size + kAlign - 1) / kAlign * kAlign;
    tensorOf[v] = uint32_t(spec.tensors.size());
    spec.tensors.push_back(t);
    return tensorOf[v];
  };
  mgb::EntryPointEntry e;
  e.name = "infer";
  for (ValueId v : g.inputs) e.inputs.push_back(addTensor(v));
  const Node& n = g.nodes[0];
  for (size_t o = 0; o < n.outputs.size(); ++o) {
    const int state = inPlaceStateInput(n, o);
    if (state < 0) continue;  // in place: the output is its state input's bytes under its own name
    mgb::TensorEntry t = spec.tensors[tensorOf[n.inputs[size_t(state)]]];
    t.name = g.value(n.outputs[o]).name;
    tensorOf[n.outputs[o]] = uint32_t(spec.tensors.size());
    spec.tensors.push_back(t);
  }
  for (ValueId v : g.outputs) e.outputs.push_back(addTensor(v));
  std::map<std::string, uint32_t> kernelOf;
  for (const DispatchPlan& p : plans) {
    const KernelBinary* kb = findKernel(p.kernel);
    REQUIRE(kb != nullptr);
    const std::string key = specialize ? specializationKey(*kb, p.params) : p.kernel;
    if (!kernelOf.count(key)) {
      kernelOf[key] = uint32_t(spec.kernels.size());
      spec.kernels.push_back(specialize ? specializedKernelEntry(*kb, p.params) : kernelEntry(*kb));
    }
    mgb::DispatchEntry d;
    d.kernel = kernelOf[key];
    d.params = p.params;
    for (ValueId v : p.bindings) {
      const mgb::TensorEntry& t = spec.tensors[addTensor(v)];
      // As compiler/bundle_builder.cpp: a binding covers the tensor's last
      // partial vec4 (kernels view tensors as vec4s; with robust buffer
      // access NVIDIA zeroes a whole vec4 that ends past the binding).
      d.bindings.push_back({t.arena, t.offset, (t.size + 15) / 16 * 16});
    }
    std::copy(p.groups, p.groups + 3, d.groups);
    d.items = p.items;
    d.barrier = true;
    d.node = p.node;
    e.dispatches.push_back(d);
  }
  spec.arenas.push_back({kActivations, offset});
  spec.entryPoints.push_back(e);
  return mgb::writeBundle(spec);
}

// Validation on, unless MGRT_VALIDATION=0 (a GPU machine without the
// layers, e.g. bench/bin's copy on the H200: the variants still checked).
mgrt_context* makeContext(uint32_t disabledFeatures) {
  const char* v = std::getenv("MGRT_VALIDATION");
  mgrt_context_options opts{-1, !(v && std::string(v) == "0"), disabledFeatures};
  mgrt_context* c = nullptr;
  if (mgrt_context_create(&opts, &c) != MGRT_OK) FAIL("no Vulkan device: " << mgrt_last_error());
  return c;
}

// The device with every feature it has, and the same device with none, at
// most 256 invocations and 32 KiB of workgroup memory (libmgrt's
// MGRT_MAX_INVOCATIONS, MGRT_MAX_SHARED_BYTES: lavapipe's limits), so that
// kernels with feature, workgroup-size or shared-memory variants are checked
// in each.
mgrt_context* gpu() {
  static mgrt_context* ctx = makeContext(0);
  return ctx;
}
mgrt_context* portableGpu() {
  static mgrt_context* ctx = [] {
    setenv("MGRT_MAX_INVOCATIONS", "256", 1);
    setenv("MGRT_MAX_SHARED_BYTES", "32768", 1);
    mgrt_context* c = makeContext(mgb::kKnownFeatures);
    unsetenv("MGRT_MAX_INVOCATIONS");
    unsetenv("MGRT_MAX_SHARED_BYTES");
    return c;
  }();
  return ctx;
}

// Runs the case's dispatches on `ctx`; *variant = the kernel variant the
// device picked (the first one that is not portable). Every output of the node, in order.
std::vector<HostTensor> runOnGpu(mgrt_context* ctx, const test::OpCase& c, const std::vector<HostTensor>& inputs,
                    std::string* variant, bool specialize = true) {
  const Graph& g = c.graph;
  std::vector<uint8_t> bytes = bundleFor(g, lowerNode(g, g.nodes[0]), specialize);
  mgrt_model* model = nullptr;
  mgrt_session* s = nullptr;
  auto check = [](mgrt_status st, const char* what) {
    if (st != MGRT_OK) FAIL(what << ": " << mgrt_last_error());
  };
  check(mgrt_model_load(ctx, bytes.data(), bytes.size(), &model), "load");
  *variant = "portable";  // or the first kernel that took another (split-K: the middle one)
  for (int k = 0; k < mgrt_model_kernel_count(model) && *variant == "portable"; ++k)
    *variant = mgrt_model_kernel_variant(model, k);
  check(mgrt_session_create(model, "infer", &s), "session");
  for (size_t k = 0; k < inputs.size(); ++k)
    check(mgrt_session_set_input(s, g.value(g.inputs[k]).name.c_str(), inputs[k].data.data(), inputs[k].data.size()),
          "set_input");
  check(mgrt_session_run(s), "run");
  std::vector<HostTensor> out;
  for (ValueId v : g.outputs) {
    out.emplace_back(g.type(v));
    check(mgrt_session_get_output(s, g.value(v).name.c_str(), out.back().data.data(), out.back().data.size()),
          "get_output");
  }
  mgrt_session_destroy(s);
  mgrt_model_destroy(model);
  return out;
}

// Mismatching elements, described; empty if every element agrees.
std::string compare(const HostTensor& ref, const HostTensor& got, double f32Tolerance) {
  std::ostringstream why;
  int bad = 0;
  double tol = ref.type.dtype == DType::F16 ? 1e-3 : f32Tolerance;
  for (int64_t i = 0; i < ref.numel(); ++i) {
    bool ok;
    std::string a, b;
    if (isFloat(ref.type.dtype)) {
      double r = ref.getF(i), v = got.getF(i);
      ok = (std::isnan(r) && std::isnan(v)) || r == v || std::fabs(r - v) <= tol * std::max(1.0, std::fabs(r));
      a = std::to_string(r);
      b = std::to_string(v);
    } else {
      ok = ref.getI(i) == got.getI(i);
      a = std::to_string(ref.getI(i));
      b = std::to_string(got.getI(i));
    }
    if (!ok && bad++ < 5) why << "  [" << i << "] expected " << a << ", got " << b << "\n";
  }
  if (bad) why << "  " << bad << " of " << ref.numel() << " elements differ\n";
  return why.str();
}

}  // namespace

TEST_CASE("every op case on the GPU matches the CPU reference") {
  int ran = 0, variants = 0, specialized = 0;
  // MGC_OP_CASES=text[|text..]: only the cases whose label contains one
  // of them (while working on one kernel, or test_kernels_gpu_stream; each
  // prints the variant that ran, and the counts below are not checked).
  const char* only = std::getenv("MGC_OP_CASES");
  // MGC_TEST_SHORT (tools/ci_sanitize.sh): the portable and generic
  // re-runs for every 4th case only. Under the sanitizers this test checks
  // the host code (bundle writer, loader, variant choice, recorder), which
  // the re-runs of the other cases repeat with other SPIR-V; the plain
  // suite runs them all.
  const bool short_ = std::getenv("MGC_TEST_SHORT") != nullptr;
  int index = -1;
  auto selected = [&](const std::string& label) {
    const std::string list = only;
    for (size_t at = 0; at <= list.size();) {
      const size_t bar = std::min(list.find('|', at), list.size());
      if (label.find(list.substr(at, bar - at)) != std::string::npos) return true;
      at = bar + 1;
    }
    return false;
  };
  for (const test::OpCase& c : test::opCases()) {
    const Node& n = c.graph.nodes[0];
    if (isAliasOp(n)) continue;  // no dispatch: the memory planner aliases them
    if (only && !selected(c.label)) continue;
    const bool rerun = !short_ || ++index % 4 == 0;
    INFO("case '" << c.label << "' (" << c.graph.type(c.graph.outputs[0]).str() << ")");
    std::vector<HostTensor> inputs;
    std::vector<const HostTensor*> ptrs;
    for (size_t k = 0; k < c.graph.inputs.size(); ++k) inputs.push_back(test::makeInput(c, k, 1234));
    // One per node input: the graph input it reads, null for an absent one.
    for (ValueId v : n.inputs)
      ptrs.push_back(v == kNoValue ? nullptr
                                   : &inputs[size_t(std::find(c.graph.inputs.begin(), c.graph.inputs.end(), v) -
                                                    c.graph.inputs.begin())]);
    const std::vector<HostTensor> ref = evalNode(c.graph, n, ptrs);
    // Every output (attention_cache: the caches it writes in place too).
    auto compareAll = [&](const std::vector<HostTensor>& got) {
      std::string diff;
      for (size_t o = 0; o < ref.size(); ++o) {
        const std::string d = compare(ref[o], got.at(o), c.tolerance);
        if (!d.empty()) diff += "output " + std::to_string(o) + ":\n" + d;
      }
      return diff;
    };
    std::string variant;
    const std::vector<HostTensor> got = runOnGpu(gpu(), c, inputs, &variant);
    INFO("variant '" << variant << "'");
    if (only) std::printf("%s: %s\n", c.label.c_str(), variant.c_str());
    CHECK(compareAll(got) == "");
    if (variant != "portable") ++variants;
    if (variant != "portable" && rerun) {
      std::string portable;
      const std::vector<HostTensor> gotPortable = runOnGpu(portableGpu(), c, inputs, &portable);
      INFO("and variant '" << portable << "' with every optional feature off, 256 invocations, 32 KiB");
      CHECK(portable == "portable");
      CHECK(compareAll(gotPortable) == "");
    }
    // A kernel specialized to its dispatch (the default above) and the
    // generic one that reads its program from the params must agree.
    const std::vector<DispatchPlan> plans = lowerNode(c.graph, n);
    const bool specializable = std::any_of(plans.begin(), plans.end(), [](const DispatchPlan& p) {
      const KernelBinary* kb = findKernel(p.kernel);
      return kb && specializationKey(*kb, p.params) != p.kernel;
    });
    if (specializable) ++specialized;
    if (specializable && rerun) {
      std::string generic;
      INFO("and the generic kernel, not specialized to the dispatch");
      CHECK(compareAll(runOnGpu(gpu(), c, inputs, &generic, false)) == "");
    }
    ++ran;
  }
  if (!only) {
    CHECK(ran > 100);
    CHECK(specialized > 50);  // every elementwise op case ran both ways
  }
  // lavapipe and the GPUs this runs on have subgroups: the matvec and
  // qmatvec cases must have taken their subgroup variant there.
  if (!only && (mgrt_context_features(gpu()) & MGRT_FEATURE_SUBGROUP)) CHECK(variants > 0);
  CHECK(mgrt_context_validation_messages(gpu()) == 0);
  CHECK(mgrt_context_validation_messages(portableGpu()) == 0);
}
