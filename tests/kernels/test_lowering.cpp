// Lowering without a GPU: the embedded kernel library is complete and
// consistent, every op lowers (or fails with a clear error), and the plans
// obey the kernel ABI (bindings = node values, grid limits).
#include <catch2/catch.hpp>
#include <spirv-tools/libspirv.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "formats/mgb_generated.h"
#include "ir/epilogue.h"
#include "ir/qweights.h"
#include "kernels/eltwise_program.h"
#include "kernels/kernel_entry.h"
#include "kernels/lower.h"
#include "kernels/lower_common.h"
#include "kernels/program_codegen.h"
#include "kernels/registry.h"
#include "kernels/specialize.h"
#include "op_cases.h"

using namespace mgc;

namespace {

struct Reflection {
  uint32_t localSize[3] = {0, 0, 0};
  std::set<uint32_t> bindings, sets;  // bindings of set 0
  std::set<uint32_t> set1Bindings;    // stream_sync.glsl's counters
  bool pushConstants = false;
};

// Reads OpExecutionMode LocalSize and OpDecorate Binding / DescriptorSet.
Reflection reflect(const KernelVariantBinary& k) {
  Reflection r;
  std::map<uint32_t, uint32_t> setOf, bindingOf;
  for (size_t i = 5; i < k.spirvWords;) {
    uint32_t w = k.spirv[i], count = w >> 16, opcode = w & 0xffff;
    REQUIRE(count > 0);
    REQUIRE(i + count <= k.spirvWords);
    const uint32_t* ops = k.spirv + i + 1;
    if (opcode == 16 && ops[1] == 17) std::copy(ops + 2, ops + 5, r.localSize);  // LocalSize
    if (opcode == 71 && ops[1] == 33) bindingOf[ops[0]] = ops[2];                // Binding
    if (opcode == 71 && ops[1] == 34) setOf[ops[0]] = ops[2];                    // DescriptorSet
    if (opcode == 59 && ops[2] == 9) r.pushConstants = true;                     // OpVariable PushConstant
    i += count;
  }
  for (const auto& [id, set] : setOf) r.sets.insert(set);
  for (const auto& [id, binding] : bindingOf) (setOf[id] == 1 ? r.set1Bindings : r.bindings).insert(binding);
  return r;
}

// SpecId → (opcode, value word) of each specialization constant.
std::map<uint32_t, std::pair<uint32_t, uint32_t>> specConstants(const std::vector<uint32_t>& m) {
  std::map<uint32_t, uint32_t> idOf;
  for (size_t i = 5; i < m.size(); i += m[i] >> 16)
    if ((m[i] & 0xffff) == 71 && m[i + 2] == 1) idOf[m[i + 1]] = m[i + 3];  // OpDecorate SpecId
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> out;
  for (size_t i = 5; i < m.size(); i += m[i] >> 16) {
    const uint32_t op = m[i] & 0xffff;
    if ((op == 48 || op == 49 || op == 50) && idOf.count(m[i + 2]))
      out[idOf[m[i + 2]]] = {op, op == 50 ? m[i + 3] : 0u};
  }
  return out;
}

bool contains(const std::vector<ValueId>& vs, ValueId v) { return std::find(vs.begin(), vs.end(), v) != vs.end(); }

}  // namespace

TEST_CASE("every embedded kernel is valid SPIR-V with matching metadata and MSL") {
  for (const char* name : {"batchnorm", "conv2d", "conv2d_direct", "conv2d_finish", "conv2d_splitk", "copy", "eltwise",
                           "gather", "layernorm", "matmul", "pool2d", "reduce", "softmax"})
    CHECK(findKernel(name) != nullptr);
  for (size_t i = 0; i < kernelCount(); ++i) {
    const KernelBinary& kb = kernelAt(i);
    REQUIRE(kb.variantCount >= 1);
    CHECK(std::string(kb.portable().tag) == "portable");
    CHECK(kb.portable().features == 0);
    for (size_t v = 0; v < kb.variantCount; ++v) {
      const KernelVariantBinary& k = kb.variants[v];
      INFO("kernel " << kb.name << " variant " << k.tag);
      REQUIRE(k.spirvWords > 5);
      CHECK(k.spirv[0] == 0x07230203u);
      Reflection r = reflect(k);
      CHECK(r.localSize[0] == k.localSize[0]);
      CHECK(r.localSize[1] == k.localSize[1]);
      CHECK(r.localSize[2] == k.localSize[2]);
      // The portable build fits any device's 256 invocations; other
      // variants are chosen only where the device allows more.
      CHECK(k.localSize[0] * k.localSize[1] * k.localSize[2] <= (v + 1 == kb.variantCount ? 256u : 1024u));
      // A stream kernel (stream_sync.glsl) adds the counters at set 1,
      // binding 0, and push constants; no other kernel has either.
      CHECK(r.sets == (kb.stream ? std::set<uint32_t>{0, 1} : std::set<uint32_t>{0}));
      CHECK(r.set1Bindings == (kb.stream ? std::set<uint32_t>{0} : std::set<uint32_t>{}));
      CHECK(r.pushConstants == kb.stream);
      CHECK(r.bindings.size() == kb.numBindings + 1);
      CHECK(*r.bindings.rbegin() == kb.numBindings);
      // Every kernel runs on Metal through its portable variant at least; a
      // variant without MSL (msl=none) needs a feature Metal lacks or
      // SPIRV-Cross cannot translate (its MSL for OpAtomicFAddEXT is GLSL's
      // atomicAdd call).
      std::string msl = k.msl;
      if (msl.empty() && v + 1 < kb.variantCount) {
        CHECK((k.features & (uint32_t(mgb::Feature::CooperativeMatrixNV) | uint32_t(mgb::Feature::CooperativeMatrixKHR) |
                             uint32_t(mgb::Feature::AtomicFloat32Add))));
        continue;
      }
      // A cooperative matrix shape comes with a cooperative matrix feature.
      if (k.coopShape[0] != 0)
        CHECK((k.features & (uint32_t(mgb::Feature::CooperativeMatrixNV) | uint32_t(mgb::Feature::CooperativeMatrixKHR))));
      CHECK(msl.find("kernel void main0") != std::string::npos);
      CHECK(msl.find("[[buffer(0)]]") != std::string::npos);
      CHECK(msl.find("[[buffer(" + std::to_string(kb.numBindings) + ")]]") != std::string::npos);
    }
    // The build's reflection of the specialization ids agrees with a walk of the module.
    CHECK(std::vector<uint32_t>(kb.specIds, kb.specIds + kb.specIdCount) ==
          kern::paramSpecIds(kb.portable().spirv, kb.portable().spirvWords));
    if (i > 0) CHECK(std::string(kernelAt(i - 1).name) < std::string(kb.name));
    CHECK(findKernel(kb.name) == &kb);
  }
  CHECK(findKernel("no_such_kernel") == nullptr);
  CHECK(findKernel("") == nullptr);
}

