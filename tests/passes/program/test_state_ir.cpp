// State in the IR and the pieces around it: text form round trip, verify,
// memory planning, optimizer and training-program construction, export of an
// inference bundle, and safetensors on hostile input.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>

#include "compiler/bundle_builder.h"
#include "compiler/bundle_export.h"
#include "compiler/driver.h"
#include "formats/bundle_layout.h"
#include "formats/mgb_generated.h"
#include "ir/eval.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "formats/safetensors.h"
#include "kernels/lower.h"
#include "passes/plan/memory_plan.h"
#include "passes/graph/passes.h"
#include "tests/training/test_train_util.h"

using namespace mgc;
using namespace mgc::test;

namespace {

const char* kStateIr = R"(graph @g(%x: f32[2]) {
  %one = const f32[] dense<1.0>
  %w = state f32[2] dense<[0.5, -1.0]>
  %y = mul(%x, %w) : f32[2]
  %w.next = add(%w, %one) : f32[2]
  update %w = %w.next
  return %y
}
)";

}  // namespace

TEST_CASE("state values print, parse and verify", "[training][ir]") {
  Graph g = parseGraph(kStateIr, "state.mgir");
  ValueId w = g.find("w");
  REQUIRE(w != kNoValue);
  CHECK(g.value(w).isState);
  CHECK_FALSE(g.value(w).isConstant());
  REQUIRE(g.stateUpdates.size() == 1);
  CHECK(printGraph(g) == kStateIr);
  verifyGraph(g);
  // Passes keep state and its update: nothing folds it, dce keeps the update.
  constFold(g);
  deadCodeElim(g);
  CHECK(printGraph(g) == kStateIr);
  // The evaluator reads the initial value (or one given by name).
  HostTensor x(TensorType{DType::F32, {2}});
  x.as<float>()[0] = 2;
  x.as<float>()[1] = 3;
  auto out = evalGraph(g, {{"x", x}});
  CHECK(out.at("y").as<float>()[1] == -3.0f);

  CHECK_THROWS_WITH(parseGraph("graph @g(%x: f32[2]) {\n update %x = %x\n return %x\n}", "bad.mgir"),
                    Catch::Contains("is not a state value"));
}

namespace {

// %m starts as zeros without bytes; %w holds its initial bytes.
const char* kZeroStateIr = R"(graph @g(%x: f32[3]) {
  %one = const f32[] dense<1.0>
  %w = state f32[3] dense<[0.5, -1.0, 2.0]>
  %m = state f32[256,256] zeros
  %y = add(%x, %w) : f32[3]
  %s = reduce_sum(%m) {axes = [0, 1], keepdims = 0} : f32[]
  %z = add(%y, %s) : f32[3]
  %m.next = add(%m, %one) : f32[256,256]
  update %m = %m.next
  return %z
}
)";

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  return s.replace(s.find(from), from.size(), to);
}

}  // namespace

TEST_CASE("a state that starts as zeros holds no bytes", "[training][ir]") {
  Graph g = parseGraph(kZeroStateIr, "zeros.mgir");
  const Value& m = g.value(g.find("m"));
  CHECK(m.isState);
  CHECK(m.isZeroState());
  CHECK(m.initial == nullptr);
  CHECK_FALSE(g.value(g.find("w")).isZeroState());
  CHECK(printGraph(g) == kZeroStateIr);
  CHECK(printGraph(g, /*elideConstants=*/true) == kZeroStateIr);
  verifyGraph(g);
  constFold(g);
  deadCodeElim(g);
  CHECK(printGraph(g) == kZeroStateIr);

  // The evaluator reads zeros (or the value given by name).
  HostTensor x(TensorType{DType::F32, {3}});
  for (int i = 0; i < 3; ++i) x.as<float>()[i] = float(i);
  CHECK(evalGraph(g, {{"x", x}}).at("z").as<float>()[2] == 4.0f);
  HostTensor ones(m.type);
  for (int64_t i = 0; i < ones.numel(); ++i) ones.as<float>()[i] = 1.0f;
  CHECK(evalGraph(g, {{"x", x}, {"m", ones}}).at("z").as<float>()[2] == 4.0f + 65536.0f);

  // Every dtype's zeros: the zero bytes, numel of them.
  for (DType dt : {DType::F32, DType::F16, DType::BF16, DType::F64, DType::I64, DType::I32, DType::I8, DType::U8,
                   DType::Bool, DType::I16, DType::U16, DType::U32, DType::U64}) {
    Graph h;
    const ValueId v = h.addZeroState("s", TensorType{dt, {2, 3}});
    std::shared_ptr<const HostTensor> t = h.value(v).initialValue();
    INFO(dtypeName(dt));
    REQUIRE(t->type == h.type(v));
    REQUIRE(t->data.size() == h.type(v).bytes());
    CHECK(std::all_of(t->data.begin(), t->data.end(), [](uint8_t b) { return b == 0; }));
    CHECK(t->getF(5) == 0.0);
  }
}

