// Graph passes on small graphs: structural effects, and — where a rewrite
// changes arithmetic (folding) — the same numbers from the reference
// evaluator before and after.
#include <catch2/catch.hpp>
#include <cmath>

#include "ir/eval.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "passes/graph/passes.h"
#include "passes/graph/pipeline.h"
#include "tests/ir/ir_test_graphs.h"

using namespace mgc;

namespace {

std::vector<Op> opsOf(const Graph& g) {
  std::vector<Op> ops;
  for (const Node& n : g.nodes) ops.push_back(n.op);
  return ops;
}

void runPipeline(Graph& g) {
  for (const Pass& p : graphPipeline()) {
    p.run(g);
    verifyGraph(g);
  }
}

// The folding part of the pipeline, without the backend-driven fusions.
void runFoldingPasses(Graph& g) {
  for (const char* name : {"verify", "const-fold", "canonicalize", "const-fold", "dce"}) {
    findPass(name)->run(g);
    verifyGraph(g);
  }
}

// Max |a - b| over every output, evaluated on the same random inputs.
double maxDifference(const Graph& a, const Graph& b) {
  std::map<std::string, HostTensor> inputs;
  uint32_t seed = 7;
  for (ValueId v : a.inputs) inputs[a.value(v).name] = testing::patternTensor(a.type(v), seed++);
  auto ra = evalGraph(a, inputs), rb = evalGraph(b, inputs);
  double worst = 0;
  for (auto& [name, ta] : ra) {
    const HostTensor& tb = rb.at(name);
    REQUIRE(ta.type == tb.type);
    for (int64_t i = 0; i < ta.numel(); ++i) worst = std::max(worst, std::fabs(ta.getF(i) - tb.getF(i)));
  }
  return worst;
}

}  // namespace

TEST_CASE("const-fold turns constant subgraphs into constants", "[passes][const-fold]") {
  Graph g = parseGraph(
      "graph @g(%x: f32[2]) {\n"
      "  %a = const f32[2] dense<[1.0, 2.0]>\n"
      "  %b = const f32[2] dense<[10.0, 20.0]>\n"
      "  %s = add(%a, %b) : f32[2]\n"
      "  %n = neg(%s) : f32[2]\n"
      "  %y = mul(%x, %n) : f32[2]\n"
      "  return %y, %n\n"
      "}\n",
      "cf.mgir");
  constFold(g);
  verifyGraph(g);
  REQUIRE(opsOf(g) == std::vector<Op>{Op::Mul});
  const HostTensor& n = *g.value(g.find("n")).constant;
  CHECK(n.as<float>()[0] == -11.0f);
  CHECK(n.as<float>()[1] == -22.0f);
  CHECK(g.value(g.outputs[1]).name == "n");
}

TEST_CASE("const-fold leaves results that would bloat the graph", "[passes][const-fold]") {
  Graph g = parseGraph(
      "graph @g() {\n"
      "  %a = const f32[1] dense<[1.0]>\n"
      "  %e = expand(%a) {shape = [5242880]} : f32[5242880]\n"
      "  return %e\n"
      "}\n",
      "big.mgir");
  constFold(g);
  REQUIRE(opsOf(g) == std::vector<Op>{Op::Expand});
}

TEST_CASE("canonicalize removes neutral operations", "[passes][canonicalize]") {
  Graph g = parseGraph(
      "graph @g(%x: f32[2,3]) {\n"
      "  %zero = const f32[3] dense<0.0>\n"
      "  %one = const f32[] dense<1.0>\n"
      "  %big_one = const f32[4,2,3] dense<1.0>\n"
      "  %a = add(%x, %zero) : f32[2,3]\n"
      "  %b = mul(%one, %a) : f32[2,3]\n"
      "  %c = div(%b, %one) : f32[2,3]\n"
      "  %d = identity(%c) : f32[2,3]\n"
      "  %e = sub(%zero, %d) : f32[2,3]\n"
      "  %f = mul(%e, %big_one) : f32[4,2,3]\n"
      "  return %f\n"
      "}\n",
      "neutral.mgir");
  canonicalize(g);
  deadCodeElim(g);
  verifyGraph(g);
  // 0 - x is not x, and a broadcasting multiply by ones changes the shape.
  REQUIRE(opsOf(g) == std::vector<Op>{Op::Sub, Op::Mul});
  CHECK(g.nodes[0].inputs[1] == g.find("x"));
}