TEST_CASE("eltwise specializes to its program: constants mirror the params words") {
  const KernelBinary& kb = *findKernel("eltwise");
  const KernelVariantBinary& portable = kb.portable();
  std::vector<uint32_t> ids = kern::paramSpecIds(portable.spirv, portable.spirvWords);
  std::vector<uint32_t> want = {1, 2, 3, 4};
  constexpr uint32_t P = EW_PARAM_PROGRAM;
  for (uint32_t w = P; w < P + 3 * EW_MAX_INSTRS; ++w) want.push_back(w);
  CHECK(ids == want);
  // Kernels without the flag are never specialized.
  const KernelBinary& mm = *findKernel("matmul");
  CHECK(kern::paramSpecIds(mm.portable().spirv, mm.portable().spirvWords).empty());
  CHECK(specializationKey(mm, {1, 2, 3}) == "matmul");

  std::vector<uint32_t> params(P + 3 * EW_MAX_INSTRS, 0);
  params[1] = 2, params[2] = 3, params[3] = 5, params[4] = 1, params[P] = 0x1234, params[P + 2] = 77;
  const mgb::KernelEntry entry = specializedKernelEntry(kb, params);
  REQUIRE(entry.variants.size() == kb.variantCount);
  auto spec = specConstants(entry.variants.back().spirv);
  CHECK(spec.at(kern::kSpecializedId).first == 48);  // OpSpecConstantTrue
  CHECK(spec.at(2) == std::make_pair(50u, 3u));
  CHECK(spec.at(3) == std::make_pair(50u, 5u));
  CHECK(spec.at(P) == std::make_pair(50u, 0x1234u));
  CHECK(spec.at(P + 2) == std::make_pair(50u, 77u));
  CHECK(spec.at(P + 3) == std::make_pair(50u, 0u));
  // The generic module keeps the flag false; the copy is the kernel built
  // with its program as code (program_codegen.h), then specialized; the
  // MSL stays the generic kernel's.
  auto generic = specConstants(kernelEntry(kb).variants.back().spirv);
  CHECK(generic.at(kern::kSpecializedId).first == 49);  // OpSpecConstantFalse
  const std::vector<uint32_t> built = kern::generatedProgramSpirv("eltwise", params);
  CHECK(entry.variants.back().spirv == kern::specializeSpirv(built.data(), built.size(), params));
  CHECK(entry.variants.back().msl == std::string(portable.msl));
  // Equal words share a copy; a different program word does not.
  std::vector<uint32_t> other = params;
  other[0] = 999;  // the element count is not specialized
  CHECK(specializationKey(kb, other) == specializationKey(kb, params));
  other[P + 1] = 1;
  CHECK(specializationKey(kb, other) != specializationKey(kb, params));
  // Short params (no program) leave the rest at their defaults, in the
  // interpreting module; a broken module is an error.
  CHECK_NOTHROW(specializedKernelEntry(kb, {0, 1}));
  CHECK(specializedKernelEntry(kb, {0, 1}).variants.back().spirv.size() == portable.spirvWords);
  std::vector<uint32_t> broken(portable.spirv, portable.spirv + 8);
  broken[5] = (100u << 16) | 17u;  // a word count past the end
  CHECK_THROWS_WITH(kern::specializeSpirv(broken.data(), broken.size(), params),
                    Catch::Contains("malformed SPIR-V"));
}

