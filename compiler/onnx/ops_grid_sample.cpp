// GridSample (opset 16: 4-D X [N,C,H,W], grid [N,Ho,Wo,2]) as gathers:
// every output point reads 1 (nearest), 4 (bilinear) or 16 (bicubic) taps
// of X, each tap a flat index into X viewed as [N, C, H·W] and a weight,
// both computed elementwise from the grid:
//
//   x = denormalize(grid[..., 0], W), y = ... (align_corners)
//   out-of-bound points: border clamps to [0, W-1], reflection reflects
//   into [x_min, x_max]; a tap (r, c) outside X reads 0 (zeros: weight 0),
//   the border pixel (border) or its reflection (reflection)
//   Y = sum_taps weight_t · gather_elements(X, index_t)
//
// Term by term as onnx's reference implementation (op_grid_sample.py).
#include "compiler/onnx/ops_extra.h"

namespace mgc::onnximport {

namespace {

enum class Padding { Zeros, Border, Reflection };

// Elementwise arithmetic on f32 values of one node.
struct Ew {
  NodeContext& c;
  ValueId k(double v) const { return c.scalar(DType::F32, v); }
  ValueId add(ValueId a, ValueId b) const { return c.emit(Op::Add, {a, b}); }
  ValueId sub(ValueId a, ValueId b) const { return c.emit(Op::Sub, {a, b}); }
  ValueId mul(ValueId a, ValueId b) const { return c.emit(Op::Mul, {a, b}); }
  ValueId div(ValueId a, ValueId b) const { return c.emit(Op::Div, {a, b}); }
  ValueId floor(ValueId a) const { return c.emit(Op::Floor, {a}); }
  ValueId clamp(ValueId a, double lo, double hi) const { return c.emit(Op::Clip, {a}, {{"min", lo}, {"max", hi}}); }
  ValueId where(ValueId cond, ValueId a, ValueId b) const { return c.emit(Op::Where, {cond, a, b}); }
  ValueId less(ValueId a, ValueId b) const { return c.emit(Op::Less, {a, b}); }
  ValueId greater(ValueId a, ValueId b) const { return c.emit(Op::Greater, {a, b}); }
  ValueId lor(ValueId a, ValueId b) const { return c.emit(Op::Or, {a, b}); }
  ValueId land(ValueId a, ValueId b) const { return c.emit(Op::And, {a, b}); }
};

// Reflects x by the nearer border until it lies in [lo, hi] (x inside
// stays): the reference's _gs_reflect.
ValueId reflect(const Ew& e, ValueId x, double lo, double hi) {
  const ValueId range = e.k(hi - lo);
  // dx >= 0 past a border: n whole ranges and a remainder r; an even n
  // lands r inside from that border, an odd one r inside from the other.
  auto fold = [&](ValueId dx, double near, double far) {
    const ValueId n = e.floor(e.div(dx, range));
    const ValueId r = e.sub(dx, e.mul(n, range));
    const ValueId even = e.c.emit(Op::Equal, {e.sub(n, e.mul(e.k(2.0), e.floor(e.mul(n, e.k(0.5))))), e.k(0.0)});
    const double sign = near < far ? 1.0 : -1.0;  // toward the inside
    return e.where(even, e.add(e.k(near), e.mul(e.k(sign), r)), e.sub(e.k(far), e.mul(e.k(sign), r)));
  };
  const ValueId below = fold(e.sub(e.k(lo), x), lo, hi);  // lo + r, or hi - r
  const ValueId above = fold(e.sub(x, e.k(hi)), hi, lo);  // hi - r, or lo + r
  return e.where(e.less(x, e.k(lo)), below, e.where(e.greater(x, e.k(hi)), above, x));
}

struct Tap {
  ValueId index, weight;  // [N,1,P] i64 flat index into H·W, f32 weight
};

struct Sampler {
  Ew e;
  int64_t h, w;
  Padding padding;
  double xMin, xMax, yMin, yMax;