TEST_CASE("canonicalize keeps graph output names", "[passes][canonicalize]") {
  Graph g = parseGraph(
      "graph @g(%x: f32[2]) {\n"
      "  %r = relu(%x) : f32[2]\n"
      "  %out = identity(%r) : f32[2]\n"
      "  %passthrough = identity(%x) : f32[2]\n"
      "  return %out, %passthrough\n"
      "}\n",
      "outs.mgir");
  canonicalize(g);
  deadCodeElim(g);
  verifyGraph(g);
  // relu now writes %out directly; an identity of a graph input must stay.
  REQUIRE(opsOf(g) == std::vector<Op>{Op::Relu, Op::Identity});
  CHECK(g.value(g.outputs[0]).name == "out");
  CHECK(g.value(g.outputs[1]).name == "passthrough");
}

TEST_CASE("canonicalize merges reshapes and transposes", "[passes][canonicalize]") {
  Graph g = parseGraph(
      "graph @g(%x: f32[2,3,4]) {\n"
      "  %r1 = reshape(%x) {shape = [6,4]} : f32[6,4]\n"
      "  %r2 = reshape(%r1) {shape = [4,6]} : f32[4,6]\n"
      "  %t1 = transpose(%x) {perm = [1,2,0]} : f32[3,4,2]\n"
      "  %t2 = transpose(%t1) {perm = [2,0,1]} : f32[2,3,4]\n"
      "  %t3 = transpose(%x) {perm = [2,0,1]} : f32[4,2,3]\n"
      "  %t4 = transpose(%t3) {perm = [0,2,1]} : f32[4,3,2]\n"
      "  %s = reshape(%t2) {shape = [2,3,4]} : f32[2,3,4]\n"
      "  %y = add(%s, %x) : f32[2,3,4]\n"
      "  return %r2, %y, %t4\n"
      "}\n",
      "shapes.mgir");
  Graph before = g;
  canonicalize(g);
  deadCodeElim(g);
  verifyGraph(g);
  REQUIRE(opsOf(g) == std::vector<Op>{Op::Reshape, Op::Transpose, Op::Add});
  CHECK(g.nodes[0].inputs[0] == g.find("x"));
  CHECK(g.nodes[1].ints("perm") == std::vector<int64_t>{2, 1, 0});
  CHECK(g.nodes[2].inputs == std::vector<ValueId>{g.find("x"), g.find("x")});
  CHECK(maxDifference(before, g) == 0.0);
}