TEST_CASE("generated programs: straight-line GLSL from execute()'s cases, for every opcode") {
  // r2 = r0 - r1; r3 = r2 * imm (a constant load, then a multiply).
  const uint32_t program[] = {41u | 2u << 8 | 0u << 12 | 1u << 16, 0, 0,  // SUB_F
                              1u | 4u << 8, 0x40000000u, 0,               // CONST 2.0
                              43u | 3u << 8 | 2u << 12 | 4u << 16, 0, 0};  // MUL_F
  CHECK(kern::programGlsl(program, 3, 2, 3) ==
        "// Generated by kernels/program_codegen.cpp: this dispatch's program.\n"
        "uint programValue(uint off[EW_MAX_INPUTS]) {\n"
        "  uint r0 = 0u, r1 = 0u, r2 = 0u, r3 = 0u, r4 = 0u, r5 = 0u, r6 = 0u, r7 = 0u, r8 = 0u, r9 = 0u, r10 = 0u, "
        "r11 = 0u, r12 = 0u, r13 = 0u, r14 = 0u, r15 = 0u;\n"
        "  r0 = in0[off[0]];\n"
        "  r1 = in1[off[1]];\n"
        "  { uint a = r0, b = r1, c = r0, imm0 = 0x00000000u, imm1 = 0x00000000u; float x = F(a), y = F(b); "
        "r2 = U(x - y); }\n"
        "  { uint a = r0, b = r0, c = r0, imm0 = 0x40000000u, imm1 = 0x00000000u; float x = F(a), y = F(b); "
        "r4 = imm0; }\n"
        "  { uint a = r2, b = r4, c = r0, imm0 = 0x00000000u, imm1 = 0x00000000u; float x = F(a), y = F(b); "
        "r3 = U(x * y); }\n"
        "  return r3;\n}\n");
  const uint32_t bad[] = {200u, 0, 0};
  CHECK_THROWS_WITH(kern::programGlsl(bad, 1, 1, 0), Catch::Contains("opcode 200 has no case in execute()"));
  CHECK_THROWS_WITH(kern::programGlsl(program, 17, 1, 0), Catch::Contains("limits"));
  // Every opcode of eltwise_ops.def has its expression and compiles in both
  // kernels (the op cases check what the copies compute on a GPU).
  const std::vector<EwOp> ops = {
#define EW_OP(name, code) EwOp::name,
#include "kernels/src/eltwise_ops.def"
#undef EW_OP
  };
  spvtools::SpirvTools validator(SPV_ENV_VULKAN_1_0);
  for (EwOp op : ops) {
    INFO("opcode " << int(op));
    std::vector<uint32_t> params(EW_PARAM_PROGRAM + 3, 0);
    params[1] = 3, params[2] = 1, params[3] = 3;
    params[EW_PARAM_PROGRAM] = uint32_t(op) | 3u << 8 | 0u << 12 | 1u << 16 | 2u << 20;
    REQUIRE(kern::hasGeneratedProgram("eltwise", params));
    const std::vector<uint32_t> spirv = kern::generatedProgramSpirv("eltwise", params);
    CHECK(validator.Validate(spirv));
  }
  std::vector<uint32_t> reduce(116 + 3, 0);
  reduce[17] = 2, reduce[18] = 1, reduce[19] = 2, reduce[116] = 43u | 2u << 8 | 0u << 12 | 1u << 16;
  REQUIRE(kern::hasGeneratedProgram("reduce_fused", reduce));
  CHECK(validator.Validate(kern::generatedProgramSpirv("reduce_fused", reduce)));
  CHECK(!kern::hasGeneratedProgram("reduce", reduce));
  CHECK(!kern::hasGeneratedProgram("eltwise", {0, 1, 0}));  // no instructions
}

TEST_CASE("generated programs: reduce_fused's walks with the dims and strides as literals") {
  // Two inputs viewed as kept [4, 6] and reduced [5]: input 0 strides 30, 5 (kept) and 1 (reduced),
  // input 1 broadcast along the first kept dim and the reduced one.
  std::vector<uint32_t> p(RF_PARAM_PROGRAM, 0);
  std::fill(p.begin() + RF_PARAM_KEPT_DIMS, p.begin() + RF_PARAM_NUM_INPUTS, 1u);
  p[RF_PARAM_KEPT_DIMS + 4] = 4, p[RF_PARAM_KEPT_DIMS + 5] = 6, p[RF_PARAM_REDUCED_DIMS + 5] = 5;
  p[RF_PARAM_NUM_INPUTS] = 2;
  p[RF_PARAM_KEPT_STRIDES + 4] = 30, p[RF_PARAM_KEPT_STRIDES + 5] = 5, p[RF_PARAM_KEPT_STRIDES + 6 + 5] = 1;
  p[RF_PARAM_REDUCED_STRIDES + 5] = 1;
  CHECK(kern::reduceWalksGlsl(p) ==
        "void walkKept(uint index, inout uint off[EW_MAX_INPUTS]) {\n"
        "  { uint q = index / 6u, digit = index - q * 6u; off[0] += digit * 5u; off[1] += digit * 1u; index = q; }\n"
        "  { uint q = index / 4u, digit = index - q * 4u; off[0] += digit * 30u; index = q; }\n"
        "}\n"
        "void walkReduced(uint index, inout uint off[EW_MAX_INPUTS]) {\n"
        "  { uint q = index / 5u, digit = index - q * 5u; off[0] += digit * 1u; index = q; }\n"
        "}\n"
        "void stepInnerReduced(uint i, inout uint off[EW_MAX_INPUTS]) {\n"
        "  off[0] += i * 1u;\n"
        "}\n");
  CHECK_THROWS_WITH(kern::reduceWalksGlsl(std::vector<uint32_t>(20, 1)), Catch::Contains("too short"));
}

