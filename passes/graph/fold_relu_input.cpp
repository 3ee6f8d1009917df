// fold-relu-input: a conv whose fused epilogue ends in a ReLU, read only by
// another conv (as its input x), leaves the ReLU to that conv: the reader
// applies it as it loads x (Conv's relu_input, ir/epilogue.h).
//
//   %a = conv(%x, %w1, %b1) {epilogue = [1], epilogue_args = [0.0, 0.0]}      %a = conv(%x, %w1, %b1)
//   %y = conv(%a, %w2, %b2)                                              →   %y = conv(%a, %w2, %b2) {relu_input = 1}
//
// A ReLU in an epilogue is free where the conv stores its own result, but
// a split-K conv (kernels/lower_conv.cpp) adds its K slices into the output
// and applies an activation in a finishing pass after them: one dispatch
// and one level more on the way to the next conv. ResNet's bottlenecks are
// conv → ReLU → conv twice, and their late 1x1 / 3x3 convs are split.
// The reader's extra max per loaded element costs about nothing.
//
// Only where the first conv's value has that one reader and is no graph
// output (a train step's backward reads the ReLU's output, and the second
// conv's weight gradient reads its input: nothing folds there), f32
// convs. After fuse-conv-epilogue.
#include "ir/epilogue.h"
#include "passes/graph/passes.h"
#include "passes/graph/pattern_util.h"

namespace mgc {

void foldReluInput(Graph& g) {
  const Uses uses(g);
  for (Node& reader : g.nodes) {
    if (reader.op != Op::Conv || convReluInput(reader) || reader.inputs.empty()) continue;
    const ValueId x = reader.inputs[0];
    const NodeId p = uses.soleProducer(x, Op::Conv);  // (one use: this x slot)
    if (p < 0) continue;
    Node& producer = g.nodes[size_t(p)];
    const Epilogue e = readEpilogue(producer);
    if (e.steps.empty() || e.steps.back() != EpilogueStep::Relu) continue;
    if (g.type(x).dtype != DType::F32) continue;
    std::vector<int64_t> codes = producer.ints("epilogue");
    std::vector<double> args = producer.floats("epilogue_args");
    codes.pop_back();
    args.resize(args.size() - 2);
    if (codes.empty()) {
      producer.attrs.erase("epilogue");
      producer.attrs.erase("epilogue_args");
    } else {
      producer.attrs["epilogue"] = codes;
      producer.attrs["epilogue_args"] = args;
    }
    reader.attrs["relu_input"] = int64_t(1);
  }
}

}  // namespace mgc
