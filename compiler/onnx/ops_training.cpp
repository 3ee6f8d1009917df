// The optimizer ops of the ai.onnx.preview.training domain (Adagrad,
// Momentum, Adam) as elementwise compositions, term by term as in the
// ONNX spec's reference (onnx/backend/test/case/node/{adagrad,momentum,
// adam}.py). Inputs are R (learning rate, float scalar), T (update count,
// int64 scalar, read at run time) and per optimized tensor its X, G and
// the optimizer's accumulators; outputs list every new X, then every new
// accumulator of each kind in input order:
//
//   Adagrad   r = R / (1 + T·decay);  g = norm·X + G;  H' = H + g²
//             X' = X - r·g / (sqrt(H') + eps)
//   Momentum  g = norm·X + G;  b = T > 0 ? beta : 1;  V' = alpha·V + b·g
//             X' = X - R·V' (standard) or X - R·(g + alpha·V') (nesterov)
//   Adam      g = norm·X + G;  V' = alpha·V + (1-alpha)·g;
//             H' = beta·H + (1-beta)·g²
//             r = T > 0 ? R·sqrt(1 - beta^T) / (1 - alpha^T) : R
//             X' = (1 - norm_post)·(X - r·V' / (sqrt(H') + eps))
#include "compiler/onnx/ops_extra.h"

