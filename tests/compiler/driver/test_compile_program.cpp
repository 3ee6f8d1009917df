// compileProgram: one compile path for N entry points; the wrappers are
// built on it and --verify-each names the pass that broke the graph.
#include <algorithm>
#include <catch2/catch.hpp>

#include "compiler/driver.h"
#include "compiler/driver_train.h"
#include "compiler/frontends.h"

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
