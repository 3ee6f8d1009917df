#include "ir/infer_checked.h"

namespace mgc {

int64_t boundedProduct(int64_t a, int64_t b, int64_t limit) {
  if (a == 0 || b == 0) return 0;
  if (a > limit / b) return -1;
  return a * b;
}

bool validType(const TensorType& t) {
  if (t.rank() > kMaxRank) return false;
  int64_t n = 1;
  for (int64_t d : t.shape) {
    if (d < 0 || d > kMaxDim) return false;
    n = boundedProduct(n, d, kMaxElements);
    if (n < 0) return false;
  }
  return true;
}

std::vector<TensorType> inferTypesChecked(const Graph& g, const Node& n) {
  auto fail = [&](const std::string& why) -> Error {
    return Error("node '" + n.name + "' (" + opName(n.op) + "): " + why);
  };
  const OpInfo& info = opInfo(n.op);
  int nin = int(n.inputs.size());
  if (nin < info.minInputs || nin > info.maxInputs)
    throw fail("expects " + std::to_string(info.minInputs) + ".." + std::to_string(info.maxInputs) + " inputs, got " +
               std::to_string(nin));
  for (int k = 0; k < nin; ++k) {
    ValueId v = n.inputs[size_t(k)];
    if (v == kNoValue && k < info.minInputs) throw fail("input " + std::to_string(k) + " is required but is none");
    if (v != kNoValue && (v < 0 || size_t(v) >= g.values.size())) throw fail("input " + std::to_string(k) + " is not a value");
  }
  // The shape rules index the shape by axis for these ops.
  int rank0 = g.type(n.inputs[0]).rank();
  bool reduces = n.op == Op::ReduceSum || n.op == Op::ReduceMean || n.op == Op::ReduceMax ||
                 n.op == Op::ReduceMin || n.op == Op::ReduceProd;
  bool axisIndexed = n.op == Op::Concat || n.op == Op::ArgMax || n.op == Op::Gather ||
                     (reduces && !n.ints("axes", {{}}).empty());
  if (axisIndexed && rank0 < 1) throw fail("expects an input of rank >= 1");
  if ((n.op == Op::Reshape || n.op == Op::Expand || n.op == Op::FusedReduce) && n.has("shape")) {
    int64_t count = 1;
    for (int64_t d : n.ints("shape")) {
      count = boundedProduct(count, d < 0 ? 0 : d, kMaxElements);
      if (d > kMaxDim || count < 0) throw fail("target shape is too large");
    }
  }
  std::vector<TensorType> types;
  try {
    types = inferTypes(g, n);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw fail(e.what());
  }
  for (const TensorType& t : types)
    if (!validType(t)) throw fail("inferred result type " + t.str() + " is invalid or too large");
  return types;
}

}  // namespace mgc
