// Reductions: ReduceSum/Mean/Max/Min/Prod map one to one; the other ONNX
// reductions are short compositions; ArgMax / ArgMin.
#include <algorithm>

#include "compiler/onnx/importer.h"
#include "compiler/onnx/ops_extra.h"

namespace mgc::onnximport {

namespace {

struct ReduceArgs {
  std::vector<int64_t> axes;  // normalized, sorted; all axes when the model lists none
  int64_t keepdims;
  bool identity;  // noop_with_empty_axes with no axes
};

// Axes come from the attribute, or from input 1 for ReduceSum since opset
// 13 and every reduction since opset 18.
ReduceArgs readReduce(NodeContext& c) {
  c.onlyAttrs({"axes", "keepdims", "noop_with_empty_axes"});
  bool axesInput = c.opset >= 18 || (c.opType() == "ReduceSum" && c.opset >= 13);
  std::vector<int64_t> axes = axesInput ? c.intsInput(1, "axes").value_or(std::vector<int64_t>{})
                                        : c.attrInts("axes", std::vector<int64_t>{});
  int64_t rank = c.type(c.input(0)).rank();
  ReduceArgs r{{}, c.attrInt("keepdims", 1) != 0 ? 1 : 0, false};
  if (axes.empty()) {
    r.identity = axesInput && c.attrInt("noop_with_empty_axes", 0) != 0;
    for (int64_t k = 0; k < rank; ++k) r.axes.push_back(k);
    return r;
  }
  for (int64_t a : axes) r.axes.push_back(c.normAxis(a, rank));
  std::sort(r.axes.begin(), r.axes.end());
  if (std::adjacent_find(r.axes.begin(), r.axes.end()) != r.axes.end()) c.fail("axes contain a duplicate");
  return r;
}

Attrs reduceAttrs(const ReduceArgs& r) { return {{"axes", r.axes}, {"keepdims", r.keepdims}}; }

template <Op op>
void reduce(NodeContext& c) {
  ReduceArgs r = readReduce(c);
  if (r.identity) return c.setOutput(0, c.input(0));
  c.emitOutput(0, op, {c.input(0)}, reduceAttrs(r));
}

// ReduceL1 = sum |x|, ReduceSumSquare = sum x², ReduceL2 = sqrt(sum x²),
// ReduceLogSum = log(sum x).
template <Op pre, Op post>
void reduceComposite(NodeContext& c) {
  ReduceArgs r = readReduce(c);
  ValueId x = c.input(0);
  if (r.identity) return c.setOutput(0, x);  // noop_with_empty_axes leaves x itself
  if (pre == Op::Mul) x = c.emit(Op::Mul, {x, x});
  if (pre == Op::Abs) x = c.emit(Op::Abs, {x});
  if (post == Op::Identity) return c.emitOutput(0, Op::ReduceSum, {x}, reduceAttrs(r));
  c.emitOutput(0, post, {c.emit(Op::ReduceSum, {x}, reduceAttrs(r))});
}

// log(sum(exp(x))) computed stably as m + log(sum(exp(x - m))), m = max x.
void reduceLogSumExp(NodeContext& c) {
  ReduceArgs r = readReduce(c);
  ValueId x = c.input(0);
  if (r.identity) return c.setOutput(0, x);
  ValueId m = c.emit(Op::ReduceMax, {x}, {{"axes", r.axes}, {"keepdims", int64_t(1)}});
  ValueId s = c.emit(Op::ReduceSum, {c.emit(Op::Exp, {c.emit(Op::Sub, {x, m})})},
                     {{"axes", r.axes}, {"keepdims", int64_t(1)}});
  ValueId y = c.emit(Op::Add, {c.emit(Op::Log, {s}), m});
  Shape out;
  const Shape in = c.type(x).shape;
  for (size_t k = 0; k < in.size(); ++k) {
    bool reduced = std::binary_search(r.axes.begin(), r.axes.end(), int64_t(k));
    if (!reduced) out.push_back(in[k]);
    else if (r.keepdims) out.push_back(1);
  }
  c.emitOutput(0, Op::Reshape, {y}, {{"shape", out}});
}

void argMax(NodeContext& c) {
  c.onlyAttrs({"axis", "keepdims", "select_last_index"});
  ValueId x = c.input(0);
  int64_t axis = c.normAxis(c.attrInt("axis", 0), c.type(x).rank());
  int64_t keepdims = c.attrInt("keepdims", 1) != 0 ? 1 : 0;
  if (c.attrInt("select_last_index", 0) != 0) return c.setOutput(0, argMaxLast(c, x, axis, keepdims));
  c.emitOutput(0, Op::ArgMax, {x}, {{"axis", axis}, {"keepdims", keepdims}});
}

// ArgMin(x) = ArgMax(-x): the first minimum is the first maximum of -x.
// Floats only: negating unsigned or the most negative integer would wrap.
void argMin(NodeContext& c) {
  c.onlyAttrs({"axis", "keepdims", "select_last_index"});
  ValueId x = c.input(0);
  if (!isFloat(c.type(x).dtype)) c.unsupported("ArgMin of " + c.type(x).str() + " is not supported (floats only)");
  int64_t axis = c.normAxis(c.attrInt("axis", 0), c.type(x).rank());
  if (c.attrInt("select_last_index", 0) != 0)
    return c.setOutput(0, argMaxLast(c, c.emit(Op::Neg, {x}), axis, c.attrInt("keepdims", 1) != 0 ? 1 : 0));
  c.emitOutput(0, Op::ArgMax, {c.emit(Op::Neg, {x})},
               {{"axis", axis}, {"keepdims", c.attrInt("keepdims", 1) != 0 ? int64_t(1) : 0}});
}

}  // namespace

void addReduceConverters(ConverterTable& t) {
  t[{"", "ReduceSum"}] = reduce<Op::ReduceSum>;
  t[{"", "ReduceMean"}] = reduce<Op::ReduceMean>;
  t[{"", "ReduceMax"}] = reduce<Op::ReduceMax>;
  t[{"", "ReduceMin"}] = reduce<Op::ReduceMin>;
  t[{"", "ReduceProd"}] = reduce<Op::ReduceProd>;
  t[{"", "ReduceL1"}] = reduceComposite<Op::Abs, Op::Identity>;
  t[{"", "ReduceSumSquare"}] = reduceComposite<Op::Mul, Op::Identity>;
  t[{"", "ReduceL2"}] = reduceComposite<Op::Mul, Op::Sqrt>;
  t[{"", "ReduceLogSum"}] = reduceComposite<Op::Identity, Op::Log>;
  t[{"", "ReduceLogSumExp"}] = reduceLogSumExp;
  t[{"", "ArgMax"}] = argMax;
  t[{"", "ArgMin"}] = argMin;
}

}  // namespace mgc::onnximport
