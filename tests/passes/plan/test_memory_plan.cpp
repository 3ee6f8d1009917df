#include <catch2/catch.hpp>

#include "passes/plan/memory_plan.h"
#include "passes/plan/schedule.h"

using namespace mgc;

namespace {

TensorType f32(Shape s) { return TensorType{DType::F32, std::move(s)}; }

MemoryPlanInput plain(const Graph& g, bool inPlace) {
  MemoryPlanInput in;
  for (const Node& n : g.nodes) {
    in.isAlias.push_back(n.op == Op::Reshape || n.op == Op::Identity);
    in.mayRunInPlace.push_back(inPlace && opInfo(n.op).cls != OpClass::Other);
  }
  return in;
}

bool overlap(const TensorSlot& a, const TensorSlot& b) {
  return a.arena == b.arena && a.offset < b.offset + b.size && b.offset < a.offset + a.size;
}

}  // namespace

TEST_CASE("a chain of ops reuses memory: only two tensors are live at once") {
  // The input is copied in at the start of every run, so its bytes are free
  // after its last use.
  Graph g;
  ValueId x = g.addInput("x", f32({1000}));
  ValueId v = x;
  std::vector<ValueId> vals{x};
  for (int i = 0; i < 6; ++i) {
    v = g.nodes[size_t(g.addNode(Op::Exp, "e" + std::to_string(i), {v}))].outputs[0];
    vals.push_back(v);
  }
  g.outputs = {v};
  MemoryPlan p = planMemory(g, plain(g, false));
  CHECK(p.naiveActivationBytes == 7 * 4096);
  CHECK(p.activationBytes == 2 * 4096);
  // Producer and consumer of each step never share bytes.
  for (size_t i = 1; i < vals.size(); ++i) CHECK_FALSE(overlap(p.slots[size_t(vals[i - 1])], p.slots[size_t(vals[i])]));
  // The output is live at the end; nothing written after its definition shares it.
  CHECK_FALSE(overlap(p.slots[size_t(vals[5])], p.slots[size_t(v)]));
}

TEST_CASE("elementwise ops run in place over a dying input") {
  Graph g;
  ValueId x = g.addInput("x", f32({1000}));
  ValueId a = g.nodes[size_t(g.addNode(Op::Exp, "a", {x}))].outputs[0];
  ValueId b = g.nodes[size_t(g.addNode(Op::Relu, "b", {a}))].outputs[0];
  ValueId c = g.nodes[size_t(g.addNode(Op::Neg, "c", {b}))].outputs[0];
  g.outputs = {c};
  MemoryPlan p = planMemory(g, plain(g, true));
  CHECK(p.inPlaceCount == 2);  // b over a, c over b
  CHECK(p.slots[size_t(a)].offset == p.slots[size_t(b)].offset);
  CHECK(p.slots[size_t(b)].offset == p.slots[size_t(c)].offset);
  CHECK(p.activationBytes <= 3 * 4096);
}

TEST_CASE("alias ops share storage and keep their source alive") {
  Graph g;
  ValueId x = g.addInput("x", f32({4, 250}));
  ValueId a = g.nodes[size_t(g.addNode(Op::Exp, "a", {x}))].outputs[0];
  ValueId r = g.nodes[size_t(g.addNode(Op::Reshape, "r", {a}, {{"shape", std::vector<int64_t>{1000}}}))].outputs[0];
  ValueId b = g.nodes[size_t(g.addNode(Op::Exp, "b", {x}))].outputs[0];
  ValueId c = g.nodes[size_t(g.addNode(Op::Mul, "c", {r, g.addConstant("k", [] {
                                                       HostTensor t(TensorType{DType::F32, {1000}});
                                                       return t;
                                                     }())}))].outputs[0];
  g.outputs = {b, c};
  MemoryPlan p = planMemory(g, plain(g, false));
  CHECK(p.slots[size_t(r)].offset == p.slots[size_t(a)].offset);
  CHECK_FALSE(overlap(p.slots[size_t(a)], p.slots[size_t(b)]));  // a lives on through r until c
  CHECK(p.weightsBytes == 4096);
}