namespace mgc::onnximport {

namespace {

// The shared inputs: R and T (as X's float type), and the number of
// optimized tensors given `perTensor` inputs each.
struct Step {
  ValueId r, t, tPositive;
  int64_t count;
  DType dtype;
};

Step readStep(NodeContext& c, int perTensor) {
  const int64_t n = c.numInputs() - 2;
  if (n <= 0 || n % perTensor != 0)
    c.fail("expects R, T and " + std::to_string(perTensor) + " inputs per optimized tensor, got " +
           std::to_string(c.numInputs()) + " inputs");
  Step s;
  s.count = n / perTensor;
  if (c.numOutputs() != (perTensor - 1) * s.count)
    c.fail("expects " + std::to_string((perTensor - 1) * s.count) + " outputs, got " + std::to_string(c.numOutputs()));
  s.dtype = c.type(c.input(2)).dtype;
  if (!isFloat(s.dtype)) c.fail("optimized tensors must be float, got " + c.type(c.input(2)).str());
  s.r = c.input(0);
  if (c.type(s.r).numel() != 1 || c.type(s.r).dtype != s.dtype)
    c.fail("R must be a one-element " + std::string(dtypeName(s.dtype)) + " tensor, got " + c.type(s.r).str());
  const ValueId t = c.input(1);
  if (c.type(t).numel() != 1 || isFloat(c.type(t).dtype)) c.fail("T must be a one-element integer tensor, got " + c.type(t).str());
  s.tPositive = c.emit(Op::Greater, {t, c.scalar(c.type(t).dtype, 0)});
  s.t = c.emit(Op::Cast, {t}, {{"to", int64_t(s.dtype)}});
  return s;
}

// k-th tensor of group `group` (0 = X, 1 = G, ...): inputs are R, T, then
// each group's tensors in turn.
ValueId groupInput(NodeContext& c, const Step& s, int group, int64_t k) {
  const ValueId v = c.input(int(2 + group * s.count + k));
  if (c.type(v).dtype != s.dtype) c.fail("input " + std::to_string(2 + group * s.count + k) + " is " + c.type(v).str() +
                                         ", expected " + dtypeName(s.dtype));
  return v;
}

// norm·X + G (X itself skipped when norm is 0).
ValueId regularized(NodeContext& c, const Step& s, ValueId x, ValueId g, double norm) {
  if (norm == 0.0) return g;
  return c.emit(Op::Add, {c.emit(Op::Mul, {c.scalar(s.dtype, norm), x}), g});
}

void setGroupOutput(NodeContext& c, const Step& s, int group, int64_t k, ValueId v) {
  c.setOutput(int(group * s.count + k), v);
}

void adagrad(NodeContext& c) {
  c.onlyAttrs({"decay_factor", "epsilon", "norm_coefficient"});
  const Step s = readStep(c, 3);
  const double decay = c.attrFloat("decay_factor", 0.0), eps = c.attrFloat("epsilon", 1e-6),
               norm = c.attrFloat("norm_coefficient", 0.0);
  const ValueId one = c.scalar(s.dtype, 1.0);
  const ValueId r = c.emit(Op::Div, {s.r, c.emit(Op::Add, {one, c.emit(Op::Mul, {s.t, c.scalar(s.dtype, decay)})})});
  for (int64_t k = 0; k < s.count; ++k) {
    const ValueId x = groupInput(c, s, 0, k), g = regularized(c, s, x, groupInput(c, s, 1, k), norm);
    const ValueId h = c.emit(Op::Add, {groupInput(c, s, 2, k), c.emit(Op::Mul, {g, g})});
    const ValueId root = c.emit(Op::Add, {c.emit(Op::Sqrt, {h}), c.scalar(s.dtype, eps)});
    const ValueId step = c.emit(Op::Div, {c.emit(Op::Mul, {r, g}), root});
    setGroupOutput(c, s, 0, k, c.emit(Op::Sub, {x, step}));
    setGroupOutput(c, s, 1, k, h);
  }
}

void momentum(NodeContext& c) {
  c.onlyAttrs({"alpha", "beta", "mode", "norm_coefficient"});
  const Step s = readStep(c, 3);
  const double alpha = c.attrFloat("alpha"), beta = c.attrFloat("beta"), norm = c.attrFloat("norm_coefficient");
  const std::string mode = c.attrString("mode");
  if (mode != "standard" && mode != "nesterov") c.fail("mode '" + mode + "' is neither 'standard' nor 'nesterov'");
  const ValueId a = c.scalar(s.dtype, alpha);
  const ValueId b = c.emit(Op::Where, {s.tPositive, c.scalar(s.dtype, beta), c.scalar(s.dtype, 1.0)});
  for (int64_t k = 0; k < s.count; ++k) {
    const ValueId x = groupInput(c, s, 0, k), g = regularized(c, s, x, groupInput(c, s, 1, k), norm);
    const ValueId v = c.emit(Op::Add, {c.emit(Op::Mul, {a, groupInput(c, s, 2, k)}), c.emit(Op::Mul, {b, g})});
    const ValueId dir = mode == "standard" ? v : c.emit(Op::Add, {g, c.emit(Op::Mul, {a, v})});
    setGroupOutput(c, s, 0, k, c.emit(Op::Sub, {x, c.emit(Op::Mul, {s.r, dir})}));
    setGroupOutput(c, s, 1, k, v);
  }
}

void adam(NodeContext& c) {
  c.onlyAttrs({"alpha", "beta", "epsilon", "norm_coefficient", "norm_coefficient_post"});
  const Step s = readStep(c, 4);
  const double alpha = c.attrFloat("alpha", 0.9), beta = c.attrFloat("beta", 0.999), eps = c.attrFloat("epsilon", 1e-6),
               norm = c.attrFloat("norm_coefficient", 0.0), post = c.attrFloat("norm_coefficient_post", 0.0);
  const ValueId one = c.scalar(s.dtype, 1.0);
  // Bias correction: R·sqrt(1 - beta^T) / (1 - alpha^T) once T > 0.
  const ValueId betaT = c.emit(Op::Pow, {c.scalar(s.dtype, beta), s.t});
  const ValueId alphaT = c.emit(Op::Pow, {c.scalar(s.dtype, alpha), s.t});
  const ValueId corrected = c.emit(Op::Div, {c.emit(Op::Mul, {s.r, c.emit(Op::Sqrt, {c.emit(Op::Sub, {one, betaT})})}),
                                             c.emit(Op::Sub, {one, alphaT})});
  const ValueId r = c.emit(Op::Where, {s.tPositive, corrected, s.r});
  for (int64_t k = 0; k < s.count; ++k) {
    const ValueId x = groupInput(c, s, 0, k), g = regularized(c, s, x, groupInput(c, s, 1, k), norm);
    const ValueId v = c.emit(Op::Add, {c.emit(Op::Mul, {c.scalar(s.dtype, alpha), groupInput(c, s, 2, k)}),
                                       c.emit(Op::Mul, {c.scalar(s.dtype, 1.0 - alpha), g})});
    const ValueId h = c.emit(Op::Add, {c.emit(Op::Mul, {c.scalar(s.dtype, beta), groupInput(c, s, 3, k)}),
                                       c.emit(Op::Mul, {c.scalar(s.dtype, 1.0 - beta), c.emit(Op::Mul, {g, g})})});
    const ValueId root = c.emit(Op::Add, {c.emit(Op::Sqrt, {h}), c.scalar(s.dtype, eps)});
    ValueId xNew = c.emit(Op::Sub, {x, c.emit(Op::Mul, {r, c.emit(Op::Div, {v, root})})});
    if (post != 0.0) xNew = c.emit(Op::Mul, {c.scalar(s.dtype, 1.0 - post), xNew});
    setGroupOutput(c, s, 0, k, xNew);
    setGroupOutput(c, s, 1, k, v);
    setGroupOutput(c, s, 2, k, h);
  }
}

}  // namespace

void addTrainingConverters(ConverterTable& t) {
  const std::string domain = "ai.onnx.preview.training";
  t[{domain, "Adagrad"}] = adagrad;
  t[{domain, "Momentum"}] = momentum;
  t[{domain, "Adam"}] = adam;
}

}  // namespace mgc::onnximport
