#include "ir/fused_eltwise.h"

#include <cmath>
#include <sstream>

#include "ir/eval.h"

namespace mgc {

namespace {

[[noreturn]] void failNode(const Node& n, const std::string& why) {
  throw Error("node '" + n.name + "' (" + opName(n.op) + "): " + why);  // also fused_reduce's program
}

// Operand slots a step reads (Where 3, Binary 2, Unary 1).
int arity(Op op) {
  if (op == Op::Where) return 3;
  return opInfo(op).cls == OpClass::Binary ? 2 : 1;
}

}  // namespace

bool isFusableEltwiseOp(Op op) {
  if (op == Op::Identity) return false;  // an alias, never a dispatch of its own
  OpClass cls = opInfo(op).cls;
  return op == Op::Where || cls == OpClass::Unary || cls == OpClass::Binary;
}

Attrs fusedStepAttrs(const FusedStep& s) {
  Attrs a;
  switch (s.op) {
    case Op::LeakyRelu: case Op::Elu: a["alpha"] = s.farg0; break;
    case Op::HardSigmoid: a["alpha"] = s.farg0; a["beta"] = s.farg1; break;
    case Op::Clip: a["min"] = s.farg0; a["max"] = s.farg1; break;
    case Op::Gelu: a["approximate"] = int64_t(s.farg0); break;
    case Op::Cast: a["to"] = int64_t(s.dtype); break;
    default: break;
  }
  return a;
}

void fusedStepFargs(const Node& n, double* f0, double* f1) {
  *f0 = *f1 = 0;
  switch (n.op) {
    case Op::LeakyRelu: *f0 = n.f("alpha", 0.01); break;
    case Op::Elu: *f0 = n.f("alpha", 1.0); break;
    case Op::HardSigmoid: *f0 = n.f("alpha", 0.2); *f1 = n.f("beta", 0.5); break;
    case Op::Clip: *f0 = n.f("min", -INFINITY); *f1 = n.f("max", INFINITY); break;
    case Op::Gelu: *f0 = double(n.i("approximate", 0)); break;
    default: break;
  }
}

FusedProgram readFusedEltwise(const Node& n) {
  FusedProgram p;
  std::vector<std::string> names;
  {
    std::stringstream ss(n.s("ops"));
    std::string item;
    while (std::getline(ss, item, ',')) names.push_back(item);
  }
  std::vector<int64_t> args = n.ints("args"), dtypes = n.ints("dtypes");
  std::vector<double> fargs = n.floats("fargs");
  p.consts = n.has("consts") ? n.floats("consts") : std::vector<double>{};
  size_t k = names.size();
  if (k == 0) failNode(n, "empty program");
  if (args.size() != 3 * k || dtypes.size() != k || fargs.size() != 2 * k)
    failNode(n, "args/dtypes/fargs must have 3/1/2 entries per step (" + std::to_string(k) + " steps)");
  int numInputs = int(n.inputs.size());
  for (size_t s = 0; s < k; ++s) {
    FusedStep st;
    if (!parseOp(names[s], &st.op) || !isFusableEltwiseOp(st.op))
      failNode(n, "step " + std::to_string(s) + ": '" + names[s] + "' is not an elementwise op");
    if (dtypes[s] < 0 || dtypes[s] >= kNumDTypes) failNode(n, "step " + std::to_string(s) + ": bad dtype");
    st.dtype = DType(dtypes[s]);
    st.farg0 = fargs[2 * s];
    st.farg1 = fargs[2 * s + 1];
    for (int a = 0; a < 3; ++a) {
      int64_t ref = args[3 * s + size_t(a)];
      bool ok = a >= arity(st.op) ? ref == 0
                                  : (ref >= 0 ? ref < numInputs + int64_t(s) : -1 - ref < int64_t(p.consts.size()));
      if (!ok) failNode(n, "step " + std::to_string(s) + ": operand " + std::to_string(ref) + " out of range");
      st.args[a] = int(ref);
    }
    p.steps.push_back(st);
  }
  return p;
}

void writeFusedEltwise(Node& n, const FusedProgram& p) {
  std::string ops;
  std::vector<int64_t> args, dtypes;
  std::vector<double> fargs;
  for (const FusedStep& s : p.steps) {
    ops += (ops.empty() ? "" : ",") + std::string(opName(s.op));
    for (int a : s.args) args.push_back(a);
    dtypes.push_back(int64_t(s.dtype));
    fargs.push_back(s.farg0);
    fargs.push_back(s.farg1);
  }
  n.attrs["ops"] = ops;
  n.attrs["args"] = args;
  n.attrs["dtypes"] = dtypes;
  n.attrs["fargs"] = fargs;
  if (!p.consts.empty()) n.attrs["consts"] = p.consts;  // an empty list would read back as ints
}

Graph expandFusedEltwise(const Graph& g, const Node& n) {
  FusedProgram p = readFusedEltwise(n);
  Graph sub;
  sub.name = n.name;
  std::vector<ValueId> ins, consts, results;
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    if (n.inputs[k] == kNoValue) failNode(n, "input " + std::to_string(k) + " is absent");
    ins.push_back(sub.addInput("in" + std::to_string(k), g.type(n.inputs[k])));
  }
  for (size_t c = 0; c < p.consts.size(); ++c) {
    HostTensor t(TensorType{DType::F32, {}});
    t.setF(0, p.consts[c]);
    consts.push_back(sub.addConstant("c" + std::to_string(c), std::move(t)));
  }
  for (size_t s = 0; s < p.steps.size(); ++s) {
    const FusedStep& st = p.steps[s];
    std::vector<ValueId> operands;
    for (int a = 0; a < arity(st.op); ++a) {
      int ref = st.args[a];
      if (ref < 0) operands.push_back(consts[size_t(-1 - ref)]);
      else if (ref < int(ins.size())) operands.push_back(ins[size_t(ref)]);
      else operands.push_back(results[size_t(ref) - ins.size()]);
    }
    NodeId id;
    try {
      id = sub.addNode(st.op, n.name + ":" + std::to_string(s), operands, fusedStepAttrs(st));
    } catch (const Error& e) {
      failNode(n, std::string("step ") + std::to_string(s) + ": " + e.what());
    }
    ValueId out = sub.nodes[size_t(id)].outputs[0];
    if (sub.type(out).dtype != st.dtype)
      failNode(n, "step " + std::to_string(s) + " computes " + sub.type(out).str() + ", dtypes says " +
                      dtypeName(st.dtype));
    results.push_back(out);
  }
  sub.outputs.push_back(results.back());
  return sub;
}

