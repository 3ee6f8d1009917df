// What the op case files share (op_cases.cpp and the op_cases_*.cpp of each
// family): the case builder, input shorthands, the attribute helpers more
// than one family uses, and the functions that add each family's cases.
// Internal to those files; the tests include op_cases.h.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "op_cases.h"

namespace mgc::test {

using Ints = std::vector<int64_t>;

struct Builder {
  std::vector<OpCase>& out;

  // A case with inputs (name → type + fill) and one node.
  void add(const std::string& label, Op op, std::vector<std::pair<TensorType, Fill>> inputs, Attrs attrs = {},
           double tolerance = 1e-4) {
    OpCase c;
    c.label = label;
    c.tolerance = tolerance;
    std::vector<ValueId> ins;
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (inputs[k].second.kind == Fill::Absent) {
        ins.push_back(kNoValue);
        continue;
      }
      ins.push_back(c.graph.addInput("in" + std::to_string(k), inputs[k].first));
      c.fills.push_back(inputs[k].second);
    }
    NodeId id = c.graph.addNode(op, "n_" + std::string(opName(op)), ins, std::move(attrs));
    c.graph.outputs = c.graph.nodes[size_t(id)].outputs;
    out.push_back(std::move(c));
  }
};

inline TensorType T(DType t, Shape s) { return TensorType{t, std::move(s)}; }
inline TensorType F(Shape s) { return T(DType::F32, std::move(s)); }
inline std::pair<TensorType, Fill> N(TensorType t) { return {std::move(t), Fill{}}; }
inline std::pair<TensorType, Fill> P(TensorType t) { return {std::move(t), Fill{Fill::Positive, 0}}; }
inline std::pair<TensorType, Fill> B(Shape s) { return {T(DType::Bool, std::move(s)), Fill{Fill::Bool, 0}}; }
inline std::pair<TensorType, Fill> I(TensorType t) { return {std::move(t), Fill{Fill::SmallInt, 0}}; }
inline std::pair<TensorType, Fill> Idx(TensorType t, int64_t range) { return {std::move(t), Fill{Fill::Index, range}}; }

// A fused epilogue (ir/epilogue.h): one code per step, 2 args per step
// (the codes: op_cases_products.cpp, before its first epilogue case).
inline Attrs epi(Ints codes, std::vector<double> args) { return Attrs{{"epilogue", codes}, {"epilogue_args", args}}; }
// The fused RMSNorm prologue (ir/epilogue.h) on top of `a`.
inline Attrs rms(Attrs a = {}) {
  a["rms_eps"] = 1e-5;
  return a;
}
// The accelerated mode (`precision` fp16) on top of `a`.
inline Attrs f16(Attrs a) {
  a["precision"] = std::string("fp16");
  return a;
}
// An additive causal mask [rows, S]: key j visible to row t for j <= t + visibleAhead.
inline std::pair<TensorType, Fill> causal(int64_t rows, int64_t S, int64_t visibleAhead) {
  return std::pair<TensorType, Fill>{F({rows, S}), Fill{Fill::CausalMask, visibleAhead}};
}
// A position input [1] of dtype t holding v.
inline std::pair<TensorType, Fill> pos(DType t, int64_t v) {
  return std::pair<TensorType, Fill>{T(t, {1}), Fill{Fill::Fixed, v}};
}
// An attention's optional mask slot left empty.
inline const std::pair<TensorType, Fill> noMask{TensorType{}, Fill{Fill::Absent, 0}};

// The families with files of their own, added by opCases() in this order
// between op_cases.cpp's binary and normalization cases (op_cases.cpp adds
// the unary, binary, normalization, reduce and shape cases).
// Dense products: MatMul (f32, fp16, bf16; tiled, sliced, large, split-K,
// matvec with its prologues) and the convs that share their cores.
void productCases(Builder& b);
// Attention, AttentionCache (without o_proj) and Rotary.
void attentionCases(Builder& b);
// Packed low-bit weights: QMatMul, QGatedMlp, AttentionCache with o_proj.
void quantizedCases(Builder& b);
// Convs split over K, the accelerated mode's convs, pooling.
void convPoolCases(Builder& b);

}  // namespace mgc::test