TEST_CASE("a zero state compiles to the bundle of stored zeros, with no bytes in the file", "[training][bundle]") {
  // The same graph with %m's zeros held as bytes (dense<0.0>).
  const std::string stored = replaced(kZeroStateIr, "f32[256,256] zeros", "f32[256,256] dense<0.0>");
  Graph held = parseGraph(stored, "stored.mgir");
  REQUIRE_FALSE(held.value(held.find("m")).isZeroState());
  CompileResult a = compileGraph(parseGraph(kZeroStateIr, "zeros.mgir"), "zeros.mgir");
  CompileResult b = compileGraph(std::move(held), "zeros.mgir");
  CHECK(a.bundle == b.bundle);

  // The State arena's stored bytes end with %w (placed first): %m's 256 KiB
  // are the arena's zero rest, not in the file.
  mgb::Header h;
  std::memcpy(&h, a.bundle.data(), sizeof h);
  const mgb::Bundle* manifest = mgb::GetBundle(a.bundle.data() + h.manifest_offset);
  const mgb::Arena* state = nullptr;
  for (const mgb::Arena* ar : *manifest->arenas())
    if (ar->kind() == mgb::ArenaKind::State) state = ar;
  REQUIRE(state != nullptr);
  CHECK(state->size() >= 256 * 256 * 4);
  CHECK(state->init_size() <= 256);
  CHECK(h.weights_size < 256 * 256 * 4);  // the data section: weights and stored state only

  // Loaded: zeros, read directly or saved; a run reads them and updates them.
  mgrt_model* model = nullptr;
  REQUIRE(mgrt_model_load(gpu(), a.bundle.data(), a.bundle.size(), &model) == MGRT_OK);
  std::vector<float> mv(256 * 256, -1.0f);
  REQUIRE(mgrt_model_read_state(model, "m", mv.data(), mv.size() * 4) == MGRT_OK);
  CHECK(std::all_of(mv.begin(), mv.end(), [](float v) { return v == 0.0f; }));
  const std::string ck = "build-test-zero-state.safetensors";
  REQUIRE(mgrt_model_save_state(model, ck.c_str()) == MGRT_OK);
  std::map<std::string, std::vector<float>> saved = loadSafetensorsF32(ck);
  CHECK(saved.at("m") == std::vector<float>(256 * 256, 0.0f));
  CHECK(saved.at("w") == std::vector<float>{0.5f, -1.0f, 2.0f});
  mgrt_session* s = nullptr;
  REQUIRE(mgrt_session_create(model, "infer", &s) == MGRT_OK);
  const float x[3] = {0, 1, 2};
  float z[3] = {};
  for (float sum : {0.0f, 65536.0f}) {
    REQUIRE(mgrt_session_set_input(s, "x", x, sizeof x) == MGRT_OK);
    REQUIRE(mgrt_session_run(s) == MGRT_OK);
    REQUIRE(mgrt_session_get_output(s, "z", z, sizeof z) == MGRT_OK);
    CHECK(z[2] == 4.0f + sum);
  }
  REQUIRE(mgrt_model_load_state(model, ck.c_str()) == MGRT_OK);  // back to the saved zeros
  REQUIRE(mgrt_session_run(s) == MGRT_OK);
  REQUIRE(mgrt_session_get_output(s, "z", z, sizeof z) == MGRT_OK);
  CHECK(z[2] == 4.0f);
  mgrt_session_destroy(s);
  mgrt_model_destroy(model);
  std::remove(ck.c_str());
}

