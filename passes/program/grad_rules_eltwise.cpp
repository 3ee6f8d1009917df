// Gradient rules of elementwise ops: unary activations, binary arithmetic
// with broadcasting, Where, Cast. Kinks follow PyTorch's derivatives.yaml.
#include <cmath>

#include "passes/program/grad_builder.h"

namespace mgc::grad {

namespace {

constexpr double kTwoOverSqrtPi = 1.12837916709551257390;   // 2/sqrt(pi)
constexpr double kInvSqrt2 = 0.70710678118654752440;        // 1/sqrt(2)
constexpr double kInvSqrt2Pi = 0.39894228040143267794;      // 1/sqrt(2 pi)
constexpr double kSqrt2OverPi = 0.79788456080286535588;     // sqrt(2/pi)
constexpr double kGeluKappa = 0.044715;

// d/dx gelu(x) with the erf form: Phi(x) + x phi(x).
ValueId geluErfSlope(Emitter& e, ValueId x) {
  ValueId cdf = e.mulScalar(e.addScalar(e.op(Op::Erf, {e.mulScalar(x, kInvSqrt2)}), 1.0), 0.5);
  ValueId pdf = e.mulScalar(e.op(Op::Exp, {e.mulScalar(e.mul(x, x), -0.5)}), kInvSqrt2Pi);
  return e.add(cdf, e.mul(x, pdf));
}

// d/dx of 0.5 x (1 + tanh(sqrt(2/pi) (x + k x^3))), PyTorch's formula:
// 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3k x^2).
ValueId geluTanhSlope(Emitter& e, ValueId x) {
  ValueId x2 = e.mul(x, x);
  ValueId inner = e.mulScalar(e.add(x, e.mulScalar(e.mul(x2, x), kGeluKappa)), kSqrt2OverPi);
  ValueId t = e.op(Op::Tanh, {inner});
  ValueId left = e.mulScalar(e.addScalar(t, 1.0), 0.5);
  ValueId sech2 = e.sub(e.scalar(1.0, e.type(x).dtype), e.mul(t, t));
  ValueId right = e.mul(e.mul(e.mulScalar(x, 0.5), sech2), e.mulScalar(e.addScalar(e.mulScalar(x2, 3 * kGeluKappa), 1.0), kSqrt2OverPi));
  return e.add(left, right);
}

ValueId cmpScalar(Emitter& e, Op op, ValueId x, double k) { return e.op(op, {x, e.scalar(k, e.type(x).dtype)}); }

}  // namespace

Grads unaryGrad(Emitter& e, const Node& n, ValueId dy) {
  ValueId x = n.inputs[0], y = n.outputs[0];
  DType t = e.type(dy).dtype;
  auto one = [&] { return e.scalar(1.0, t); };
  switch (n.op) {
    case Op::Identity: return {dy};
    case Op::Neg: return {e.neg(dy)};
    case Op::Abs: return {e.mul(dy, e.op(Op::Sign, {x}))};
    case Op::Exp: return {e.mul(dy, y)};
    case Op::Log: return {e.div(dy, x)};
    case Op::Sqrt: return {e.div(e.mulScalar(dy, 0.5), y)};
    case Op::Reciprocal: return {e.neg(e.mul(dy, e.mul(y, y)))};
    case Op::Relu: return {e.maskOrZero(cmpScalar(e, Op::Greater, x, 0), dy)};
    case Op::Sigmoid: return {e.mul(dy, e.mul(y, e.sub(one(), y)))};
    case Op::Tanh: return {e.mul(dy, e.sub(one(), e.mul(y, y)))};
    case Op::Erf: return {e.mul(dy, e.mulScalar(e.op(Op::Exp, {e.neg(e.mul(x, x))}), kTwoOverSqrtPi))};
    case Op::Sin: return {e.mul(dy, e.op(Op::Cos, {x}))};
    case Op::Cos: return {e.neg(e.mul(dy, e.op(Op::Sin, {x})))};
    case Op::Atan: return {e.div(dy, e.addScalar(e.mul(x, x), 1.0))};
    case Op::Softplus: return {e.mul(dy, e.op(Op::Sigmoid, {x}))};
    case Op::HardSwish: {  // x < -3: 0;  x <= 3: x/3 + 1/2;  else 1
      ValueId mid = e.mul(dy, e.addScalar(e.mulScalar(x, 1.0 / 3), 0.5));
      ValueId upper = e.op(Op::Where, {cmpScalar(e, Op::LessOrEqual, x, 3), mid, dy});
      return {e.op(Op::Where, {cmpScalar(e, Op::Less, x, -3), e.scalar(0, t), upper})};
    }
    case Op::LeakyRelu:
      return {e.op(Op::Where, {cmpScalar(e, Op::Greater, x, 0), dy, e.mulScalar(dy, n.f("alpha", 0.01))})};
    case Op::Elu: {  // x > 0: 1, else alpha e^x
      ValueId neg = e.mul(dy, e.mulScalar(e.op(Op::Exp, {x}), n.f("alpha", 1.0)));
      return {e.op(Op::Where, {cmpScalar(e, Op::Greater, x, 0), dy, neg})};
    }
    case Op::HardSigmoid: {  // alpha where 0 < alpha x + beta < 1
      double alpha = n.f("alpha", 0.2), beta = n.f("beta", 0.5);
      ValueId z = e.addScalar(e.mulScalar(x, alpha), beta);
      ValueId inside = e.op(Op::And, {cmpScalar(e, Op::Greater, z, 0), cmpScalar(e, Op::Less, z, 1)});
      return {e.maskOrZero(inside, e.mulScalar(dy, alpha))};
    }
    case Op::Clip: {  // PyTorch clamp: gradient where min <= x <= max
      ValueId inside = e.op(Op::And, {cmpScalar(e, Op::GreaterOrEqual, x, n.f("min", -INFINITY)),
                                      cmpScalar(e, Op::LessOrEqual, x, n.f("max", INFINITY))});
      return {e.maskOrZero(inside, dy)};
    }
    case Op::Gelu: return {e.mul(dy, n.i("approximate", 0) ? geluTanhSlope(e, x) : geluErfSlope(e, x))};
    case Op::Cast:
      // only float -> float casts carry gradients (integers are never active)
      if (!isFloat(e.type(x).dtype)) return {kNoValue};
      return {e.cast(dy, e.type(x).dtype)};
    default: break;  // not a unary op: a bug in grad_rules.cpp's dispatch
  }
  noGradient(n, "is not a unary op with a gradient");
}

Grads binaryGrad(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need) {
  ValueId a = n.inputs[0], b = n.inputs[1], y = n.outputs[0];
  const Shape sa = e.shape(a), sb = e.shape(b);  // copies: emitting reallocates g.values
  DType t = e.type(dy).dtype;
  ValueId da = kNoValue, db = kNoValue;
  bool negateDb = false;  // db is -(the sum of db back to b's shape): negated after the sum, on fewer elements
  switch (n.op) {
    case Op::Add:
      da = dy;
      db = dy;
      break;
    case Op::Sub:
      da = dy;
      db = dy;
      negateDb = true;
      break;
    case Op::Mul:
      if (need[0]) da = e.mul(dy, b);
      if (need[1]) db = e.mul(dy, a);
      break;
    case Op::Div:
      if (need[0]) da = e.div(dy, b);
      if (need[1]) db = e.div(e.mul(dy, y), b);  // -dy a / b^2 = -dy y / b
      negateDb = true;
      break;
    case Op::Pow: {
      ValueId bf = e.cast(b, t);  // the exponent may be an integer tensor
      if (need[0]) {  // b a^(b-1), 0 where b == 0 (PyTorch masks it)
        ValueId slope = e.mul(bf, e.op(Op::Pow, {a, e.addScalar(bf, -1.0)}));
        ValueId zeroExp = cmpScalar(e, Op::Equal, bf, 0);
        da = e.op(Op::Where, {zeroExp, e.scalar(0, t), e.mul(dy, slope)});
      }
      if (need[1]) {  // y log a, 0 where a == 0 and b >= 0 (PyTorch masks it)
        ValueId mask = e.op(Op::And, {cmpScalar(e, Op::Equal, a, 0), cmpScalar(e, Op::GreaterOrEqual, bf, 0)});
        db = e.op(Op::Where, {mask, e.scalar(0, t), e.mul(dy, e.mul(y, e.op(Op::Log, {a})))});
      }
      break;
    }
    case Op::Max: case Op::Min: {  // winner takes dy, ties split it in half
      Op wins = n.op == Op::Max ? Op::Greater : Op::Less;
      ValueId half = e.mulScalar(dy, 0.5), tie = e.op(Op::Equal, {a, b});
      if (need[0]) da = e.op(Op::Where, {e.op(wins, {a, b}), dy, e.maskOrZero(tie, half)});
      if (need[1]) db = e.op(Op::Where, {e.op(wins, {b, a}), dy, e.maskOrZero(tie, half)});
      break;
    }
    default: noGradient(n, "is not a binary op with a gradient");
  }
  // broadcasting: each operand gets the gradient summed back to its shape
  if (da != kNoValue) da = need[0] ? e.sumToShape(da, sa) : kNoValue;
  if (db != kNoValue) db = need[1] ? e.sumToShape(db, sb) : kNoValue;
  if (db != kNoValue && negateDb) db = e.neg(db);
  return {da, db};
}

Grads whereGrad(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need) {
  ValueId c = n.inputs[0], zero = e.scalar(0, e.type(dy).dtype);
  ValueId da = need[1] ? e.sumToShape(e.op(Op::Where, {c, dy, zero}), e.shape(n.inputs[1])) : kNoValue;
  ValueId db = need[2] ? e.sumToShape(e.op(Op::Where, {c, zero, dy}), e.shape(n.inputs[2])) : kNoValue;
  return {kNoValue, da, db};
}

}  // namespace mgc::grad