  // The tap at integer-valued (r, c) with weight `weight`.
  Tap tap(ValueId r, ValueId col, ValueId weight) const {
    if (padding == Padding::Zeros) {
      const ValueId inside = e.land(e.land(e.c.emit(Op::GreaterOrEqual, {col, e.k(0.0)}), e.less(col, e.k(double(w)))),
                                    e.land(e.c.emit(Op::GreaterOrEqual, {r, e.k(0.0)}), e.less(r, e.k(double(h)))));
      weight = e.where(inside, weight, e.k(0.0));
      r = e.clamp(r, 0.0, double(h - 1));
      col = e.clamp(col, 0.0, double(w - 1));
    } else if (padding == Padding::Border) {
      r = e.clamp(r, 0.0, double(h - 1));
      col = e.clamp(col, 0.0, double(w - 1));
    } else {  // int(reflect(...)) truncates toward zero: -0.5 reads row 0
      r = e.clamp(e.c.emit(Op::Cast, {reflect(e, r, yMin, yMax)}, {{"to", int64_t(DType::I32)}}), 0.0, double(h - 1));
      col = e.clamp(e.c.emit(Op::Cast, {reflect(e, col, xMin, xMax)}, {{"to", int64_t(DType::I32)}}), 0.0, double(w - 1));
      r = e.c.emit(Op::Cast, {r}, {{"to", int64_t(DType::F32)}});
      col = e.c.emit(Op::Cast, {col}, {{"to", int64_t(DType::F32)}});
    }
    const ValueId flat = e.add(e.mul(r, e.k(double(w))), col);
    return {e.c.emit(Op::Cast, {flat}, {{"to", int64_t(DType::I64)}}), weight};
  }
};

// Keys' cubic convolution weights (alpha -0.75) of the 4 taps around a
// point at fraction t in [0, 1) past the second one.
std::vector<ValueId> cubicWeights(const Ew& e, ValueId t) {
  const double a = -0.75;
  auto outer = [&](ValueId s) {  // ((a·s - 5a)·s + 8a)·s - 4a for s in [1, 2]
    return e.sub(e.mul(e.add(e.mul(e.sub(e.mul(e.k(a), s), e.k(5 * a)), s), e.k(8 * a)), s), e.k(4 * a));
  };
  auto inner = [&](ValueId s) {  // ((a+2)·s - (a+3))·s·s + 1 for s in [0, 1]
    return e.add(e.mul(e.mul(e.sub(e.mul(e.k(a + 2), s), e.k(a + 3)), s), s), e.k(1.0));
  };
  const ValueId one = e.k(1.0);
  return {outer(e.add(t, one)), inner(t), inner(e.sub(one, t)), outer(e.sub(e.k(2.0), t))};
}

void gridSample(NodeContext& c) {
  c.onlyAttrs({"align_corners", "mode", "padding_mode"});
  const ValueId x = c.input(0), grid = c.input(1);
  const TensorType xt = c.type(x), gt = c.type(grid);
  if (!isFloat(xt.dtype) || !isFloat(gt.dtype)) c.unsupported("GridSample of " + xt.str() + " by " + gt.str() + " (floats only)");
  if (xt.rank() != 4) c.unsupported("GridSample of " + xt.str() + " (4-D X only)");
  const int64_t n = xt.shape[0], ch = xt.shape[1], h = xt.shape[2], w = xt.shape[3];
  if (gt.rank() != 4 || gt.shape[0] != n || gt.shape[3] != 2)
    c.fail("grid " + gt.str() + " must be [" + std::to_string(n) + ", H_out, W_out, 2]");
  if (h == 0 || w == 0) c.unsupported("GridSample of an empty image");
  const std::string mode = c.attrString("mode", "bilinear"), pad = c.attrString("padding_mode", "zeros");
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic") c.fail("mode '" + mode + "' is not valid");
  Padding padding = Padding::Zeros;
  if (pad == "border") padding = Padding::Border;
  else if (pad == "reflection") padding = Padding::Reflection;
  else if (pad != "zeros") c.fail("padding_mode '" + pad + "' is not valid");
  const bool align = c.attrInt("align_corners", 0) != 0;
  const int64_t ho = gt.shape[1], wo = gt.shape[2], p = ho * wo;

  Ew e{c};
  Sampler s{e, h, w, padding, -0.5, double(w) - 0.5, -0.5, double(h) - 0.5};
  if (align) {
    s.xMin = s.yMin = 0.0;
    s.xMax = double(w - 1);
    s.yMax = double(h - 1);
  }
  // Grid coordinates as [N, 1, P] each, denormalized.
  const ValueId g = reshapeTo(c, toF32(c, grid), {n, p, 2});
  auto coord = [&](int64_t k, int64_t len) {
    const ValueId v = reshapeTo(c, c.im.sliceAxis(c.name, g, 2, k, k + 1, 1), {n, 1, p});
    if (align) return e.mul(e.mul(e.add(v, e.k(1.0)), e.k(0.5)), e.k(double(len - 1)));
    return e.mul(e.sub(e.mul(e.add(v, e.k(1.0)), e.k(double(len))), e.k(1.0)), e.k(0.5));
  };
  ValueId gx = coord(0, w), gy = coord(1, h);
  if (mode == "nearest") {
    gx = c.emit(Op::Round, {gx});
    gy = c.emit(Op::Round, {gy});
  }
  if (padding != Padding::Zeros) {
    const ValueId out = e.lor(e.lor(e.less(gx, e.k(s.xMin)), e.greater(gx, e.k(s.xMax))),
                              e.lor(e.less(gy, e.k(s.yMin)), e.greater(gy, e.k(s.yMax))));
    if (padding == Padding::Border) {
      gx = e.where(out, e.clamp(gx, 0.0, double(w - 1)), gx);
      gy = e.where(out, e.clamp(gy, 0.0, double(h - 1)), gy);
    } else {
      gx = e.where(out, reflect(e, gx, s.xMin, s.xMax), gx);
      gy = e.where(out, reflect(e, gy, s.yMin, s.yMax), gy);
    }
  }

  std::vector<Tap> taps;
  if (mode == "nearest") {
    taps.push_back(s.tap(gy, gx, e.k(1.0)));
  } else if (mode == "bilinear") {
    const ValueId x1 = e.floor(gx), y1 = e.floor(gy), x2 = e.add(x1, e.k(1.0)), y2 = e.add(y1, e.k(1.0));
    const ValueId dx1 = e.sub(gx, x1), dx2 = e.sub(x2, gx), dy1 = e.sub(gy, y1), dy2 = e.sub(y2, gy);
    taps.push_back(s.tap(y1, x1, e.mul(dy2, dx2)));
    taps.push_back(s.tap(y1, x2, e.mul(dy2, dx1)));
    taps.push_back(s.tap(y2, x1, e.mul(dy1, dx2)));
    taps.push_back(s.tap(y2, x2, e.mul(dy1, dx1)));
  } else {
    const ValueId x0 = e.sub(e.floor(gx), e.k(1.0)), y0 = e.sub(e.floor(gy), e.k(1.0));
    const std::vector<ValueId> cx = cubicWeights(e, e.sub(e.sub(gx, x0), e.k(1.0)));
    const std::vector<ValueId> cy = cubicWeights(e, e.sub(e.sub(gy, y0), e.k(1.0)));
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        taps.push_back(s.tap(e.add(y0, e.k(i)), e.add(x0, e.k(j)), e.mul(cy[size_t(i)], cx[size_t(j)])));
  }

  const ValueId flat = reshapeTo(c, x, {n, ch, h * w});
  ValueId y = kNoValue;
  for (const Tap& t : taps) {
    const ValueId index = c.emit(Op::Expand, {t.index}, {{"shape", Shape{n, ch, p}}});
    ValueId weight = t.weight;
    if (xt.dtype != DType::F32) weight = c.emit(Op::Cast, {weight}, {{"to", int64_t(xt.dtype)}});
    const ValueId term = c.emit(Op::Mul, {c.emit(Op::GatherElements, {flat, index}, {{"axis", int64_t(2)}}), weight});
    y = y == kNoValue ? term : c.emit(Op::Add, {y, term});
  }
  c.emitOutput(0, Op::Reshape, {y}, {{"shape", Shape{n, ch, ho, wo}}});
}

}  // namespace

void addGridSampleConverters(ConverterTable& t) { t[{"", "GridSample"}] = gridSample; }

}  // namespace mgc::onnximport