TEST_CASE("the memory plan keeps state out of the activations arena", "[training][plan]") {
  Graph g = parseGraph(kStateIr, "state.mgir");
  MemoryPlanInput in;
  in.isAlias.assign(g.nodes.size(), false);
  in.mayRunInPlace.assign(g.nodes.size(), true);
  MemoryPlan p = planMemory(g, in);
  CHECK(p.slots[size_t(g.find("w"))].arena == -1);  // the driver places it in the State arena
  // The new value lives to the end: nothing else may reuse its bytes.
  const TensorSlot& next = p.slots[size_t(g.find("w.next"))];
  const TensorSlot& y = p.slots[size_t(g.find("y"))];
  CHECK(next.arena == 1);
  CHECK((next.offset + next.size <= y.offset || y.offset + y.size <= next.offset));
}

TEST_CASE("training program: parameters, frozen, buffers and outputs", "[training]") {
  TrainOptions to;
  to.freeze = {"conv.*"};
  TrainingProgram p = buildTrainingProgram(loadTrainableModel(fixture("cnn_bn.onnx")), to);
  CHECK(p.frozen == std::vector<std::string>{"conv.weight"});
  CHECK(p.buffers == std::vector<std::string>{"bn.running_mean", "bn.running_var"});
  CHECK(p.parameters.size() == 4);
  CHECK(p.loss == "loss");
  CHECK(p.trainStep.outputs.size() == 2);
  CHECK(p.trainStep.find("labels") != kNoValue);
  CHECK(p.trainStep.value(p.trainStep.find("conv.weight")).isConstant());
  CHECK(p.infer.value(p.infer.find("bn.running_var")).isState);
  // The optimizer's state (moments, step counter) starts as zeros, no bytes
  // held; the parameters and statistics keep the model's bytes.
  for (auto [kind, perParameter] : {std::pair{OptimizerKind::AdamW, 2}, std::pair{OptimizerKind::Sgd, 1}}) {
    TrainOptions o;
    o.optimizer.kind = kind;
    o.optimizer.momentum = kind == OptimizerKind::Sgd ? 0.9 : 0.0;
    TrainingProgram q = buildTrainingProgram(loadTrainableModel(fixture("cnn_bn.onnx")), o);
    int zeroStates = 0;
    for (const Value& v : q.trainStep.values) {
      if (!v.isState) continue;
      INFO(v.name);
      CHECK(v.isZeroState() == (v.name.rfind("opt.", 0) == 0));
      zeroStates += v.isZeroState();
    }
    CHECK(zeroStates == perParameter * 5 + 1);  // moments of every parameter, opt.step
  }

  to.freeze = {"nothing*"};
  CHECK_THROWS_WITH(buildTrainingProgram(loadTrainableModel(fixture("cnn_bn.onnx")), to),
                    Catch::Contains("matches no parameter"));
  OptimizerOptions bad;
  bad.schedule = LrSchedule::Cosine;
  CHECK_THROWS_WITH(checkOptimizerOptions(bad), Catch::Contains("--total-steps"));
  CHECK_THROWS_WITH(parseOptimizerKind("adagrad"), Catch::Contains("sgd, adam or adamw"));
}

TEST_CASE("mgc export: the infer entry point with the checkpoint's weights", "[training][export]") {
  TrainOptions to;
  to.optimizer.kind = OptimizerKind::Adam;
  to.optimizer.lr = 1e-2;
  std::vector<uint8_t> trainBundle = compileTraining(loadTrainableModel(fixture("cnn_bn.onnx")), "cnn", to).compile.bundle;
  mgb::npy::Array x = loadNpy(fixture("cnn_bn_x.npy")), labels = loadNpy(fixture("cnn_bn_labels.npy"));
  const std::string ck = "build-test-export.safetensors";
  std::vector<float> trained(4 * 5), exported(4 * 5);
  {
    TrainModel m(trainBundle);
    m.steps(x, labels, 0, 5);
    REQUIRE(mgrt_model_save_state(m.model, ck.c_str()) == MGRT_OK);
    mgrt_session* infer = nullptr;
    REQUIRE(mgrt_session_create(m.model, "infer", &infer) == MGRT_OK);
    REQUIRE(mgrt_session_set_input(infer, "x", x.data.data(), 4 * 64 * 4) == MGRT_OK);
    REQUIRE(mgrt_session_run(infer) == MGRT_OK);
    REQUIRE(mgrt_session_get_output(infer, "logits", trained.data(), trained.size() * 4) == MGRT_OK);
    mgrt_session_destroy(infer);
  }
  std::vector<uint8_t> ckpt;
  std::string err;
  REQUIRE(safetensors::readFile(ck, &ckpt, &err));
  ExportStats st;
  std::vector<uint8_t> bundle = exportInferenceBundle(trainBundle, ckpt, ck, "infer", &st);
  mgrt_model* model = nullptr;
  REQUIRE(mgrt_model_load(gpu(), bundle.data(), bundle.size(), &model) == MGRT_OK);
  CHECK(mgrt_model_entry_point_count(model) == 1);
  CHECK(mgrt_model_state_count(model) == 0);
  mgrt_session* s = nullptr;
  REQUIRE(mgrt_session_create(model, "infer", &s) == MGRT_OK);
  REQUIRE(mgrt_session_set_input(s, "x", x.data.data(), 4 * 64 * 4) == MGRT_OK);
  REQUIRE(mgrt_session_run(s) == MGRT_OK);
  REQUIRE(mgrt_session_get_output(s, "logits", exported.data(), exported.size() * 4) == MGRT_OK);
  CHECK(exported == trained);  // same kernels, same weights: bit-identical
  mgrt_session_destroy(s);
  mgrt_model_destroy(model);
  std::remove(ck.c_str());

  ckpt.resize(ckpt.size() - 8);
  CHECK_THROWS_WITH(exportInferenceBundle(trainBundle, ckpt, ck), Catch::Contains("truncated"));
}