TEST_CASE("folding passes fold BatchNorm, Mul and Add into the Conv", "[passes][canonicalize][pipeline]") {
  Graph g;
  ValueId x = g.addInput("x", {DType::F32, {1, 3, 7, 6}});
  ValueId w = g.addConstant("w", testing::patternTensor({DType::F32, {5, 3, 3, 3}}, 1));
  ValueId b = g.addConstant("b", testing::patternTensor({DType::F32, {5}}, 2));
  NodeId conv = g.addNode(Op::Conv, "conv", {x, w, b}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  std::vector<ValueId> bn{g.nodes[size_t(conv)].outputs[0]};
  for (uint32_t k = 0; k < 4; ++k) {
    HostTensor p = testing::patternTensor({DType::F32, {5}}, 10 + k);
    if (k == 3)
      for (int64_t i = 0; i < 5; ++i) p.setF(i, std::fabs(p.getF(i)) + 0.5);  // variance > 0
    bn.push_back(g.addConstant("bn" + std::to_string(k), p));
  }
  NodeId norm = g.addNode(Op::BatchNorm, "bn", bn, {{"epsilon", 1e-5}});
  NodeId relu = g.addNode(Op::Relu, "y", {g.nodes[size_t(norm)].outputs[0]});
  g.outputs.push_back(g.nodes[size_t(relu)].outputs[0]);
  verifyGraph(g);
  Graph before = g;

  runFoldingPasses(g);
  INFO(printGraph(g, true));
  REQUIRE(opsOf(g) == std::vector<Op>{Op::Conv, Op::Relu});
  CHECK(maxDifference(before, g) < 1e-4);
  CHECK(g.value(g.outputs[0]).name == "y");
}

TEST_CASE("conv folding needs a per-channel constant and a single use", "[passes][canonicalize]") {
  const char* text =
      "graph @g(%x: f32[1,2,4,4]) {\n"
      "  %w = const f32[2,2,1,1] dense<[1.0, 2.0, 3.0, 4.0]>\n"
      "  %k = const f32[1,1,4] dense<[1.0, 2.0, 3.0, 4.0]>\n"
      "  %c = conv(%x, %w) : f32[1,2,4,4]\n"
      "  %m = mul(%c, %k) : f32[1,2,4,4]\n"
      "  %c2 = conv(%x, %w) : f32[1,2,4,4]\n"
      "  %s = const f32[2,1,1] dense<[2.0, 3.0]>\n"
      "  %m2 = mul(%c2, %s) : f32[1,2,4,4]\n"
      "  %a2 = add(%c2, %s) : f32[1,2,4,4]\n"
      "  return %m, %m2, %a2\n"
      "}\n";
  Graph g = parseGraph(text, "nofold.mgir");
  canonicalize(g);
  deadCodeElim(g);
  verifyGraph(g);
  // %k varies along W (not per channel) and %c2 has two users: nothing folds.
  REQUIRE(opsOf(g) == std::vector<Op>{Op::Conv, Op::Mul, Op::Conv, Op::Mul, Op::Add});
}

TEST_CASE("dce drops dead nodes and unused constants", "[passes][dce]") {
  Graph g = parseGraph(
      "graph @g(%x: f32[2]) {\n"
      "  %k = const f32[2] dense<[1.0, 2.0]>\n"
      "  %keep = const f32[2] dense<[3.0, 4.0]>\n"
      "  %dead = mul(%x, %k) : f32[2]\n"
      "  %dead2 = relu(%dead) : f32[2]\n"
      "  %y = add(%x, %keep) : f32[2]\n"
      "  return %y\n"
      "}\n",
      "dce.mgir");
  deadCodeElim(g);
  verifyGraph(g);
  REQUIRE(opsOf(g) == std::vector<Op>{Op::Add});
  CHECK_FALSE(g.value(g.find("k")).isConstant());
  CHECK(g.value(g.find("keep")).isConstant());
  CHECK(printGraph(g).find("%k =") == std::string::npos);
}

TEST_CASE("the full pipeline keeps every-op graph valid and equivalent", "[passes][pipeline]") {
  Graph g = testing::graphWithEveryOp();
  Graph before = g;
  runPipeline(g);
  std::string text = printGraph(g);
  REQUIRE(printGraph(parseGraph(text, "after.mgir")) == text);
  CHECK(maxDifference(before, g) < 1e-3);
}

TEST_CASE("findPass knows every pipeline pass", "[passes][pipeline]") {
  for (const Pass& p : graphPipeline()) CHECK(findPass(p.name) != nullptr);
  CHECK(findPass("no-such-pass") == nullptr);
}

TEST_CASE("split-long-rows keeps means, sums and layer_norm equal", "[passes][split-long-rows]") {
  Graph g = parseGraph(R"(graph @rows(%x: f32[1,8,8192], %w: f32[2,3,4096]) {
  %g = const f32[8192] dense<1.5>
  %b = const f32[8192] dense<0.25>
  %g2 = const f32[3,4096] dense<0.5>
  %m = reduce_mean(%x) {axes = [2], keepdims = 1} : f32[1,8,1]
  %n = layer_norm(%x, %g, %b) {axis = 2, epsilon = 1e-05} : f32[1,8,8192]
  %s = reduce_sum(%w) {axes = [-1], keepdims = 0} : f32[2,3]
  %a = reduce_sum(%w) {keepdims = 0} : f32[]
  %r = rms_norm(%x, %g) {axis = 2, epsilon = 1e-05} : f32[1,8,8192]
  %o = rms_norm(%w, %g2) {axis = 1, epsilon = 0.001, epsilon_outside = 1} : f32[2,3,4096]
  return %m, %n, %s, %a, %r, %o
})",
                       "rows.mgir");
  Graph before = g;
  findPass("split-long-rows")->run(g);
  verifyGraph(g);
  int reduces = 0;
  for (const Node& n : g.nodes) reduces += n.op == Op::ReduceSum || n.op == Op::ReduceMean;
  CHECK(reduces == 2 + 2 + 2 + 2 + 2);  // every reduction in two steps, the rms_norms' means too
  const std::vector<Op> ops = opsOf(g);
  CHECK(std::count(ops.begin(), ops.end(), Op::RMSNorm) == 0);
  // The layer_norm stays, over the moments of its rows' 16 chunks of 512.
  CHECK(std::count(ops.begin(), ops.end(), Op::Moments) == 1);
  REQUIRE(std::count(ops.begin(), ops.end(), Op::LayerNorm) == 1);
  for (const Node& n : g.nodes)
    if (n.op == Op::LayerNorm) CHECK(g.type(n.inputs.at(3)).shape == Shape{8, 16, 2});
  CHECK(maxDifference(before, g) < 1e-4);
}

