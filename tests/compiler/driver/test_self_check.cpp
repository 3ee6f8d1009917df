// --embed-check on the compiler side (compiler/self_check.h): reference
// inputs within the ranges their uses need, reproducible, and a bundle whose
// check holds them with the reference evaluator's outputs; entry points with
// state get a warning instead.
#include <catch2/catch.hpp>
#include <cmath>

#include "compiler/driver.h"
#include "compiler/self_check.h"
#include "formats/bundle_layout.h"
#include "formats/mgb_generated.h"
#include "ir/eval.h"
#include "ir/parser.h"

using namespace mgc;

namespace {

const char* kGatherIr = "tests/compiler/cli/data/embed_gather.mgir";

const mgb::Bundle* manifestOf(const std::vector<uint8_t>& file) {
  mgb::Header h;
  std::memcpy(&h, file.data(), sizeof h);
  return mgb::GetBundle(file.data() + h.manifest_offset);
}

HostTensor fromBytes(const TensorType& t, const flatbuffers::Vector<uint8_t>* data) {
  REQUIRE(data->size() == t.bytes());
  return HostTensor(t, data->data());
}

}  // namespace

TEST_CASE("reference inputs stay within the ranges their uses need", "[check]") {
  Graph g = parseGraphFile(kGatherIr);
  const std::map<std::string, HostTensor> in = referenceInputs(g);
  REQUIRE(in.size() == 3);
  const HostTensor &ids = in.at("ids"), &x = in.at("x"), &k = in.at("k");
  bool idsSpread = false;
  for (int64_t i = 0; i < ids.numel(); ++i) {  // through a reshape into a gather over 7 rows
    CHECK(ids.getI(i) >= 0);
    CHECK(ids.getI(i) < 7);
    idsSpread |= ids.getI(i) != ids.getI(0);
  }
  CHECK(idsSpread);
  for (int64_t i = 0; i < x.numel(); ++i) {
    CHECK(x.getF(i) >= -1.0);
    CHECK(x.getF(i) < 1.0);
  }
  for (int64_t i = 0; i < k.numel(); ++i) {  // plain arithmetic: small, non-zero
    CHECK(k.getI(i) >= 1);
    CHECK(k.getI(i) < 8);
  }
  // Reproducible: the same graph gives the same bytes.
  const std::map<std::string, HostTensor> again = referenceInputs(parseGraphFile(kGatherIr));
  for (const auto& [name, t] : in) CHECK(again.at(name).data == t.data);

  Graph axis1 = parseGraph(
      "graph @g(%t: f32[9,3], %i: i32[40]) {\n"
      "  %y = gather(%t, %i) {axis = 1} : f32[9,40]\n"
      "  return %y\n"
      "}\n",
      "axis1.mgir");
  const std::map<std::string, HostTensor> axis1Inputs = referenceInputs(axis1);
  const HostTensor& idx = axis1Inputs.at("i");
  for (int64_t i = 0; i < idx.numel(); ++i) {
    CHECK(idx.getI(i) >= 0);
    CHECK(idx.getI(i) < 3);
  }
}

TEST_CASE("--embed-check stores the reference inputs and outputs of 'infer'", "[check]") {
  CompileOptions opts;
  opts.embedCheck = true;
  opts.checkTolerance = 2e-4;
  const CompileResult r = compileFile(kGatherIr, opts);
  CHECK(r.warnings.empty());
  CHECK(r.summary.find("check: entry point 'infer', 3 inputs, 2 outputs") != std::string::npos);
  const mgb::Bundle* b = manifestOf(r.bundle);
  const mgb::Check* c = b->check();
  REQUIRE(c != nullptr);
  CHECK(c->entry_point()->str() == "infer");
  CHECK(c->tolerance() == 2e-4);

  // The inputs are referenceInputs of the final graph; the outputs agree
  // with the evaluator run on the graph as written (before any pass).
  const Graph source = parseGraphFile(kGatherIr);
  REQUIRE(c->inputs()->size() == source.inputs.size());
  std::map<std::string, HostTensor> inputs;
  for (size_t i = 0; i < source.inputs.size(); ++i) {
    const Value& v = source.value(source.inputs[i]);
    inputs[v.name] = fromBytes(v.type, c->inputs()->Get(uint32_t(i))->data());
  }
  const std::map<std::string, HostTensor> want = evalGraph(source, inputs);
  REQUIRE(c->outputs()->size() == source.outputs.size());
  for (size_t i = 0; i < source.outputs.size(); ++i) {
    const Value& v = source.value(source.outputs[i]);
    const HostTensor got = fromBytes(v.type, c->outputs()->Get(uint32_t(i))->data());
    for (int64_t e = 0; e < got.numel(); ++e) CHECK(std::fabs(got.getF(e) - want.at(v.name).getF(e)) < 1e-6);
  }

  // Without the flag the bundle has no check, and the bundle is otherwise
  // what it was: the check is the only difference in the manifest.
  const CompileResult plain = compileFile(kGatherIr);
  CHECK(manifestOf(plain.bundle)->check() == nullptr);
  CHECK(plain.bundle.size() < r.bundle.size());
}

TEST_CASE("an entry point with state gets no check, and a warning says why", "[check]") {
  Graph g = parseGraph(
      "graph @g(%x: f32[4]) {\n"
      "  %s = state f32[4] dense<[1.0, 2.0, 3.0, 4.0]>\n"
      "  %y = add(%x, %s) : f32[4]\n"
      "  update %s = %y\n"
      "  return %y\n"
      "}\n",
      "state.mgir");
  CHECK(selfCheckRefusal(g).find("updates state") != std::string::npos);
  CompileOptions opts;
  opts.embedCheck = true;
  const CompileResult r = compileGraph(std::move(g), "state.mgir", opts);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0] ==
        "--embed-check: entry point 'infer' gets no self-check: it updates state (a KV cache, a "
        "training step); the bundle carries none");
  CHECK(manifestOf(r.bundle)->check() == nullptr);
}