TEST_CASE("safetensors: round trip and hostile headers", "[training][safetensors]") {
  std::vector<float> a{1, 2, 3, 4, 5, 6};
  std::vector<uint8_t> f = safetensors::serialize({{"a.b", "F32", {2, 3}, a.data(), 24}}, {{"k", "v\"q"}});
  safetensors::Header h;
  std::string err;
  REQUIRE(safetensors::parseHeader(f.data(), f.size(), &h, &err));
  REQUIRE(h.tensors.size() == 1);
  CHECK(h.tensors[0].shape == std::vector<int64_t>{2, 3});
  CHECK(h.metadata.at("k") == "v\"q");
  CHECK(h.dataOffset % 8 == 0);

  auto bad = [&](const std::string& json, const char* why) {
    std::vector<uint8_t> b(8 + json.size() + 24, 0);
    uint64_t n = json.size();
    std::memcpy(b.data(), &n, 8);
    std::memcpy(b.data() + 8, json.data(), json.size());
    safetensors::Header hh;
    std::string e;
    INFO(json);
    CHECK_FALSE(safetensors::parseHeader(b.data(), b.size(), &hh, &e));
    CHECK_THAT(e, Catch::Contains(why));
  };
  bad(R"({"t":{"dtype":"F32","shape":[2,3],"data_offsets":[0,28]}})", "'t'");
  bad(R"({"t":{"dtype":"F32","shape":[100],"data_offsets":[0,400]}})", "truncated");
  bad(R"({"t":{"dtype":"X9","shape":[1],"data_offsets":[0,4]}})", "unknown dtype");
  bad(R"({"t":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", "bad dimension");
  bad(R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[8,4]}})", "end before");
  bad(R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"u":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
      "overlaps");
  bad(R"({"t":[[[[[[[[[[[[1]]]]]]]]]]]]})", "too deep");
  bad(R"({"t":{"dtype":"F32","shape":[4294967296,4294967296,4294967296],"data_offsets":[0,4]}})", "too large");
  bad(R"({"t": "unterminated)", "not valid JSON");
  std::vector<uint8_t> huge(16, 0xff);
  CHECK_FALSE(safetensors::parseHeader(huge.data(), huge.size(), &h, &err));
}

namespace {

// The memory-plan input BundleBuilder derives (compiler/bundle_builder.cpp
// memoryPlanInput); `elementwise` off reproduces the plan of before
// in-place updates.
MemoryPlanInput planInput(const Graph& g, bool elementwise, int* nodeDispatches) {
  std::vector<std::vector<DispatchPlan>> plans(g.nodes.size());
  *nodeDispatches = 0;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    if (!isAliasOp(g.nodes[k])) plans[k] = lowerNode(g, g.nodes[k]);
    *nodeDispatches += int(plans[k].size());
  }
  MemoryPlanInput in = memoryPlanInput(g, plans);
  if (!elementwise) in.elementwise.assign(in.elementwise.size(), false);
  return in;
}

}  // namespace