TEST_CASE("every op has a test case and lowers within the kernel ABI") {
  std::set<Op> covered;
  std::set<std::string> kernelsUsed;
  for (const test::OpCase& c : test::opCases()) {
    const Node& n = c.graph.nodes.at(0);
    INFO("case '" << c.label << "'");
    covered.insert(n.op);
    std::vector<DispatchPlan> plans = lowerNode(c.graph, n);
    if (isAliasOp(n)) {
      CHECK(plans.empty());
      continue;
    }
    REQUIRE(!plans.empty());
    std::set<ValueId> written;  // the last numWritten bindings of each dispatch
    for (const DispatchPlan& d : plans) {
      const KernelBinary* k = findKernel(d.kernel);
      REQUIRE(k != nullptr);
      kernelsUsed.insert(d.kernel);
      CHECK(d.node == n.name);
      CHECK(!d.params.empty());
      REQUIRE(d.bindings.size() == k->numBindings);
      for (ValueId v : d.bindings) CHECK((contains(n.inputs, v) || contains(n.outputs, v)));
      REQUIRE(d.numWritten >= 1);
      REQUIRE(d.numWritten <= d.bindings.size());
      for (size_t b = d.bindings.size() - d.numWritten; b < d.bindings.size(); ++b) {
        CHECK(contains(n.outputs, d.bindings[b]));  // a dispatch writes only its node's results
        written.insert(d.bindings[b]);
      }
      for (uint32_t gc : d.groups) {
        CHECK(gc >= 1);
        CHECK(gc <= 65535);
      }
    }
    for (ValueId v : n.outputs) CHECK(written.count(v) == 1);  // every result is written
  }
  for (int i = 0; i < kNumOps; ++i) {
    INFO("op " << opName(Op(i)));
    CHECK(covered.count(Op(i)) == 1);
  }
  for (size_t i = 0; i < kernelCount(); ++i) {
    INFO("kernel " << kernelAt(i).name);
    CHECK(kernelsUsed.count(kernelAt(i).name) == 1);
  }
}

TEST_CASE("unsupported lowerings throw errors naming the node") {
  auto expectError = [](const Graph& g, const std::string& what) {
    try {
      lowerNode(g, g.nodes.at(0));
      FAIL("no error for " << what);
    } catch (const Error& e) {
      std::string msg = e.what();
      CHECK(msg.find("'bad'") != std::string::npos);
      CHECK(msg.find(what) != std::string::npos);
    }
  };
  {
    Graph g;
    ValueId a = g.addInput("a", {DType::I32, {5, 7}}), b = g.addInput("b", {DType::I32, {7, 3}});
    g.addNode(Op::MatMul, "bad", {a, b});
    expectError(g, "f32");
  }
  {  // 7 dims that cannot merge: the outer one is peeled, 300 dispatches are too many
    Graph g;
    ValueId x = g.addInput("x", {DType::F32, {2, 3, 2, 3, 2, 3, 300}});
    g.addNode(Op::Transpose, "bad", {x}, {{"perm", std::vector<int64_t>{6, 5, 4, 3, 2, 1, 0}}});
    expectError(g, "more than 256 dispatches");
  }
  {  // an outer dim that pads cannot be peeled
    Graph g;
    ValueId x = g.addInput("x", {DType::F32, {2, 3, 2, 3, 2, 3, 2}});
    g.addNode(Op::Pad, "bad", {x}, {{"pads", std::vector<int64_t>{1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0}}});
    expectError(g, "with padding on an outer one");
  }
}

TEST_CASE("copy: dims that walk as one merge, past 6 the outer ones are peeled") {
  {  // a transpose of the two outer axes of [4,5,6,7]: 5·... the inner [6,7] merge into one dim of 42
    Graph g;
    ValueId x = g.addInput("x", {DType::F32, {4, 5, 6, 7}});
    g.addNode(Op::Transpose, "t", {x}, {{"perm", std::vector<int64_t>{1, 0, 2, 3}}});
    std::vector<DispatchPlan> plans = lowerNode(g, g.nodes[0]);
    REQUIRE(plans.size() == 1);
    const std::vector<uint32_t>& p = plans[0].params;
    // dims are right-aligned in 6 slots: 3 no-op slots, then 5, 4, 42
    CHECK(p[4 + 6 * 3] == 5);
    CHECK(p[4 + 6 * 4] == 4);
    CHECK(p[4 + 6 * 5] == 42);
  }
  {  // 7 dims that cannot merge: one dispatch per index of the outermost
    Graph g;
    ValueId x = g.addInput("x", {DType::F32, {2, 3, 2, 3, 2, 3, 2}});
    g.addNode(Op::Transpose, "t", {x}, {{"perm", std::vector<int64_t>{6, 5, 4, 3, 2, 1, 0}}});
    std::vector<DispatchPlan> plans = lowerNode(g, g.nodes[0]);
    REQUIRE(plans.size() == 2);
    CHECK(plans[0].params[1] == 0);        // output offsets: 0 and one out[0] stride (3·2·3·2·3·2)
    CHECK(plans[1].params[1] == 216);
    CHECK(plans[0].params[3] == 0);        // source offsets: in[6] index 0 and 1 (stride 1)
    CHECK(plans[1].params[3] == 1);
  }
}

