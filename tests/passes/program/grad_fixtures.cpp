// Gradient fixture loading (grad_fixtures.h): parse the case's graph, append
// the loss, differentiate, collect PyTorch's gradients.
#include "grad_fixtures.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "compiler/onnx/import.h"
#include "ir/parser.h"
#include "formats/npy.h"
#include "passes/program/autodiff.h"
#include "passes/program/loss.h"

namespace mgc::gradtest {

namespace fs = std::filesystem;

namespace {

HostTensor loadNpy(const fs::path& p) {
  mgb::npy::Array a;
  std::string err;
  INFO(p.string() << ": " << err);
  REQUIRE(mgb::npy::readFile(p.string(), &a, &err));
  HostTensor t(TensorType{DType(uint8_t(a.dtype)), a.shape});
  REQUIRE(t.data.size() == a.data.size());
  t.data = a.data;
  return t;
}

}  // namespace

double normalizedError(const HostTensor& want, const HostTensor& got) {
  REQUIRE(want.type.shape == got.type.shape);
  double maxDiff = 0, maxWant = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    double w = want.getF(i), g = got.getF(i);
    maxDiff = std::max(maxDiff, std::isfinite(g) ? std::fabs(g - w) : INFINITY);
    maxWant = std::max(maxWant, std::fabs(w));
  }
  return maxDiff / std::max(maxWant, 1e-6);
}

Prepared prepare(const fs::path& dir) {
  Prepared p;
  // An ONNX case tests an importer composition (e.g. Resize) end to end.
  const fs::path onnxModel = dir / "model.onnx";
  p.g = fs::exists(onnxModel) ? importOnnx(onnxModel.string()) : parseGraphFile((dir / "graph.mgir").string());
  Graph& g = p.g;
  std::vector<ValueId> inputs = g.inputs;
  for (size_t k = 0; k < inputs.size(); ++k) {
    HostTensor t = loadNpy(dir / ("in" + std::to_string(k) + ".npy"));
    REQUIRE(t.type == g.type(inputs[k]));
    p.inputs[g.value(inputs[k]).name] = t;
  }
  ValueId loss, y = kNoValue;
  std::ifstream lossSpec(dir / "loss.txt");
  if (lossSpec) {
    std::string kind;
    double smoothing = 0;
    lossSpec >> kind >> smoothing;
    LossOptions o{LossKind::MSE, smoothing};
    if (kind == "cross_entropy") o.kind = LossKind::CrossEntropy;
    else if (kind == "mse") o.kind = LossKind::MSE;
    else if (kind == "l1") o.kind = LossKind::L1;
    else if (kind == "bce_with_logits") o.kind = LossKind::BCEWithLogits;
    else FAIL("unknown loss kind " << kind);
    loss = addLoss(g, inputs[0], inputs[1], o);
    REQUIRE(g.type(loss).shape.empty());
    p.expected.push_back({g.value(loss).name, loadNpy(dir / "loss.npy")});
  } else {
    y = g.outputs.at(0);
    ValueId R = g.addInput("R", g.type(y));
    p.inputs["R"] = loadNpy(dir / "R.npy");
    std::vector<int64_t> all;
    for (size_t d = 0; d < g.type(y).shape.size(); ++d) all.push_back(int64_t(d));
    NodeId m = g.addNode(Op::Mul, "yR", {y, R});
    NodeId s = g.addNode(Op::ReduceSum, "loss", {g.nodes[size_t(m)].outputs[0]},
                         {{"axes", all}, {"keepdims", int64_t(0)}});
    loss = g.nodes[size_t(s)].outputs[0];
  }
  std::vector<ValueId> wrt;
  std::vector<size_t> wrtIndex;
  for (size_t k = 0; k < inputs.size(); ++k)
    if (fs::exists(dir / ("grad" + std::to_string(k) + ".npy"))) {
      wrt.push_back(inputs[k]);
      wrtIndex.push_back(k);
    }
  REQUIRE(!wrt.empty());
  GradResult r = differentiate(g, loss, wrt);
  g.outputs.clear();
  if (lossSpec) g.outputs.push_back(loss);
  for (size_t i = 0; i < wrt.size(); ++i) {
    // Each gradient gets an output value of its own (two gradients may be
    // one value, e.g. both operands of an Add).
    ValueId gv = r.grads.at(wrt[i]);
    REQUIRE(g.type(gv) == g.type(wrt[i]));
    NodeId id = g.addNode(Op::Identity, "grad_in" + std::to_string(wrtIndex[i]), {gv});
    ValueId out = g.nodes[size_t(id)].outputs[0];
    g.outputs.push_back(out);
    p.expected.push_back({g.value(out).name, loadNpy(dir / ("grad" + std::to_string(wrtIndex[i]) + ".npy"))});
  }
  if (fs::exists(dir / "y.npy")) {  // the forward result is checked too
    g.outputs.push_back(y);
    p.expected.push_back({g.value(y).name, loadNpy(dir / "y.npy")});
  }
  return p;
}

std::vector<fs::path> fixtureDirs() {
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(MGC_GRAD_FIXTURES))
    if (e.is_directory()) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

void checkAllCases(const char* tag, const Runner& run) {
  std::vector<fs::path> dirs = fixtureDirs();
  REQUIRE(dirs.size() >= 60);
  for (const fs::path& dir : dirs) {
    std::string label = dir.filename().string();
    INFO("case " << label);
    Prepared p = prepare(dir);
    std::map<std::string, HostTensor> got = run(p, label);
    double worst = 0;
    for (const auto& [name, want] : p.expected) {
      INFO("output " << name);
      REQUIRE(got.count(name));
      double err = normalizedError(want, got.at(name));
      CHECK(err <= kTolerance);
      worst = std::max(worst, err);
    }
    std::printf("%s %-34s worst normalized error %.2e\n", tag, label.c_str(), worst);
    std::fflush(stdout);
  }
}

}  // namespace mgc::gradtest