TEST_CASE("AdamW writes parameters, moments and the step counter in place", "[training][plan]") {
  TrainOptions to;
  to.optimizer.kind = OptimizerKind::AdamW;
  to.optimizer.weightDecay = 0.01;
  TrainingProgram prog = buildTrainingProgram(loadTrainableModel(fixture("mlp.onnx")), to);
  Graph& g = prog.trainStep;
  runGraphPipeline(g, "mlp", {}, nullptr);
  const size_t updates = g.stateUpdates.size();
  REQUIRE(updates == 3 * prog.parameters.size() + 1);  // p, exp_avg, exp_avg_sq each; opt.step
  // One adam_step per parameter writes all three (ir/ops.def).
  CHECK(std::count_if(g.nodes.begin(), g.nodes.end(), [](const Node& n) { return n.op == Op::AdamStep; }) ==
        std::ptrdiff_t(prog.parameters.size()));

  int nodeDispatches = 0;
  MemoryPlan before = planMemory(g, planInput(g, false, &nodeDispatches));
  MemoryPlan after = planMemory(g, planInput(g, true, &nodeDispatches));
  CHECK(before.inPlaceUpdates == 0);
  CHECK(after.inPlaceUpdates == int(updates));
  for (const auto& [state, next] : g.stateUpdates) {
    INFO(g.value(state).name);
    CHECK(after.stateHome[size_t(next)] == state);
    CHECK(after.slots[size_t(next)].arena == -1);  // no activation bytes: the State arena slot
    CHECK(before.slots[size_t(next)].arena == 1);
  }
  CHECK(after.activationBytes < before.activationBytes);
  CHECK(after.naiveActivationBytes < before.naiveActivationBytes);

  // The bundle has no update copies: one dispatch per lowered node dispatch
  // (the plan of before added one copy per update).
  BundleBuilder builder("mlp", nullptr);
  builder.addEntryPoint("train_step", g, nullptr);
  CHECK(builder.stats()[0].dispatches == nodeDispatches);
  CHECK(builder.stats()[0].activationBytes == after.activationBytes);
  for (const mgb::DispatchEntry& d : builder.spec().entryPoints[0].dispatches) CHECK(d.node.rfind("update:", 0) != 0);
}

TEST_CASE("a decode step writes a KV-cache row in place at a run-time position", "[training][state_write]") {
  // Each run writes %row at position %t of the cache and returns the sum of
  // the written cache; positions past the end write nothing.
  const char* text = R"(graph @decode(%row: f32[1,3], %t: i32[]) {
  %cache = state f32[4,3] dense<0.0>
  %cache.next = state_write(%cache, %row, %t) {axis = 0} : f32[4,3]
  %s = reduce_sum(%cache.next) {axes = [0, 1], keepdims = 0} : f32[]
  update %cache = %cache.next
  return %s
}
)";
  CompileResult r = compileGraph(parseGraph(text, "decode.mgir"), "decode.mgir");
  mgrt_model* model = nullptr;
  mgrt_session* s = nullptr;
  REQUIRE(mgrt_model_load(gpu(), r.bundle.data(), r.bundle.size(), &model) == MGRT_OK);
  REQUIRE(mgrt_session_create(model, "infer", &s) == MGRT_OK);
  auto step = [&](int32_t t, float v) {
    float row[3] = {v, 2 * v, 3 * v};
    REQUIRE(mgrt_session_set_input(s, "row", row, sizeof row) == MGRT_OK);
    REQUIRE(mgrt_session_set_input(s, "t", &t, sizeof t) == MGRT_OK);
    REQUIRE(mgrt_session_run(s) == MGRT_OK);
    float sum = 0;
    REQUIRE(mgrt_session_get_output(s, "s", &sum, sizeof sum) == MGRT_OK);
    return sum;
  };
  CHECK(step(0, 1) == 6);
  CHECK(step(2, 10) == 66);
  CHECK(step(4, 100) == 66);   // past the end: nothing written
  CHECK(step(-1, 100) == 66);  // negative: nothing written
  CHECK(step(3, 0.5f) == 69);
  std::vector<float> cache(12);
  REQUIRE(mgrt_model_read_state(model, "cache", cache.data(), cache.size() * 4) == MGRT_OK);
  CHECK(cache == std::vector<float>{1, 2, 3, 0, 0, 0, 10, 20, 30, 0.5f, 1, 1.5f});
  mgrt_session_destroy(s);
  mgrt_model_destroy(model);
}