TEST_CASE("eltwise params: program limits and broadcast strides") {
  Graph g;
  ValueId a = g.addInput("a", {DType::F32, {5, 1, 7}}), b = g.addInput("b", {DType::F32, {6, 1}});
  g.addNode(Op::Add, "add", {a, b});
  std::vector<DispatchPlan> plans = lowerNode(g, g.nodes[0]);
  REQUIRE(plans.size() == 1);
  const std::vector<uint32_t>& p = plans[0].params;
  REQUIRE(p.size() == EW_PARAM_PROGRAM + 3);
  CHECK(p[0] == 210);
  CHECK(p[1] == 2);
  CHECK(p[4] == 0);  // neither input is laid out like the output
  CHECK(std::vector<uint32_t>(p.begin() + 5, p.begin() + 11) == std::vector<uint32_t>{1, 1, 1, 5, 6, 7});
  CHECK(std::vector<uint32_t>(p.begin() + 11, p.begin() + 17) == std::vector<uint32_t>{0, 0, 0, 7, 0, 1});
  CHECK(std::vector<uint32_t>(p.begin() + 17, p.begin() + 23) == std::vector<uint32_t>{0, 0, 0, 0, 1, 0});
  CHECK((p[EW_PARAM_PROGRAM] & 255) == uint32_t(EwOp::ADD_F));
  CHECK(plans[0].bindings == std::vector<ValueId>{a, b, a, a, a, a, a, a, g.nodes[0].outputs[0]});

  EltwiseProgram prog;
  prog.numInputs = 1;
  for (int i = 0; i < 17; ++i) prog.emit(EwOp::EXP, 1, 0);
  CHECK_THROWS_AS(encodeEltwiseParams(g.nodes[0], prog, {5}, {{5}}), Error);
}

TEST_CASE("matmul params: broadcast batch strides") {
  Graph g;
  ValueId a = g.addInput("a", {DType::F32, {2, 1, 5, 7}}), b = g.addInput("b", {DType::F32, {3, 7, 6}});
  g.addNode(Op::MatMul, "mm", {a, b});
  std::vector<DispatchPlan> plans = lowerNode(g, g.nodes[0]);
  REQUIRE(plans.size() == 1);
  const std::vector<uint32_t>& p = plans[0].params;
  CHECK(std::vector<uint32_t>(p.begin(), p.begin() + 4) == std::vector<uint32_t>{5, 6, 7, 6});
  CHECK(std::vector<uint32_t>(p.begin() + 4, p.begin() + 8) == std::vector<uint32_t>{1, 1, 2, 3});
  CHECK(std::vector<uint32_t>(p.begin() + 8, p.begin() + 12) == std::vector<uint32_t>{0, 0, 35, 0});
  CHECK(std::vector<uint32_t>(p.begin() + 12, p.begin() + 16) == std::vector<uint32_t>{0, 0, 0, 42});
  CHECK(plans[0].groups[0] == 1);
  CHECK(plans[0].groups[2] == 6);
}