FusedRegisters assignFusedRegisters(const FusedProgram& p, int numInputs) {
  const size_t k = p.steps.size();
  // Last step reading each input / step result (the output: never freed).
  std::vector<int> lastUse(size_t(numInputs) + k, -1);
  for (size_t s = 0; s < k; ++s)
    for (int a = 0; a < arity(p.steps[s].op); ++a)
      if (p.steps[s].args[a] >= 0) lastUse[size_t(p.steps[s].args[a])] = int(s);
  lastUse.back() = int(k);
  FusedRegisters r;
  std::vector<int> owner(kFusedMaxRegs * 4, -2);  // register → value index, -2 free
  auto take = [&](int value) {
    size_t reg = 0;
    while (owner[reg] != -2) ++reg;
    owner[reg] = value;
    int used = 0;
    for (int o : owner) used += o != -2;
    r.regsUsed = std::max(r.regsUsed, used);
    return int(reg);
  };
  std::vector<int> regOf(size_t(numInputs) + k, -1);
  for (int i = 0; i < numInputs; ++i) regOf[size_t(i)] = take(i);
  for (size_t s = 0; s < k; ++s) {
    const FusedStep& st = p.steps[s];
    std::vector<int> constRegs(3, -1);
    for (int a = 0; a < arity(st.op); ++a)
      if (st.args[a] < 0) {
        constRegs[size_t(a)] = take(-1);
        ++r.constLoads;
      }
    // Operands dying here and the constants free up before the result is
    // taken: every instruction reads its operands before writing.
    for (int a = 0; a < arity(st.op); ++a) {
      int ref = st.args[a];
      if (ref >= 0 && lastUse[size_t(ref)] == int(s)) owner[size_t(regOf[size_t(ref)])] = -2;
    }
    for (int reg : constRegs)
      if (reg >= 0) owner[size_t(reg)] = -2;
    regOf[size_t(numInputs) + s] = take(numInputs + int(s));
    r.stepReg.push_back(regOf[size_t(numInputs) + s]);
    r.constReg.push_back(constRegs);
  }
  return r;
}

HostTensor evalFusedEltwise(const Graph& g, const Node& n, const std::vector<const HostTensor*>& inputs) {
  return evalExpansion(expandFusedEltwise(g, n), inputs);
}

HostTensor evalExpansion(const Graph& sub, const std::vector<const HostTensor*>& inputs) {
  std::map<std::string, HostTensor> byName;
  for (size_t k = 0; k < inputs.size(); ++k) byName["in" + std::to_string(k)] = *inputs[k];
  std::map<std::string, HostTensor> out = evalGraph(sub, byName);
  return std::move(out.begin()->second);
}

}  // namespace mgc
