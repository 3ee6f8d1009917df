// compileProgram: one compile path for N entry points; the wrappers are
// built on it and --verify-each names the pass that broke the graph.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <map>
#include <set>

#include "compiler/driver.h"
#include "compiler/driver_train.h"
#include "compiler/frontends.h"
#include "formats/bundle_layout.h"
#include "kernels/specialize.h"
#include "formats/mgb_generated.h"

using namespace mgc;

namespace {

const std::string kCnn = "examples/cnn.onnx";

bool hasPhase(const CompileResult& r, const std::string& name) {
  return std::any_of(r.phases.begin(), r.phases.end(), [&](const PhaseTime& p) { return p.name == name; });
}

Program single(const std::string& source, Graph g) {
  Program p{source, {}, {}};
  p.entryPoints.push_back({"infer", std::move(g)});
  return p;
}

}  // namespace

TEST_CASE("compileProgram: the wrappers are one entry point 'infer'") {
  CompileResult file = compileFile(kCnn);
  ProgramResult prog = compileProgram(single(kCnn, importModel(kCnn)));
  CHECK(prog.compile.bundle == file.bundle);
  CHECK(compileGraph(importModel(kCnn), kCnn).bundle == file.bundle);
  REQUIRE(prog.stats.size() == 1);
  CHECK(prog.stats[0].name == "infer");
  CHECK(prog.stats[0].dispatches > 0);
  REQUIRE(prog.entryPoints.size() == 1);
  CHECK(prog.entryPoints[0].name == "infer");
  // Plain phase names with one entry point; the import is timed by compileFile.
  CHECK(hasPhase(file, "import"));
  CHECK(hasPhase(file, "const-fold"));
  CHECK_FALSE(hasPhase(prog.compile, "import"));
  CHECK(file.reportJson.find("\"source\": \"" + kCnn + "\"") != std::string::npos);
}

TEST_CASE("compileProgram: several entry points share one bundle") {
  Graph g = importModel(kCnn);
  Program p{"two", {}, {{"import", 0.0}}};
  p.entryPoints.push_back({"first", g});
  p.entryPoints.push_back({"second", g});
  ProgramResult r = compileProgram(std::move(p));
  REQUIRE(r.stats.size() == 2);
  CHECK(r.stats[0].name == "first");
  CHECK(r.stats[1].name == "second");
  CHECK(r.stats[0].dispatches == r.stats[1].dispatches);
  CHECK(hasPhase(r.compile, "import"));
  CHECK(hasPhase(r.compile, "const-fold:first"));
  CHECK(hasPhase(r.compile, "const-fold:second"));
  CHECK_FALSE(hasPhase(r.compile, "const-fold"));
  // The same weights once: not twice the single-entry bundle.
  CHECK(r.compile.bundle.size() < 2 * compileFile(kCnn).bundle.size());
}

TEST_CASE("compileProgram: entry point names are checked") {
  Graph g = importModel(kCnn);
  CHECK_THROWS_WITH(compileProgram(Program{"empty", {}, {}}), "empty: the program has no entry point");
  Program twice{"twice", {}, {}};
  twice.entryPoints.push_back({"infer", g});
  twice.entryPoints.push_back({"infer", g});
  CHECK_THROWS_WITH(compileProgram(std::move(twice)), "twice: entry point 'infer' is defined twice");
}

TEST_CASE("compileProgram: training is train_step + infer") {
  TrainOptions to;
  TrainCompileResult r = compileTrainingFile("tests/training/fixtures/mlp.onnx", to);
  CHECK(hasPhase(r.compile, "import"));
  CHECK(hasPhase(r.compile, "training-program"));
  CHECK(hasPhase(r.compile, "const-fold:train_step"));
  CHECK(hasPhase(r.compile, "const-fold:infer"));
  CHECK(r.compile.summary.find("\n  training: ") != std::string::npos);
  CHECK(r.trainPeakBytes > 0);
  CHECK(r.inferPeakBytes > 0);
  CHECK(r.stateBytes > 0);
  CHECK_FALSE(r.program.trainStep.nodes.empty());
  CHECK_FALSE(r.program.infer.nodes.empty());
  CHECK(compileTraining(loadTrainableModel("tests/training/fixtures/mlp.onnx"), "tests/training/fixtures/mlp.onnx", to)
            .compile.bundle == r.compile.bundle);
}