TEST_CASE("all offsets are aligned for descriptor binding") {
  Graph g;
  ValueId x = g.addInput("x", f32({3}));
  ValueId v = x;
  for (int i = 0; i < 5; ++i) v = g.nodes[size_t(g.addNode(Op::Exp, "", {v}))].outputs[0];
  g.outputs = {v};
  MemoryPlan p = planMemory(g, plain(g, false));
  for (const TensorSlot& s : p.slots)
    if (s.arena >= 0) CHECK(s.offset % kArenaAlign == 0);
}

TEST_CASE("a tensor's device size is numel times its device dtype's width") {
  CHECK(deviceBytes({DType::F32, {3, 5}}) == 60);
  CHECK(deviceBytes({DType::F16, {3}}) == 12);   // f16 lives on the device as f32
  CHECK(deviceBytes({DType::BF16, {3}}) == 12);
  CHECK(deviceBytes({DType::I64, {2}}) == 8);    // i64 as i32
  CHECK(deviceBytes({DType::Bool, {5}}) == 20);  // bool as i32
  CHECK(deviceBytes({DType::F32, {0}}) == 4);    // never an empty binding
}

namespace {

ValueId node(Graph& g, Op op, const std::string& name, std::vector<ValueId> ins, Attrs attrs = {}) {
  return g.nodes[size_t(g.addNode(op, name, std::move(ins), std::move(attrs)))].outputs[0];
}

ValueId state(Graph& g, const std::string& name, Shape s) { return g.addState(name, HostTensor(f32(std::move(s)))); }

// plain() plus: every Unary/Binary node is one elementwise dispatch.
MemoryPlanInput withElementwise(const Graph& g) {
  MemoryPlanInput in = plain(g, true);
  for (const Node& n : g.nodes) in.elementwise.push_back(opInfo(n.op).cls != OpClass::Other);
  return in;
}

}  // namespace

TEST_CASE("a state update whose old value is dead is written in place") {
  // w.next = w - x is w's last reader (elementwise, same shape); y = exp(x)
  // comes after, while a copied w.next would still be live.
  Graph g;
  ValueId x = g.addInput("x", f32({1000}));
  ValueId w = state(g, "w", {1000});
  ValueId next = node(g, Op::Sub, "w.next", {w, x});
  ValueId y = node(g, Op::Exp, "y", {x});
  g.stateUpdates = {{w, next}};
  g.outputs = {y};

  MemoryPlan copy = planMemory(g, plain(g, true));  // no node known elementwise: the update is a copy
  CHECK(copy.inPlaceUpdates == 0);
  CHECK(copy.stateHome[size_t(next)] == kNoValue);
  CHECK(copy.slots[size_t(next)].arena == 1);
  CHECK(copy.activationBytes == 3 * 4096);  // x, y and w.next (live to the end, then copied)

  MemoryPlan p = planMemory(g, withElementwise(g));
  CHECK(p.inPlaceUpdates == 1);
  CHECK(p.stateHome[size_t(next)] == w);
  CHECK(p.slots[size_t(next)].arena == -1);  // the driver gives it w's State-arena slot
  CHECK(p.activationBytes == 2 * 4096);      // no activation bytes for the new value
  CHECK(p.naiveActivationBytes == 2 * 4096);
}