TEST_CASE("GroupNorm as imported folds into a layer_norm and keeps its values", "[passes][canonicalize-patterns]") {
  // The importer's InstanceNormalization: x - mean, times rsqrt(mean(d²) + eps).
  Graph g = parseGraph(R"(graph @gn(%x: f32[2,4,24]) {
  %eps = const f32[] dense<1e-05>
  %m = reduce_mean(%x) {axes = [2], keepdims = 1} : f32[2,4,1]
  %d = sub(%x, %m) : f32[2,4,24]
  %q = mul(%d, %d) : f32[2,4,24]
  %v = reduce_mean(%q) {axes = [2], keepdims = 1} : f32[2,4,1]
  %a = add(%v, %eps) : f32[2,4,1]
  %r = sqrt(%a) : f32[2,4,1]
  %i = reciprocal(%r) : f32[2,4,1]
  %y = mul(%d, %i) : f32[2,4,24]
  return %y
})",
                       "gn.mgir");
  Graph before = g;
  findPass("canonicalize-patterns")->run(g);
  verifyGraph(g);
  const std::vector<Op> ops = opsOf(g);
  CHECK(ops == std::vector<Op>{Op::LayerNorm});
  CHECK(maxDifference(before, g) < 1e-5);
}

TEST_CASE("the pipeline fuses a long-row rms_norm into a decode product before split-long-rows can cut it",
          "[passes][pipeline][fuse-prologue]") {
  // A 7B-wide decode step: hidden 4096 is a "long row", yet the product
  // takes the norm as its prologue (no dispatch); a prefill-sized norm,
  // which no product can take, is still split.
  Graph g = parseGraph(R"(graph @wide(%x: f32[1,1,4096], %x8: f32[8,4096], %w: f32[4096,16]) {
  %g = const f32[4096] dense<1.5>
  %n = rms_norm(%x, %g) {epsilon = 1e-05} : f32[1,1,4096]
  %y = matmul(%n, %w) : f32[1,1,16]
  %n8 = rms_norm(%x8, %g) {epsilon = 1e-05} : f32[8,4096]
  %y8 = matmul(%n8, %w) : f32[8,16]
  return %y, %y8
})",
                       "wide.mgir");
  Graph before = g;
  runPipeline(g);
  const Node& y = g.nodes[size_t(g.value(g.outputs[0]).producer)];
  CHECK(y.op == Op::MatMul);
  CHECK(y.inputs[0] == g.inputs[0]);  // x itself, normalized as it is read
  CHECK(y.attrs.count("rms_eps") == 1);
  const std::vector<Op> ops = opsOf(g);
  CHECK(std::count(ops.begin(), ops.end(), Op::RMSNorm) == 0);
  CHECK(std::count(ops.begin(), ops.end(), Op::ReduceMean) + std::count(ops.begin(), ops.end(), Op::FusedReduce) > 0);  // n8, split
  CHECK(maxDifference(before, g) < 1e-3);
}

TEST_CASE("split-long-rows keeps BatchNorm's statistics over (0, 2, 3) equal", "[passes][split-long-rows]") {
  Graph g = parseGraph(R"(graph @stats(%x: f32[2,3,40,64]) {
  %m = reduce_mean(%x) {axes = [0, 2, 3], keepdims = 1} : f32[1,3,1,1]
  %s = reduce_sum(%x) {axes = [0, 2, 3], keepdims = 0} : f32[3]
  %t = reduce_sum(%x) {axes = [0, 3], keepdims = 0} : f32[3,40]
  return %m, %s, %t
})",
                       "stats.mgir");
  Graph before = g;
  findPass("split-long-rows")->run(g);
  verifyGraph(g);
  int reduces = 0;
  for (const Node& n : g.nodes) reduces += n.op == Op::ReduceSum || n.op == Op::ReduceMean;
  CHECK(reduces == 2 + 2 + 1);  // %t has 120 outputs of 128 values: whole
  CHECK(maxDifference(before, g) < 1e-3);
}

