#include "ir/fused_reduce.h"

#include "ir/eval.h"
#include "ir/fused_eltwise.h"

namespace mgc {

namespace {

[[noreturn]] void failNode(const Node& n, const std::string& why) {
  throw Error("node '" + n.name + "' (" + opName(n.op) + "): " + why);
}

}  // namespace

std::optional<Op> fusedReduceOp(const std::string& kind) {
  if (kind == "sum") return Op::ReduceSum;
  if (kind == "mean") return Op::ReduceMean;
  if (kind == "max") return Op::ReduceMax;
  if (kind == "min") return Op::ReduceMin;
  return std::nullopt;
}

std::string fusedReduceKind(Op op) {
  switch (op) {
    case Op::ReduceSum: return "sum";
    case Op::ReduceMean: return "mean";
    case Op::ReduceMax: return "max";
    case Op::ReduceMin: return "min";
    default: return "";
  }
}

Graph expandFusedReduce(const Graph& g, const Node& n) {
  const std::optional<Op> op = fusedReduceOp(n.has("reduce") ? n.s("reduce") : "");
  if (!op) failNode(n, "reduce must be \"sum\", \"mean\", \"max\" or \"min\"");
  Graph sub = expandFusedEltwise(g, n);  // throws naming n
  const ValueId program = sub.outputs[0];
  const Shape shape = n.ints("shape");
  for (int64_t d : shape)
    if (d < 0) failNode(n, "shape has a negative dim");
  if (numel(shape) != sub.type(program).numel())
    failNode(n, "shape " + TensorType{sub.type(program).dtype, shape}.str() + " does not hold the program's result " +
                    sub.type(program).str());
  ValueId x = program;
  try {
    if (shape != sub.type(program).shape)
      x = sub.nodes[size_t(sub.addNode(Op::Reshape, n.name + ":view", {program}, {{"shape", shape}}))].outputs[0];
    const NodeId r = sub.addNode(*op, n.name + ":reduce", {x},
                                 {{"axes", n.ints("axes", {{}})}, {"keepdims", n.i("keepdims", 1)}});
    sub.outputs = {sub.nodes[size_t(r)].outputs[0]};
  } catch (const Error& e) {
    failNode(n, e.what());
  }
  return sub;
}

HostTensor evalFusedReduce(const Graph& g, const Node& n, const std::vector<const HostTensor*>& inputs) {
  return evalExpansion(expandFusedReduce(g, n), inputs);
}

std::optional<std::vector<int64_t>> broadcastViewStrides(const Shape& in, const Shape& full, const Shape& view) {
  if (in.size() > full.size() || numel(full) != numel(view)) return std::nullopt;
  // The broadcast's strides, size-1 dims dropped (their stride is never used).
  std::vector<int64_t> dims, strides;
  {
    int64_t stride = 1;
    std::vector<int64_t> inStrides(in.size());
    for (size_t d = in.size(); d-- > 0;) {
      inStrides[d] = stride;
      stride *= in[d];
    }
    const size_t lead = full.size() - in.size();
    for (size_t d = 0; d < full.size(); ++d) {
      const int64_t inDim = d < lead ? 1 : in[d - lead];
      if (inDim != 1 && inDim != full[d]) return std::nullopt;
      if (full[d] == 1) continue;
      dims.push_back(full[d]);
      strides.push_back(inDim == 1 ? 0 : inStrides[d - lead]);
    }
  }
  // Walk groups of old and new dims with equal products (numpy's
  // no-copy reshape): a group of old dims must be one strided run.
  std::vector<int64_t> out(view.size(), 0);
  size_t o = 0, v = 0;
  while (v < view.size()) {
    if (view[v] == 1) {
      ++v;
      continue;
    }
    if (o >= dims.size()) return std::nullopt;
    size_t oEnd = o + 1, vEnd = v + 1;
    int64_t po = dims[o], pv = view[v];
    while (po != pv) {
      if (po < pv) {
        if (oEnd >= dims.size()) return std::nullopt;
        po *= dims[oEnd++];
      } else {
        if (vEnd >= view.size()) return std::nullopt;
        pv *= view[vEnd++];
      }
    }
    for (size_t k = o; k + 1 < oEnd; ++k)
      if (strides[k] != strides[k + 1] * dims[k + 1]) return std::nullopt;
    int64_t stride = strides[oEnd - 1];
    for (size_t k = vEnd; k-- > v;) {
      out[k] = view[k] == 1 ? 0 : stride;
      stride *= view[k];
    }
    o = oEnd;
    v = vEnd;
  }
  if (o != dims.size()) return std::nullopt;
  return out;
}

}  // namespace mgc