TEST_CASE("qmatvec: the one-row path's slices and grid; copies per decoder width") {
  // A decode step's QMatMul [1, K] x W [N, K] (packed as `f`, groups of 64).
  auto lower = [](WeightFormat f, int64_t K, int64_t N, int64_t M = 1, int64_t group = 64) {
    Graph g;
    const int64_t per = weightsPerWord(f);
    std::vector<ValueId> ins{g.addInput("x", {DType::F32, {M, K}}), g.addInput("w", {DType::I32, {N, K / per}})};
    ins.push_back(weightFormatInfo(f).scaled ? g.addInput("s", {DType::F32, {N, K / group}}) : kNoValue);
    g.addNode(Op::QMatMul, "q", ins, {{"format", int64_t(f)}, {"group", group}});
    std::vector<DispatchPlan> plans = lowerNode(g, g.nodes[0]);
    // Split-K (K > 4096 on the one-row path): a zeroing pass, then qmatvec adding into its output.
    const bool split = M == 1 && K > 4096;
    REQUIRE(plans.size() == (split ? 2u : 1u));
    if (split) CHECK(plans[0].kernel == "conv2d_finish");
    REQUIRE(plans.back().kernel == "qmatvec");
    REQUIRE(plans.back().params.size() == 45);
    return plans.back();
  };
  // p[42] = S warps per 4 rows of W, 32 / S rows per workgroup: at least ~256 row groups, at most 4
  // steps per lane, for Llama-7B widths; with K <= 4096 (x staged once) at most 256 workgroups, which
  // loop over the row groups. K > 4096: P = p[43] parts of p[44] columns (16-byte columns, whole
  // groups, at most a staged chunk each), 256 / P workgroups per part looping over the row groups.
  struct Want {
    WeightFormat f;
    int64_t K, N;
    uint32_t S, groups, parts = 1, partColumns = 0;
  };
  for (const Want& w : {Want{WeightFormat::Int4, 4096, 4096, 2, 256}, Want{WeightFormat::Int4, 4096, 11008, 1, 256},
                        Want{WeightFormat::Int4, 11008, 4096, 2, 255, 3, 116},
                        Want{WeightFormat::Int4, 4096, 32000, 1, 256}, Want{WeightFormat::F16, 4096, 4096, 4, 256},
                        Want{WeightFormat::Ternary, 4096, 4096, 2, 256}, Want{WeightFormat::Int8, 4096, 1024, 8, 256},
                        Want{WeightFormat::Int4, 4096, 1024, 4, 128}, Want{WeightFormat::Int4, 576, 192, 1, 6},
                        Want{WeightFormat::Ternary, 11008, 4096, 1, 255, 3, 58}}) {
    INFO("format " << int(w.f) << " K " << w.K << " N " << w.N);
    const DispatchPlan d = lower(w.f, w.K, w.N);
    CHECK(d.params[42] == w.S);
    CHECK(d.groups[0] == w.groups);
    CHECK(d.params[43] == w.parts);
    CHECK(d.params[44] == w.partColumns);
    // Every row group has a workgroup, or (x staged once) the 256 workgroups loop over them.
    const int64_t rowGroups = (w.N + 32 / w.S - 1) / (32 / w.S), parts = std::max<int64_t>(w.parts, 1);
    CHECK(int64_t(d.groups[0]) % parts == 0);
    CHECK(int64_t(d.groups[0]) == std::min<int64_t>(rowGroups, 256 / parts) * parts);
  }
  // The per-row path (S = 0, 8 rows of W per workgroup): several rows of x, rows of W not a multiple of 4 words.
  CHECK(lower(WeightFormat::Int4, 4096, 100, 2).params[42] == 0);
  CHECK(lower(WeightFormat::Int4, 4096, 100, 2).groups[0] == 13);
  CHECK(lower(WeightFormat::F16, 70, 9).params[42] == 0);
  // Specialized on M, K, flags, format, words per group, groups per row and S, not N: the seven
  // projections of a Llama-7B layer and the lm_head share 3 copies (the prologues' flags add more).
  const KernelBinary& kb = *findKernel("qmatvec");
  CHECK(kern::paramSpecIds(kb.portable().spirv, kb.portable().spirvWords) ==
        std::vector<uint32_t>{0, 2, 36, 37, 39, 40, 42, 43, 44});
  std::set<std::string> keys;
  for (auto [K, N] : {std::pair<int64_t, int64_t>{4096, 4096}, {4096, 4096}, {4096, 4096}, {4096, 4096},
                      {4096, 11008}, {4096, 11008}, {11008, 4096}, {4096, 32000}})
    keys.insert(specializationKey(kb, lower(WeightFormat::Int4, K, N).params));
  CHECK(keys.size() == 3);
}

TEST_CASE("convs with few output tiles and a long K split K over workgroups") {
  auto conv = [](Shape x, Shape w, bool bias = true, std::vector<EpilogueStep> steps = {}) {
    Graph g;
    ValueId xv = g.addInput("x", {DType::F32, x}), wv = g.addInput("w", {DType::F32, w});
    std::vector<ValueId> ins = {xv, wv, bias ? g.addInput("b", {DType::F32, {w[0]}}) : kNoValue};
    Attrs attrs{{"pads", std::vector<int64_t>{1, 1, 1, 1}}};
    std::vector<int64_t> codes;
    for (EpilogueStep s : steps) {
      codes.push_back(int64_t(s));
      if (s == EpilogueStep::Add) ins.push_back(g.addInput("r", {DType::F32, {x[0], w[0], x[2], x[3]}}));
    }
    if (!steps.empty()) {
      attrs["epilogue"] = codes;
      attrs["epilogue_args"] = std::vector<double>(2 * steps.size(), 0.0);
    }
    g.addNode(Op::Conv, "c", ins, attrs);
    return lowerNode(g, g.nodes[0]);
  };
  // ResNet-18's 7x7 layer: 8 tiles of 64x64, K = 4608 → 16 slices of 288;
  // a residual add, then relu.
  std::vector<DispatchPlan> late = conv({1, 512, 7, 7}, {512, 512, 3, 3}, true, {EpilogueStep::Add, EpilogueStep::Relu});
  REQUIRE(late.size() == 3);
  CHECK(late[0].kernel == "conv2d_finish");
  CHECK(late[0].params[4] == 0);
  CHECK(late[0].params[3] == 1);  // starts at the bias (plus the residual)
  CHECK(late[1].kernel == "conv2d_splitk");
  CHECK(late[1].params[17] == 16);
  CHECK(late[1].params[18] == 288);
  CHECK(late[1].groups[0] == 1);
  CHECK(late[1].groups[1] == 8);
  CHECK(late[1].groups[2] == 16);
  CHECK(late[2].kernel == "conv2d_finish");
  CHECK(late[2].params[4] == 1);  // the relu
  CHECK(late[0].params[0] == 512 * 49);
  // A bias and adds are linear: the zeroing pass starts the sum at them and
  // no finishing pass follows; without a bias neither.
  for (bool bias : {true, false})
    for (auto steps : {std::vector<EpilogueStep>{}, std::vector<EpilogueStep>{EpilogueStep::Add}}) {
      std::vector<DispatchPlan> linear = conv({1, 512, 7, 7}, {512, 512, 3, 3}, bias, steps);
      REQUIRE(linear.size() == 2);
      CHECK(linear[0].kernel == "conv2d_finish");
      CHECK(linear[1].kernel == "conv2d_splitk");
    }
  // Enough tiles already (784), or a short K (216 < two slices of 128):
  // one conv2d dispatch.
  CHECK(conv({4, 64, 112, 112}, {64, 64, 3, 3}).size() == 1);
  CHECK(conv({1, 24, 7, 7}, {512, 24, 3, 3}).size() == 1);
  // Grids below 256 tiles split towards 512 workgroups: the SD U-Net's 3x3
  // conv over 512 channels at 32² (64 tiles, K = 4608) in 8 slices,
  // ResNet-50's over 128 channels at 28² (98 tiles, K = 1152) in 6 of 192,
  // its 56² one over 64 channels (196 tiles, K = 576) in 3.
  std::vector<DispatchPlan> mid = conv({1, 512, 32, 32}, {256, 512, 3, 3});
  REQUIRE(mid.size() == 2);
  CHECK(mid[1].kernel == "conv2d_splitk");
  CHECK(mid[1].params[17] == 8);
  std::vector<DispatchPlan> r28 = conv({4, 128, 28, 28}, {128, 128, 3, 3});
  REQUIRE(r28.size() == 2);
  CHECK(r28[1].params[17] == 6);
  CHECK(r28[1].params[18] == 192);
  CHECK(conv({4, 64, 56, 56}, {64, 64, 3, 3})[1].params[17] == 3);
}