TEST_CASE("conv1x1-grads computes the convolution gradients it replaces", "[passes][conv1x1-grads]") {
  Graph g = parseGraph(R"(graph @grads(%x: f32[2,6,16,16], %dy: f32[2,5,16,16], %w: f32[5,6,1,1], %x1: f32[1,6,3,4], %dy1: f32[1,5,3,4]) {
  %dx = conv_grad_input(%dy, %w) {shape = [2, 6, 16, 16]} : f32[2,6,16,16]
  %dw = conv_grad_weight(%x, %dy) {shape = [5, 6, 1, 1]} : f32[5,6,1,1]
  %dx1 = conv_grad_input(%dy1, %w) {shape = [1, 6, 3, 4]} : f32[1,6,3,4]
  %dw1 = conv_grad_weight(%x1, %dy1) {shape = [5, 6, 1, 1]} : f32[5,6,1,1]
  return %dx, %dw, %dx1, %dw1
})",
                       "grads.mgir");
  Graph before = g;
  findPass("conv1x1-grads")->run(g);
  verifyGraph(g);
  const std::vector<Op> ops = opsOf(g);
  CHECK(std::count(ops.begin(), ops.end(), Op::MatMul) == 4);
  CHECK(std::count(ops.begin(), ops.end(), Op::ConvGradInput) + std::count(ops.begin(), ops.end(), Op::ConvGradWeight) == 0);
  CHECK(maxDifference(before, g) < 1e-3);
}

TEST_CASE("fuse-attention-cache computes the attention and the cache rows it replaces", "[passes][fuse-attention-cache]") {
  // A prefill chunk of 2 tokens, 4 query heads over 2 K/V heads, a cache of
  // 6 rows with old contents, as compiler/hf/llama.cpp builds it.
  Graph g = parseGraph(R"(graph @chunk(%q: f32[1,4,2,4], %k: f32[1,2,2,4], %v: f32[1,2,2,3], %cos: f32[2,4], %sin: f32[2,4], %pos: i64[1], %mask: f32[2,6]) {
  %kc = state f32[1,2,6,4] dense<0.0>
  %vc = state f32[1,2,6,3] dense<0.0>
  %qr = rotary(%q, %cos, %sin) : f32[1,4,2,4]
  %k1 = state_write(%kc, %k, %pos, %cos, %sin) {axis = 2} : f32[1,2,6,4]
  %v1 = state_write(%vc, %v, %pos) {axis = 2} : f32[1,2,6,3]
  %q5 = reshape(%qr) {shape = [1, 2, 2, 2, 4]} : f32[1,2,2,2,4]
  %k5 = reshape(%k1) {shape = [1, 2, 1, 6, 4]} : f32[1,2,1,6,4]
  %v5 = reshape(%v1) {shape = [1, 2, 1, 6, 3]} : f32[1,2,1,6,3]
  %o = attention(%q5, %k5, %v5, %mask) {scale = 0.5} : f32[1,2,2,2,3]
  update %kc = %k1
  update %vc = %v1
  return %o
})",
                       "chunk.mgir");
  for (const char* s : {"kc", "vc"}) {
    Value& state = g.value(g.find(s));
    state.initial = std::make_shared<const HostTensor>(testing::patternTensor(state.type, 5));
  }
  Graph before = g;
  findPass("fuse-attention-cache")->run(g);
  verifyGraph(g);
  const std::vector<Op> ops = opsOf(g);
  CHECK(ops == std::vector<Op>{Op::AttentionCache, Op::Reshape});
  // The new cache values too (as outputs here only: the verifier forbids it).
  for (Graph* x : {&before, &g})
    for (const auto& u : x->stateUpdates) x->outputs.push_back(u.second);
  for (int64_t at : {0, 3, 4, 5, -1}) {  // the last row, then past the end / negative: nothing written
    INFO("position " << at);
    std::map<std::string, HostTensor> inputs;
    uint32_t seed = 11;
    for (ValueId v : before.inputs) inputs[before.value(v).name] = testing::patternTensor(before.type(v), seed++);
    HostTensor pos({DType::I64, {1}});
    pos.setI(0, at);
    inputs["pos"] = pos;
    HostTensor mask({DType::F32, {2, 6}});  // causal from `at`
    for (int64_t t = 0; t < 2; ++t)
      for (int64_t j = 0; j < 6; ++j) mask.setF(t * 6 + j, j > at + t ? -3.4028234663852886e38 : 0.0);
    inputs["mask"] = mask;
    auto want = evalGraph(before, inputs), got = evalGraph(g, inputs);
    REQUIRE(want.size() == 3);
    for (auto& [name, w] : want) {
      INFO(name);
      const HostTensor& r = got.at(name);
      REQUIRE(r.type == w.type);
      for (int64_t i = 0; i < w.numel(); ++i) CHECK(r.getF(i) == w.getF(i));
    }
  }
}