TEST_CASE("--verify-each: the verifier runs after every pass, the error names the pass") {
  CompileOptions verify;
  verify.verifyEachPass = true;
  CHECK(compileFile(kCnn, verify).bundle == compileFile(kCnn).bundle);
  TrainOptions to;
  CHECK(compileTrainingFile("tests/training/fixtures/mlp.onnx", to, verify).compile.bundle ==
        compileTrainingFile("tests/training/fixtures/mlp.onnx", to).compile.bundle);

  // A pass that leaves a result type its op's shape rule disagrees with.
  std::vector<Pass> passes = {
      {"grow-a-type", [](Graph& g) { g.value(g.nodes.at(0).outputs.at(0)).type.shape.push_back(7); }},
      {"dce", [](Graph&) {}}};
  Graph broken = importModel(kCnn);
  CHECK_NOTHROW(runPasses(broken, passes, "cnn", CompileOptions{}, nullptr));  // unchecked: goes unnoticed here
  Graph g = importModel(kCnn);
  CHECK_THROWS_WITH(runPasses(g, passes, "cnn", verify, nullptr), Catch::StartsWith("cnn: pass 'grow-a-type': "));
}

TEST_CASE("specialized kernels: a copy per distinct set of words, the dispatches otherwise the same") {
  CompileOptions generic;
  generic.specializeKernels = false;
  const CompileResult on = compileFile(kCnn), off = compileFile(kCnn, generic);
  auto manifest = [](const std::vector<uint8_t>& file) {
    mgb::Header h;
    std::memcpy(&h, file.data(), sizeof h);
    return mgb::GetBundle(file.data() + h.manifest_offset);
  };
  const mgb::Bundle* a = manifest(on.bundle);
  const mgb::Bundle* b = manifest(off.bundle);
  // Generic: one kernel per name. Specialized: more (the CNN's convolutions
  // differ in shape).
  std::map<std::string, const mgb::Kernel*> genericOf;
  for (const mgb::Kernel* k : *b->kernels()) CHECK(genericOf.emplace(k->name()->str(), k).second);
  CHECK(a->kernels()->size() > b->kernels()->size());
  const mgb::EntryPoint* ea = a->entry_points()->Get(0);
  const mgb::EntryPoint* eb = b->entry_points()->Get(0);
  REQUIRE(ea->dispatches()->size() == eb->dispatches()->size());
  std::map<uint32_t, std::vector<uint32_t>> wordsOf;  // specialized kernel → the words it was specialized to
  for (uint32_t i = 0; i < ea->dispatches()->size(); ++i) {
    const mgb::Dispatch* da = ea->dispatches()->Get(i);
    const mgb::Dispatch* db = eb->dispatches()->Get(i);
    INFO("dispatch " << i << " (" << da->node()->str() << ")");
    const mgb::Kernel* k = a->kernels()->Get(da->kernel());
    CHECK(k->name()->str() == b->kernels()->Get(db->kernel())->name()->str());
    const std::vector<uint32_t> params(da->params()->begin(), da->params()->end());
    CHECK(params == std::vector<uint32_t>(db->params()->begin(), db->params()->end()));
    // Every dispatch of a copy has the words it was specialized to.
    const auto* spirv = k->variants()->Get(0)->spirv();
    std::vector<uint32_t> words;
    for (uint32_t id : kern::paramSpecIds(spirv->data(), spirv->size())) words.push_back(id < params.size() ? params[id] : 0);
    auto [it, first] = wordsOf.emplace(da->kernel(), words);
    if (!first) CHECK(it->second == words);
  }
  // A copy's SPIR-V differs from the generic module's; its MSL is the same.
  int copies = 0;
  for (const mgb::Kernel* k : *a->kernels()) {
    const mgb::Kernel* g = genericOf.at(k->name()->str());
    for (uint32_t v = 0; v < k->variants()->size(); ++v) {
      CHECK(k->variants()->Get(v)->msl()->str() == g->variants()->Get(v)->msl()->str());
      copies += k->variants()->Get(v)->hash() != g->variants()->Get(v)->hash();
    }
  }
  CHECK(copies >= 2);
}
