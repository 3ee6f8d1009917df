#include <catch2/catch.hpp>

#include "passes/memory_plan.h"

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
