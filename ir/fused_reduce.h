// The fused_reduce op (written by passes/graph/fuse_elementwise.cpp): a
// reduction whose input is an elementwise program of the node's inputs
// (the program format of ir/fused_eltwise.h), so the program's result is
// never stored: one dispatch reads the inputs and reduces.
//
//   y = reduce_<kind>{axes, keepdims}(reshape(program(in0..in7), shape))
//
// Attributes: the program's (ops, args, dtypes, fargs, consts), and
//   reduce    string  "sum" | "mean" | "max" | "min"
//   shape     int[]   the shape the program's result is viewed in before
//                     reducing (its element count), the result's own
//                     shape when no reshape came between
//   axes      int[]   reduced axes of `shape`, normalized and sorted
//   keepdims  int
//
//   %d = mul(%dy, %x) : f32[4,64,56,56]
//   %s = reduce_sum(%d) {axes = [0, 2, 3]}      →   %s = fused_reduce(%dy, %x) {ops = "mul",
//                                                      reduce = "sum", axes = [0, 2, 3], shape = [4, 64, 56, 56], ...}
//
// Semantics are exactly the expansion's (the reference evaluator runs it).
#pragma once

#include <optional>
#include <vector>

#include "ir/graph.h"

namespace mgc {

// The reduction op `kind` names (ReduceSum, ReduceMean, ReduceMax,
// ReduceMin); nullopt for any other op. And back: the kind of a reduction
// fused_reduce can carry, "" for the others.
std::optional<Op> fusedReduceOp(const std::string& kind);
std::string fusedReduceKind(Op op);

// The node as a stand-alone graph (inputs "in0".., the program's steps, the
// reshape to `shape` when it differs, the reduction). Throws mgc::Error
// naming `n` when an attribute or step is invalid.
Graph expandFusedReduce(const Graph& g, const Node& n);

// The reference semantics: the expansion evaluated node by node.
HostTensor evalFusedReduce(const Graph& g, const Node& n, const std::vector<const HostTensor*>& inputs);

// The element strides of a row-major tensor of shape `in`, broadcast to
// `full` (numpy rules: stride 0 along broadcast dims), when the broadcast
// result is viewed as `view` (numel(view) == numel(full)); nullopt when no
// strides describe that view (a reshape that splits or merges across a
// broadcast boundary, e.g. [4,1] broadcast to [4,3] viewed as [12]).
std::optional<std::vector<int64_t>> broadcastViewStrides(const Shape& in, const Shape& full, const Shape& view);

}  // namespace mgc