TEST_CASE("fuse-rotary computes the exported rotate-half RoPE it replaces", "[passes][fuse-rotary]") {
  // As Hugging Face Llama exports apply_rotary_pos_emb: a constant table
  // (x · cos + rotate_half(x) · sin, operands in either order) and a
  // run-time one with leading 1s.
  Graph g = parseGraph(R"(graph @rope(%x: f32[1,2,3,4], %s: f32[1,1,3,4]) {
  %cos = const f32[3,4] dense<[0.5, 0.25, -1.0, 2.0, 1.5, -0.5, 0.75, 1.0, 0.125, 3.0, -2.0, 0.5]>
  %sin = const f32[1,3,4] dense<[1.0, -0.5, 0.25, 2.0, -1.5, 0.5, 3.0, -0.75, 0.25, 1.25, -2.5, 0.5]>
  %a = mul(%x, %cos) : f32[1,2,3,4]
  %hi = slice(%x) {ends = [1, 2, 3, 4], starts = [0, 0, 0, 2], steps = [1, 1, 1, 1]} : f32[1,2,3,2]
  %n = neg(%hi) : f32[1,2,3,2]
  %lo = slice(%x) {ends = [1, 2, 3, 2], starts = [0, 0, 0, 0], steps = [1, 1, 1, 1]} : f32[1,2,3,2]
  %c = concat(%n, %lo) {axis = 3} : f32[1,2,3,4]
  %b = mul(%sin, %c) : f32[1,2,3,4]
  %y1 = add(%b, %a) : f32[1,2,3,4]
  %a2 = mul(%cos, %x) : f32[1,2,3,4]
  %hi2 = slice(%x) {ends = [1, 2, 3, 4], starts = [0, 0, 0, 2], steps = [1, 1, 1, 1]} : f32[1,2,3,2]
  %n2 = neg(%hi2) : f32[1,2,3,2]
  %lo2 = slice(%x) {ends = [1, 2, 3, 2], starts = [0, 0, 0, 0], steps = [1, 1, 1, 1]} : f32[1,2,3,2]
  %c2 = concat(%n2, %lo2) {axis = -1} : f32[1,2,3,4]
  %b2 = mul(%c2, %s) : f32[1,2,3,4]
  %y2 = add(%a2, %b2) : f32[1,2,3,4]
  return %y1, %y2
})",
                       "rope.mgir");
  Graph before = g;
  findPass("fuse-rotary")->run(g);
  verifyGraph(g);
  int rotaries = 0;
  for (const Node& n : g.nodes) {
    CHECK(n.op != Op::Slice);
    CHECK(n.op != Op::Concat);
    rotaries += n.op == Op::Rotary;
  }
  CHECK(rotaries == 2);
  CHECK(maxDifference(before, g) < 1e-6);
}

TEST_CASE("fuse-rotary reads the head transpose in front of it in place", "[passes][fuse-rotary]") {
  // q split into heads as exported: [1, T, H, D] → transpose → RoPE.
  Graph g = parseGraph(R"(graph @rope(%y: f32[2,3,2,4], %cos: f32[3,4], %sin: f32[3,4]) {
  %x = transpose(%y) {perm = [0, 2, 1, 3]} : f32[2,2,3,4]
  %a = mul(%x, %cos) : f32[2,2,3,4]
  %hi = slice(%x) {ends = [2, 2, 3, 4], starts = [0, 0, 0, 2], steps = [1, 1, 1, 1]} : f32[2,2,3,2]
  %n = neg(%hi) : f32[2,2,3,2]
  %lo = slice(%x) {ends = [2, 2, 3, 2], starts = [0, 0, 0, 0], steps = [1, 1, 1, 1]} : f32[2,2,3,2]
  %c = concat(%n, %lo) {axis = 3} : f32[2,2,3,4]
  %b = mul(%c, %sin) : f32[2,2,3,4]
  %r = add(%a, %b) : f32[2,2,3,4]
  return %r
})",
                       "rope_t.mgir");
  Graph before = g;
  findPass("fuse-rotary")->run(g);
  findPass("dce")->run(g);
  verifyGraph(g);
  CHECK(opsOf(g) == std::vector<Op>{Op::Mul, Op::Rotary});  // the signed sine's mul, then the rotary
  CHECK(g.nodes.back().i("tokens_major", 0) == 1);
  CHECK(maxDifference(before, g) < 1e-6);
}

