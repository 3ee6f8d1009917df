// The frontend table: rows chosen by name, then by content; unknown input
// is one error naming the file and every format tried.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "compiler/frontends.h"

using namespace mgc;
namespace fs = std::filesystem;

namespace {

const std::string kOnnx = "examples/cnn.onnx";
const std::string kTextIr = "tests/passes/graph/canonicalize_batchnorm.mgir";

struct TempDir {
  fs::path dir = fs::temp_directory_path() / ("mgc_frontends_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(dir); }
  ~TempDir() { fs::remove_all(dir); }
  std::string file(const std::string& name, const std::string& bytes) const {
    std::string p = (dir / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
};

std::string readAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("frontends: a row claims its files by extension") {
  CHECK(std::string(frontendFor(kOnnx).name) == "onnx");
  CHECK(std::string(frontendFor(kTextIr).name) == "mgir");
  // By name even when the file is missing: the importer names the problem.
  CHECK(std::string(frontendFor("no/such/model.onnx").name) == "onnx");
  CHECK_THROWS_WITH(importModel("no/such/model.onnx"), "no/such/model.onnx: cannot open file");
  // The name wins over the content: an .onnx file that is not ONNX is the
  // ONNX importer's to refuse.
  TempDir t;
  std::string fake = t.file("fake.onnx", "graph @g() {\n}\n");
  CHECK_THROWS_WITH(importModel(fake), Catch::Contains("not an ONNX model"));
}

TEST_CASE("frontends: without a known extension the first bytes decide") {
  TempDir t;
  std::string onnx = t.file("model.bin", readAll(kOnnx));
  CHECK(std::string(frontendFor(onnx).name) == "onnx");
  CHECK(importModel(onnx).nodes.size() == importModel(kOnnx).nodes.size());

  std::string ir =
      t.file("model.txt", "// a comment line\n\n" + readAll(kTextIr).substr(readAll(kTextIr).find("\ngraph @") + 1));
  CHECK(std::string(frontendFor(ir).name) == "mgir");
  CHECK(importModel(ir).nodes.size() == importModel(kTextIr).nodes.size());
}

TEST_CASE("frontends: unknown input names the file and the formats tried") {
  TempDir t;
  std::string junk = t.file("notes.dat", "hello, not a model\n");
  CHECK_THROWS_WITH(importModel(junk), Catch::StartsWith(junk + ": unknown model format (tried ") &&
                                           Catch::Contains("ONNX") && Catch::Contains("text IR"));
  CHECK_THROWS_WITH(importModel(t.file("empty", "")), Catch::Contains("unknown model format"));
  // A folder is only ever a checkpoint folder: without config.json it says so.
  CHECK_THROWS_WITH(importModel(t.dir.string()), Catch::StartsWith(t.dir.string() + ": is a folder without config.json"));
  CHECK_THROWS_WITH(importModel("/dev/null"), "/dev/null: is a character device, not a file");
  CHECK_THROWS_WITH(importModel((t.dir / "missing").string()), (t.dir / "missing").string() + ": cannot open file");
}

TEST_CASE("frontends: keepParameters reaches the ONNX importer") {
  FrontendOptions keep;
  keep.keepParameters = true;
  // Folding the parameters into their users (inference) leaves fewer
  // constants than keeping each one whole under its ONNX name (training).
  Graph folded = importModel("tests/training/fixtures/mlp.onnx");
  Graph kept = importModel("tests/training/fixtures/mlp.onnx", keep);
  CHECK(kept.nodes.size() > folded.nodes.size());
}