TEST_CASE("split-K products finish with their epilogue, and only with one") {
  auto product = [](bool bias, bool gelu) {
    Graph g;
    ValueId a = g.addInput("a", {DType::F32, {128, 576}}), b = g.addInput("b", {DType::F32, {576, 192}});
    std::vector<ValueId> ins = {a, b};
    std::vector<int64_t> codes;
    if (bias) {
      ins.push_back(g.addInput("bias", {DType::F32, {192}}));
      codes.push_back(int64_t(EpilogueStep::Add));
    }
    if (gelu) codes.push_back(int64_t(EpilogueStep::GeluErf));
    Attrs attrs;
    if (!codes.empty()) attrs = {{"epilogue", codes}, {"epilogue_args", std::vector<double>(2 * codes.size(), 0.0)}};
    g.addNode(Op::MatMul, "mm", ins, attrs);
    return lowerNode(g, g.nodes[0]);
  };
  // A language model's k projection over 128 tokens: 6 tiles, K = 576. The
  // bias (an add step) goes into the zeroing pass; only the gelu needs a
  // finishing one.
  for (bool bias : {false, true}) {
    std::vector<DispatchPlan> plain = product(bias, false), act = product(bias, true);
    REQUIRE(plain.size() == 2);
    CHECK(plain[0].kernel == "conv2d_finish");
    CHECK(plain[0].params[5] == (bias ? 1u : 0u));
    CHECK(plain[1].kernel == "matmul_splitk");
    REQUIRE(act.size() == 3);
    CHECK(act[2].kernel == "conv2d_finish");
    CHECK(act[2].params[4] == 1);
    CHECK(act[2].params[5] == (bias ? 2u : 1u));
  }
}

TEST_CASE("tall mid-grid products split on the 8x8 core, others on the 4x4 one") {
  auto product = [](int64_t M, int64_t K, int64_t N) {
    Graph g;
    ValueId a = g.addInput("a", {DType::F32, {M, K}}), b = g.addInput("b", {DType::F32, {K, N}});
    g.addNode(Op::MatMul, "mm", {a, b}, Attrs{});
    return lowerNode(g, g.nodes[0]);
  };
  // Whisper's projection (144 tiles over K 384) and fc2 (K 1536): 3 slices of 128 / 512.
  for (auto [K, sliceK] : {std::pair<int64_t, uint32_t>{384, 128}, {1536, 512}}) {
    std::vector<DispatchPlan> p = product(1500, K, 384);
    REQUIRE(p.size() == 2);
    CHECK(p[1].kernel == "matmul_medium_splitk");
    CHECK(p[1].params[37] == 3);
    CHECK(p[1].params[38] == sliceK);
    CHECK(p[1].groups[0] == 6);
    CHECK(p[1].groups[1] == 24);
    CHECK(p[1].groups[2] == 3);
  }
  // Fewer rows (a U-Net's 256 tokens): the 4x4 core's split.
  std::vector<DispatchPlan> shortRows = product(256, 1024, 1024);
  REQUIRE(shortRows.size() == 2);
  CHECK(shortRows[1].kernel == "matmul_splitk");
}