TEST_CASE("fold-repeat-kv computes the grouped-query attention it replaces", "[passes][fold-repeat-kv]") {
  // 4 query heads over 2 K/V heads repeated by unsqueeze → expand → reshape.
  Graph g = parseGraph(R"(graph @gqa(%q: f32[1,4,3,4], %k: f32[1,2,5,4], %v: f32[1,2,5,3], %m: f32[3,5]) {
  %k1 = reshape(%k) {shape = [1, 2, 1, 5, 4]} : f32[1,2,1,5,4]
  %ke = expand(%k1) {shape = [1, 2, 2, 5, 4]} : f32[1,2,2,5,4]
  %kr = reshape(%ke) {shape = [1, 4, 5, 4]} : f32[1,4,5,4]
  %v1 = reshape(%v) {shape = [1, 2, 1, 5, 3]} : f32[1,2,1,5,3]
  %ve = expand(%v1) {shape = [1, 2, 2, 5, 3]} : f32[1,2,2,5,3]
  %vr = reshape(%ve) {shape = [1, 4, 5, 3]} : f32[1,4,5,3]
  %o = attention(%q, %kr, %vr, %m) {scale = 0.5} : f32[1,4,3,3]
  return %o
})",
                       "gqa.mgir");
  Graph before = g;
  findPass("fold-repeat-kv")->run(g);
  verifyGraph(g);
  for (const Node& n : g.nodes) CHECK(n.op != Op::Expand);
  CHECK(maxDifference(before, g) < 1e-6);
}

TEST_CASE("fold-attention-layout computes the head transposes and attention it replaces", "[passes][fold-attention-layout]") {
  // q, k, v split into heads (k / v as GQA's 5-D view) and the output merged back, as exported.
  Graph g = parseGraph(R"(graph @heads(%qp: f32[2,3,8], %kp: f32[2,5,4], %vp: f32[2,5,6]) {
  %qr = reshape(%qp) {shape = [2, 3, 4, 2]} : f32[2,3,4,2]
  %qt = transpose(%qr) {perm = [0, 2, 1, 3]} : f32[2,4,3,2]
  %q5 = reshape(%qt) {shape = [2, 2, 2, 3, 2]} : f32[2,2,2,3,2]
  %kr = reshape(%kp) {shape = [2, 5, 2, 2]} : f32[2,5,2,2]
  %kt = transpose(%kr) {perm = [0, 2, 1, 3]} : f32[2,2,5,2]
  %k5 = reshape(%kt) {shape = [2, 2, 1, 5, 2]} : f32[2,2,1,5,2]
  %vr = reshape(%vp) {shape = [2, 5, 2, 3]} : f32[2,5,2,3]
  %vt = transpose(%vr) {perm = [0, 2, 1, 3]} : f32[2,2,5,3]
  %v5 = reshape(%vt) {shape = [2, 2, 1, 5, 3]} : f32[2,2,1,5,3]
  %o5 = attention(%q5, %k5, %v5) {scale = 0.7} : f32[2,2,2,3,3]
  %o = reshape(%o5) {shape = [2, 4, 3, 3]} : f32[2,4,3,3]
  %ot = transpose(%o) {perm = [0, 2, 1, 3]} : f32[2,3,4,3]
  %y = reshape(%ot) {shape = [2, 3, 12]} : f32[2,3,12]
  return %y
})",
                       "heads.mgir");
  Graph before = g;
  findPass("fold-attention-layout")->run(g);
  findPass("dce")->run(g);
  verifyGraph(g);
  for (const Node& n : g.nodes) CHECK(n.op != Op::Transpose);
  CHECK(maxDifference(before, g) < 1e-6);
  for (const Node& n : g.nodes)
    if (n.op == Op::Attention) CHECK(n.i("tokens_major", 0) == 15);
}