TEST_CASE("a state update is not written in place while the old value is still read") {
  Graph g;
  ValueId x = g.addInput("x", f32({1000}));
  ValueId w = state(g, "w", {1000});
  ValueId next = node(g, Op::Exp, "w.next", {x});
  ValueId y = node(g, Op::Mul, "y", {x, w});  // reads the old w after w.next is computed
  g.stateUpdates = {{w, next}};
  g.outputs = {y};
  MemoryPlan p = planMemory(g, withElementwise(g));
  CHECK(p.inPlaceUpdates == 0);
  CHECK(p.slots[size_t(next)].arena == 1);
  CHECK_FALSE(overlap(p.slots[size_t(next)], p.slots[size_t(y)]));

  SECTION("through a view of the old value") {
    Graph h;
    ValueId xh = h.addInput("x", f32({4, 250}));
    ValueId wh = state(h, "w", {1000});
    ValueId view = node(h, Op::Reshape, "view", {wh}, {{"shape", std::vector<int64_t>{4, 250}}});
    ValueId nh = node(h, Op::Exp, "w.next", {wh});
    ValueId yh = node(h, Op::Mul, "y", {xh, view});
    h.stateUpdates = {{wh, nh}};
    h.outputs = {yh};
    MemoryPlan q = planMemory(h, withElementwise(h));
    CHECK(q.inPlaceUpdates == 0);
    CHECK(q.stateHome[size_t(view)] == wh);  // a view of a state lives in it
    CHECK(q.slots[size_t(view)].arena == -1);
  }
  SECTION("a graph output is a view of the old value") {
    Graph h;
    ValueId wh = state(h, "w", {1000});
    ValueId view = node(h, Op::Reshape, "view", {wh}, {{"shape", std::vector<int64_t>{4, 250}}});
    ValueId nh = node(h, Op::Exp, "w.next", {wh});
    h.stateUpdates = {{wh, nh}};
    h.outputs = {view};
    CHECK(planMemory(h, withElementwise(h)).inPlaceUpdates == 0);
  }
}

TEST_CASE("a producer that reads the old value at other indices never writes in place") {
  // transpose(w) reads w[j, i] to write [i, j]: in place it would read
  // elements it already overwrote.
  Graph g;
  ValueId w = state(g, "w", {16, 16});
  ValueId next = node(g, Op::Transpose, "w.next", {w}, {{"perm", std::vector<int64_t>{1, 0}}});
  g.stateUpdates = {{w, next}};
  MemoryPlanInput in = withElementwise(g);
  CHECK_FALSE(in.elementwise[0]);
  MemoryPlan p = planMemory(g, in);
  CHECK(p.inPlaceUpdates == 0);
  CHECK(p.slots[size_t(next)].arena == 1);

  SECTION("nor one that reads it with a broadcast shape") {
    Graph h;
    ValueId s = state(h, "s", {1, 8});
    ValueId flat = node(h, Op::Reshape, "flat", {s}, {{"shape", std::vector<int64_t>{8}}});
    ValueId b = h.addInput("b", f32({1, 1}));
    ValueId nh = node(h, Op::Add, "s.next", {flat, b});  // [8] + [1,1] -> [1,8]
    h.stateUpdates = {{s, nh}};
    CHECK(planMemory(h, withElementwise(h)).inPlaceUpdates == 0);
  }
  SECTION("nor a new value that updates two states") {
    Graph h;
    ValueId x = h.addInput("x", f32({8}));
    ValueId a = state(h, "a", {8}), b = state(h, "b", {8});
    ValueId nh = node(h, Op::Exp, "both", {x});
    h.stateUpdates = {{a, nh}, {b, nh}};
    CHECK(planMemory(h, withElementwise(h)).inPlaceUpdates == 0);
  }
}

