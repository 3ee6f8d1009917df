#include "ir/epilogue.h"

#include <algorithm>
#include <cmath>

namespace mgc {

namespace {

[[noreturn]] void fail(const Node& n, const std::string& why) {
  throw Error("node '" + n.name + "' (" + opName(n.op) + "): epilogue: " + why);
}

}  // namespace

int Epilogue::numOperands() const { return int(std::count_if(steps.begin(), steps.end(), takesOperand)); }

bool hasRowOperands(const Graph& g, const Node& n) {
  return n.op == Op::QMatMul || (n.op == Op::MatMul && g.type(n.inputs[1]).rank() >= 2);
}

Prologue prologueOf(const Node& n) {
  if (n.has("rms_eps")) return Prologue::RmsNorm;
  if (n.i("swiglu", 0) != 0) return Prologue::SwiGlu;
  return Prologue::None;
}

ValueId prologueOperand(const Node& n) { return hasPrologue(n) && !n.inputs.empty() ? n.inputs.back() : kNoValue; }

void checkPrologue(const Graph& g, const Node& n) {
  const Prologue kind = prologueOf(n);
  if (kind == Prologue::None) return;
  auto bad = [&](const std::string& why) {
    throw Error("node '" + n.name + "' (" + opName(n.op) + "): prologue: " + why);
  };
  if (n.has("rms_eps") && n.has("swiglu")) bad("rms_eps and swiglu exclude each other");
  if (n.op != Op::MatMul && n.op != Op::QMatMul) bad("only on matmul and qmatmul");
  // QMatMul keeps its scales slot (input 2, `none` for f16) before it.
  if (n.inputs.size() < (n.op == Op::QMatMul ? 4u : 3u) || n.inputs.back() == kNoValue)
    bad("its operand (the last input) is missing");
  if (n.op == Op::MatMul && n.i("trans_a", 0) != 0) bad("a must not be transposed");
  const TensorType& a = g.type(n.inputs[0]);
  const TensorType& u = g.type(n.inputs.back());
  if (a.dtype != DType::F32 || a.rank() < 1) bad("a must be f32 of rank >= 1, got " + a.str());
  const int64_t K = a.shape.back();
  if (K > 0 && a.numel() / K > kPrologueMaxRows)
    bad("a " + a.str() + " has more than " + std::to_string(kPrologueMaxRows) + " rows");
  if (kind == Prologue::RmsNorm) {
    if (u.shape != Shape{K} || u.dtype != a.dtype) bad("norm weight " + u.str() + " is not f32[" + std::to_string(K) + "]");
    const double eps = n.f("rms_eps");
    if (!(eps >= 0) || !std::isfinite(eps)) bad("rms_eps must be finite and >= 0");
  } else if (u != a) {
    bad("swiglu operand " + u.str() + " is not a's type " + a.str());
  }
}

int epilogueFirstInput(Op op) { return op == Op::Conv || op == Op::QMatMul ? 3 : 2; }

Epilogue readEpilogue(const Node& n) {
  Epilogue e;
  int first = epilogueFirstInput(n.op);
  int extra = std::max(0, int(n.inputs.size()) - first - (hasPrologue(n) ? 1 : 0));
  if (!n.has("epilogue")) {
    if (n.has("epilogue_args")) fail(n, "epilogue_args without epilogue");
    if (extra != 0) fail(n, "has " + std::to_string(extra) + " extra inputs but no epilogue");
    return e;
  }
  std::vector<int64_t> codes = n.ints("epilogue");
  e.args = n.has("epilogue_args") ? n.floats("epilogue_args") : std::vector<double>();
  if (codes.empty() || codes.size() > size_t(Epilogue::kMaxSteps))
    fail(n, "has " + std::to_string(codes.size()) + " steps (1.." + std::to_string(Epilogue::kMaxSteps) + ")");
  if (e.args.size() != 2 * codes.size())
    fail(n, "epilogue_args has " + std::to_string(e.args.size()) + " entries, expected " +
                std::to_string(2 * codes.size()));
  for (int64_t c : codes) {
    if (c < int64_t(EpilogueStep::Relu) || c > int64_t(EpilogueStep::MulSilu))
      fail(n, "unknown step code " + std::to_string(c));
    e.steps.push_back(EpilogueStep(c));
  }
  if (e.numOperands() > Epilogue::kMaxOperands)
    fail(n, "at most " + std::to_string(Epilogue::kMaxOperands) + " operand steps (add, mul_silu)");
  if (e.numOperands() != extra)
    fail(n, std::to_string(e.numOperands()) + " operand steps (add, mul_silu) but " + std::to_string(extra) +
                " extra inputs");
  return e;
}

void checkEpilogueOperands(const Graph& g, const Node& n, const TensorType& out) {
  Epilogue e = readEpilogue(n);
  int first = epilogueFirstInput(n.op);
  if (!e.steps.empty() && !isFloat(out.dtype)) fail(n, "needs a float output, got " + out.str());
  for (int k = 0; k < e.numOperands(); ++k) {
    ValueId v = n.inputs[size_t(first + k)];
    if (v == kNoValue) fail(n, "operand " + std::to_string(k) + " is missing");
    const TensorType& t = g.type(v);
    if (t.dtype != out.dtype) fail(n, "operand " + t.str() + " does not have the output's dtype " + out.str());
    if (t.shape == out.shape) continue;
    // MatMul: a row vector [.., 1, N] along the last axis.
    bool row = hasRowOperands(g, n) && t.rank() >= 1 && t.rank() <= out.rank() &&
               t.shape.back() == out.shape.back() && t.numel() == out.shape.back();
    if (!row) fail(n, "operand " + t.str() + " must have the output's shape " + out.str() +
                          (hasRowOperands(g, n) ? " or be a row vector of its last dim" : ""));
  }
}

double applyEpilogueStep(EpilogueStep s, double v, double arg0, double arg1) {
  switch (s) {
    case EpilogueStep::Relu: return v < 0 ? 0.0 : v;
    case EpilogueStep::Clip: return std::min(std::max(v, arg0), arg1);
    case EpilogueStep::LeakyRelu: return v < 0 ? arg0 * v : v;
    case EpilogueStep::Sigmoid: {
      if (v >= 0) return 1 / (1 + std::exp(-v));
      double e = std::exp(v);
      return e / (1 + e);
    }
    case EpilogueStep::GeluErf: return 0.5 * v * (1 + std::erf(v / 1.41421356237309504880));
    case EpilogueStep::GeluTanh: return 0.5 * v * (1 + std::tanh(0.79788456080286535588 * (v + 0.044715 * v * v * v)));
    case EpilogueStep::HardSwish: return v * std::min(std::max(v + 3, 0.0), 6.0) / 6;
    case EpilogueStep::Tanh: return std::tanh(v);
    case EpilogueStep::Add:
    case EpilogueStep::MulSilu: return v;  // the caller applies the operand
  }
  return v;
}

}  // namespace mgc