TEST_CASE("big tensors get a 2-D grid within the workgroup count limit") {
  Graph g;
  ValueId x = g.addInput("x", {DType::F32, {4099, 4099}});
  g.addNode(Op::Relu, "relu", {x});
  std::vector<DispatchPlan> plans = lowerNode(g, g.nodes[0]);
  REQUIRE(plans.size() == 1);
  CHECK(plans[0].groups[0] == 65535);
  CHECK(plans[0].groups[1] == 2);
  CHECK(uint64_t(plans[0].groups[0]) * plans[0].groups[1] * 256 >= 4099ull * 4099ull);
}

TEST_CASE("fast divisors divide exactly below 2^31") {
  auto divide = [](uint32_t n, uint64_t d, kern::FastDivisor f) -> uint64_t {
    if (f.mul == 0) return n / d;
    return ((uint64_t(n) * f.mul) >> 32) >> f.shift;
  };
  std::vector<uint64_t> divisors = {1, 2, 3, 5, 7, 49, 64, 196, 3136, 12544, 65535, 65536, 1000003,
                                    (1u << 30) + 1, (1u << 31) - 1, 1u << 31};
  uint64_t seed = 12345;
  for (int k = 0; k < 200; ++k) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    divisors.push_back(2 + (seed >> 33) % ((1u << 31) - 2));
    divisors.push_back(2 + (seed >> 50));
  }
  for (uint64_t d : divisors) {
    const kern::FastDivisor f = kern::fastDivisor(d);
    CHECK((d < 2 || d >= (1ull << 31)) == (f.mul == 0));
    std::vector<uint32_t> ns = {0, 1, (1u << 31) - 1, (1u << 31) - 2};
    for (uint64_t m : {uint64_t(1), uint64_t(2), uint64_t(1000), uint64_t(((1ull << 31) - 1) / d)})
      for (int64_t delta : {-1, 0, 1}) {
        int64_t n = int64_t(m * d) + delta;
        if (n >= 0 && n < (int64_t(1) << 31)) ns.push_back(uint32_t(n));
      }
    for (int k = 0; k < 50; ++k) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      ns.push_back(uint32_t(seed >> 33));
    }
    for (uint32_t n : ns) REQUIRE(divide(n, d, f) == n / d);
  }
}

TEST_CASE("device dtypes are 32-bit words") {
  CHECK(deviceDType(DType::F16) == DType::F32);
  CHECK(deviceDType(DType::F64) == DType::F32);
  CHECK(deviceDType(DType::I64) == DType::I32);
  CHECK(deviceDType(DType::Bool) == DType::I32);
  CHECK(deviceDType(DType::U8) == DType::I32);
  CHECK(deviceDType(DType::BF16) == DType::F32);
}

TEST_CASE("dispatches carry cost estimates and the output shape for profiles") {
  Graph g;
  ValueId a = g.addInput("a", {DType::F32, {2, 1, 5, 7}}), b = g.addInput("b", {DType::F32, {3, 7, 6}});
  g.addNode(Op::MatMul, "mm", {a, b});
  std::vector<DispatchPlan> mm = lowerNode(g, g.nodes[0]);
  REQUIRE(mm.size() == 1);
  CHECK(mm[0].flops == 2ull * (2 * 3) * 5 * 6 * 7);  // 2·B·M·N·K
  CHECK(mm[0].bytes == 4ull * (70 + 126 + 2 * 3 * 5 * 6));
  CHECK(mm[0].shape == "f32[2,3,5,6]");

  // Split-K conv: the GEMM dispatch does 2·N·M·Ho·Wo·(C/g)·kh·kw; zeroing
  // and the finish pass one op per output element.
  Graph c;
  ValueId x = c.addInput("x", {DType::F32, {1, 512, 7, 7}}), w = c.addInput("w", {DType::F32, {512, 512, 3, 3}});
  ValueId cb = c.addInput("cb", {DType::F32, {512}});
  c.addNode(Op::Conv, "c", {x, w, cb}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  std::vector<DispatchPlan> conv = lowerNode(c, c.nodes[0]);
  REQUIRE(conv.size() == 2);  // the bias goes into the zeroing pass: no finish
  CHECK(conv[1].flops == 2ull * 1 * 512 * 7 * 7 * 512 * 3 * 3);
  CHECK(conv[0].flops == 512ull * 49);
  CHECK(conv[1].bytes == 4ull * (512 * 49 + 512 * 512 * 9 + 512 * 49));  // x, w, y (the bias is the finish's)
  for (const DispatchPlan& d : conv) CHECK(d.shape == "f32[1,512,7,7]");

  // Elementwise: one op per element; a transpose only moves bytes.
  Graph e;
  ValueId v = e.addInput("v", {DType::F32, {3, 4}});
  NodeId relu0 = e.addNode(Op::Relu, "relu", {v});
  e.addNode(Op::Transpose, "t", {e.nodes[size_t(relu0)].outputs[0]}, {{"perm", std::vector<int64_t>{1, 0}}});
  std::vector<DispatchPlan> relu = lowerNode(e, e.nodes[0]), t = lowerNode(e, e.nodes[1]);
  REQUIRE(relu.size() == 1);
  REQUIRE(t.size() == 1);
  CHECK(relu[0].flops == 12);
  CHECK(relu[0].bytes == 96);
  CHECK(t[0].flops == 0);
  CHECK(t[0].bytes == 96);
  CHECK(t[0].shape == "f32[4,3]");
}