TEST_CASE("state_write results live in their state: no activation bytes") {
  Graph g;
  ValueId row = g.addInput("row", f32({1, 64}));
  ValueId at = g.addInput("t", TensorType{DType::I32, {}});
  ValueId cache = state(g, "cache", {128, 64});
  ValueId written = node(g, Op::StateWrite, "write", {cache, row, at}, {{"axis", int64_t(0)}});
  ValueId view = node(g, Op::Reshape, "view", {written}, {{"shape", std::vector<int64_t>{8192}}});
  ValueId sum = node(g, Op::ReduceSum, "sum", {view}, {{"axes", std::vector<int64_t>{0}}, {"keepdims", int64_t(0)}});
  g.stateUpdates = {{cache, written}};
  g.outputs = {sum};
  MemoryPlan p = planMemory(g, plain(g, false));
  CHECK(p.inPlaceUpdates == 1);
  CHECK(p.stateHome[size_t(written)] == cache);
  CHECK(p.stateHome[size_t(view)] == cache);
  CHECK(p.slots[size_t(written)].arena == -1);
  CHECK(p.naiveActivationBytes == 3 * 256);  // row, t, sum: nothing of the 32 KiB cache
  CHECK(p.activationBytes == 2 * 256);       // sum reuses row's bytes

  SECTION("a state_write that is not its state's update is refused") {
    g.stateUpdates.clear();
    CHECK_THROWS_WITH(planMemory(g, plain(g, false)), Catch::Contains("is not the update of its state"));
  }
}

TEST_CASE("attention_cache's cache results live in their states; its output in activations") {
  Graph g;
  ValueId q = g.addInput("q", f32({1, 4, 1, 8})), k = g.addInput("k", f32({1, 2, 1, 8})),
          v = g.addInput("v", f32({1, 2, 1, 8})), at = g.addInput("t", TensorType{DType::I64, {1}}),
          cos = g.addInput("cos", f32({1, 8})), sin = g.addInput("sin", f32({1, 8}));
  ValueId kc = state(g, "kc", {1, 2, 64, 8}), vc = state(g, "vc", {1, 2, 64, 8});
  NodeId a = g.addNode(Op::AttentionCache, "attn", {q, k, v, kc, vc, at, cos, sin}, {{"scale", 0.5}});
  const std::vector<ValueId> outs = g.nodes[size_t(a)].outputs;
  g.stateUpdates = {{kc, outs[1]}, {vc, outs[2]}};
  g.outputs = {outs[0]};
  MemoryPlan p = planMemory(g, plain(g, false));
  CHECK(p.inPlaceUpdates == 2);
  CHECK(p.stateHome[size_t(outs[1])] == kc);
  CHECK(p.stateHome[size_t(outs[2])] == vc);
  CHECK(p.slots[size_t(outs[1])].arena == -1);  // the driver places them as their states
  CHECK(p.slots[size_t(outs[2])].arena == -1);
  CHECK(p.slots[size_t(outs[0])].arena == 1);
  CHECK(p.stateHome[size_t(outs[0])] == kNoValue);

  SECTION("a cache result that is not its state's update is refused") {
    g.stateUpdates = {{kc, outs[1]}};
    CHECK_THROWS_WITH(planMemory(g, plain(g, false)), Catch::Contains("attn' result 'attn_2' is not the update of its state"));
  }
  SECTION("an operand that is the old cache is refused") {
    g.nodes[size_t(a)].inputs[1] = kc;  // k is the cache: the planner sees the bytes, not the shapes
    CHECK_THROWS_WITH(planMemory(g, plain(g, false)), Catch::Contains("cannot write 'kc' in place"));
  }
}

namespace {

// Two chains x -> exp -> neg, one after the other in program order, each
// tensor `n` floats; `chains` of them.
Graph parallelChains(int chains, int64_t n) {
  Graph g;
  ValueId x = g.addInput("x", f32({n}));
  for (int c = 0; c < chains; ++c) {
    ValueId a = node(g, Op::Exp, "a" + std::to_string(c), {x});
    g.outputs.push_back(node(g, Op::Neg, "b" + std::to_string(c), {a}));
  }
  return g;
}

// The barriers a run of g needs with plan p: one dispatch per node, ordered
// by level as the bundle builder does.
int barriersWith(const Graph& g, const MemoryPlan& p) {
  std::vector<DispatchAccess> access;
  auto range = [&](ValueId v) {
    const TensorSlot& s = p.slots[size_t(v)];
    return ByteRange{s.arena, s.offset, s.size};
  };
  for (const Node& n : g.nodes) {
    DispatchAccess a;
    for (ValueId v : n.inputs) a.reads.push_back(range(v));
    for (ValueId v : n.outputs) a.writes.push_back(range(v));
    access.push_back(std::move(a));
  }
  std::vector<size_t> order = orderByLevel(access);
  std::vector<DispatchAccess> ordered;
  for (size_t i : order) ordered.push_back(access[i]);
  int barriers = 0;
  for (bool b : placeBarriers(ordered)) barriers += b;
  return barriers;
}

}  // namespace

TEST_CASE("independent chains keep their own bytes, so they share barriers") {
  // In program order the second chain's first tensor could reuse the first
  // chain's (dead by then), but then it would have to wait for the first
  // chain's reader: 3 barriers instead of 1.
  Graph g = parallelChains(2, 1000);
  MemoryPlan p = planMemory(g, plain(g, false));
  CHECK(p.byLevel);
  CHECK(p.activationBytes > p.stepPeakBytes);
  CHECK_FALSE(overlap(p.slots[size_t(g.nodes[0].outputs[0])], p.slots[size_t(g.nodes[2].outputs[0])]));
  CHECK(barriersWith(g, p) == 1);
}

TEST_CASE("the level-aware plan is dropped when it needs much more memory") {
  // 8 chains of 1 MiB tensors: level lifetimes keep all 8 first tensors
  // live at once, program order only one.
  Graph g = parallelChains(8, 1 << 18);
  MemoryPlan p = planMemory(g, plain(g, false));
  CHECK_FALSE(p.byLevel);
  CHECK(p.activationBytes == p.stepPeakBytes);
  CHECK(p.activationBytes <= 10 * (uint64_t(1) << 20));  // the 8 outputs + one temporary + x
}

TEST_CASE("an output initialized by a node's first pass gets bytes that let that pass run a level early") {
  // x -> exp -> exp -> matmul(·, w): the product lowered as split-K, an
  // initializing pass (reads w only, writes y) and the slices (read the
  // second exp's result, add into y). Planned by node levels alone, y may
  // take the first exp's bytes, which the second exp still reads: the
  // initializing pass would wait for it. With earlyOutput it may not, and
  // runs beside the second exp.
  Graph g;
  ValueId x = g.addInput("x", f32({64, 64}));
  ValueId w = g.addConstant("w", HostTensor(f32({64, 64})));
  ValueId a = node(g, Op::Exp, "a", {x});
  ValueId b = node(g, Op::Exp, "b", {a});
  ValueId y = node(g, Op::MatMul, "mm", {b, w});
  ValueId z = node(g, Op::Neg, "z", {y});
  g.outputs = {z};
  auto barriers = [&](const MemoryPlan& p) {
    auto range = [&](ValueId v) {
      const TensorSlot& s = p.slots[size_t(v)];
      return ByteRange{s.arena, s.offset, s.size};
    };
    std::vector<DispatchAccess> access = {{{range(x)}, {range(a)}},
                                          {{range(a)}, {range(b)}},
                                          {{range(w)}, {range(y)}},
                                          {{range(b), range(w)}, {range(y)}},
                                          {{range(y)}, {range(z)}}};
    std::vector<DispatchAccess> ordered;
    for (size_t i : orderByLevel(access)) ordered.push_back(access[i]);
    int n = 0;
    for (bool bar : placeBarriers(ordered)) n += bar;
    return n;
  };
  MemoryPlanInput in = plain(g, false);
  in.dispatches = {1, 1, 2, 1};
  MemoryPlan byNodes = planMemory(g, in);
  CHECK(overlap(byNodes.slots[size_t(a)], byNodes.slots[size_t(y)]));
  CHECK(barriers(byNodes) == 4);
  in.earlyOutput = {false, false, true, false};
  MemoryPlan early = planMemory(g, in);
  CHECK_FALSE(overlap(early.slots[size_t(a)], early.slots[size_t(y)]));
  CHECK(barriers(early) == 3);
}
