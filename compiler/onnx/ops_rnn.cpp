// RNN, GRU and LSTM (forward direction, default activations, no clip)
// unrolled over the static sequence length: the input projection of every
// step is one MatMul up front; each step adds h · Rᵀ and applies the gates.
// sequence_lens masks the steps past a batch entry's length (its state is
// carried, its Y rows are zero), as ONNX defines.
#include "compiler/onnx/ops_extra.h"

namespace mgc::onnximport {

namespace {

enum class Cell { Rnn, Gru, Lstm };

ValueId cols(NodeContext& c, ValueId v, int64_t from, int64_t to) {  // v[:, from:to]
  const Shape s = c.type(v).shape;
  return c.emit(Op::Slice, {v}, {{"starts", std::vector<int64_t>{0, from}}, {"ends", std::vector<int64_t>{s[0], to}},
                                 {"steps", std::vector<int64_t>{1, 1}}});
}

ValueId sigmoid(NodeContext& c, ValueId v) { return c.emit(Op::Sigmoid, {v}); }
ValueId tanhOf(NodeContext& c, ValueId v) { return c.emit(Op::Tanh, {v}); }
ValueId add(NodeContext& c, ValueId a, ValueId b) { return b == kNoValue ? a : c.emit(Op::Add, {a, b}); }
ValueId mul(NodeContext& c, ValueId a, ValueId b) { return c.emit(Op::Mul, {a, b}); }

template <Cell cell>
void recurrent(NodeContext& c) {
  c.onlyAttrs({"activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size", "layout",
               "linear_before_reset", "input_forget"});
  if (c.attrString("direction", "forward") != "forward") c.unsupported("direction '" + c.attrString("direction") + "' is not supported (forward only)");
  if (c.hasAttr("activations") || c.hasAttr("activation_alpha") || c.hasAttr("activation_beta"))
    c.unsupported("custom activations are not supported");
  if (c.hasAttr("clip")) c.unsupported("clip is not supported");
  if (c.attrInt("input_forget", 0) != 0) c.unsupported("input_forget=1 is not supported");
  const int G = cell == Cell::Rnn ? 1 : cell == Cell::Gru ? 3 : 4;
  ValueId x = c.input(0), w = c.input(1), r = c.input(2);
  const Shape xs = c.type(x).shape;
  if (xs.size() != 3 || !isFloat(c.type(x).dtype)) c.fail("X must be a 3-D float tensor, got " + c.type(x).str());
  bool batchFirst = c.attrInt("layout", 0) != 0;
  int64_t S = batchFirst ? xs[1] : xs[0], B = batchFirst ? xs[0] : xs[1], I = xs[2], H = c.attrInt("hidden_size");
  if (c.type(w).shape != Shape{1, G * H, I} || c.type(r).shape != Shape{1, G * H, H})
    c.fail("W " + c.type(w).str() + " / R " + c.type(r).str() + " do not match hidden_size " + std::to_string(H));
  DType dt = c.type(x).dtype;
  Attrs swap{{"perm", std::vector<int64_t>{1, 0}}};
  ValueId wt = c.emit(Op::Transpose, {reshapeTo(c, w, {G * H, I})}, swap);  // [I, GH]
  ValueId rt = c.emit(Op::Transpose, {reshapeTo(c, r, {G * H, H})}, swap);  // [H, GH]
  ValueId wb = kNoValue, rb = kNoValue;
  if (c.hasInput(3)) {
    ValueId b = reshapeTo(c, c.input(3), {1, 2 * G * H});
    wb = cols(c, b, 0, G * H);
    rb = cols(c, b, G * H, 2 * G * H);
  }
  if (batchFirst) x = c.emit(Op::Transpose, {x}, {{"perm", std::vector<int64_t>{1, 0, 2}}});
  ValueId xw = add(c, c.emit(Op::MatMul, {x, wt}), wb);  // [S, B, GH]
  auto state = [&](int k) -> ValueId {
    if (!c.hasInput(k)) return c.emit(Op::Expand, {c.scalar(dt, 0)}, {{"shape", Shape{B, H}}});
    return reshapeTo(c, c.input(k), {B, H});  // [1, B, H] or [B, 1, H]
  };
  ValueId h = state(5), cst = cell == Cell::Lstm ? state(6) : kNoValue;
  ValueId lens = c.hasInput(4) ? reshapeTo(c, c.input(4), {B, 1}) : kNoValue;
  ValueId peep = cell == Cell::Lstm && c.hasInput(7) ? reshapeTo(c, c.input(7), {1, 3 * H}) : kNoValue;
  // GRU: the candidate's recurrent term uses r ⊙ h (or r ⊙ (h Rhᵀ + Rbh)).
  bool linearBeforeReset = c.attrInt("linear_before_reset", 0) != 0;
  ValueId rtZr = kNoValue, rtH = kNoValue, rbZr = kNoValue, rbH = kNoValue;
  if (cell == Cell::Gru) {
    rtZr = cols(c, rt, 0, 2 * H);
    rtH = cols(c, rt, 2 * H, 3 * H);
    if (rb != kNoValue) rbZr = cols(c, rb, 0, 2 * H), rbH = cols(c, rb, 2 * H, 3 * H);
  }
  std::vector<ValueId> ys;
  for (int64_t t = 0; t < S; ++t) {
    ValueId xt = reshapeTo(c, c.emit(Op::Slice, {xw}, {{"starts", std::vector<int64_t>{t, 0, 0}},
                                                      {"ends", std::vector<int64_t>{t + 1, B, G * H}},
                                                      {"steps", std::vector<int64_t>{1, 1, 1}}}),
                           {B, G * H});
    ValueId hNew, cNew = kNoValue;
    if (cell == Cell::Rnn) {
      hNew = tanhOf(c, add(c, add(c, xt, c.emit(Op::MatMul, {h, rt})), rb));
    } else if (cell == Cell::Gru) {
      ValueId zr = sigmoid(c, add(c, add(c, cols(c, xt, 0, 2 * H), c.emit(Op::MatMul, {h, rtZr})), rbZr));
      ValueId z = cols(c, zr, 0, H), rg = cols(c, zr, H, 2 * H);
      ValueId rec = linearBeforeReset ? mul(c, rg, add(c, c.emit(Op::MatMul, {h, rtH}), rbH))
                                      : add(c, c.emit(Op::MatMul, {mul(c, rg, h), rtH}), rbH);
      ValueId cand = tanhOf(c, add(c, cols(c, xt, 2 * H, 3 * H), rec));
      // (1 - z) ⊙ cand + z ⊙ h = cand + z ⊙ (h - cand)
      hNew = add(c, cand, mul(c, z, c.emit(Op::Sub, {h, cand})));
    } else {
      ValueId g = add(c, add(c, xt, c.emit(Op::MatMul, {h, rt})), rb);  // gates i, o, f, c
      ValueId gi = cols(c, g, 0, H), go = cols(c, g, H, 2 * H), gf = cols(c, g, 2 * H, 3 * H), gc = cols(c, g, 3 * H, 4 * H);
      if (peep != kNoValue) {
        gi = add(c, gi, mul(c, cols(c, peep, 0, H), cst));
        gf = add(c, gf, mul(c, cols(c, peep, 2 * H, 3 * H), cst));
      }
      cNew = add(c, mul(c, sigmoid(c, gf), cst), mul(c, sigmoid(c, gi), tanhOf(c, gc)));
      if (peep != kNoValue) go = add(c, go, mul(c, cols(c, peep, H, 2 * H), cNew));
      hNew = mul(c, sigmoid(c, go), tanhOf(c, cNew));
    }
    ValueId yt = hNew;
    if (lens != kNoValue) {
      ValueId live = c.emit(Op::Less, {c.scalar(c.type(lens).dtype, double(t)), lens});  // [B, 1]
      hNew = c.emit(Op::Where, {live, hNew, h});
      if (cNew != kNoValue) cNew = c.emit(Op::Where, {live, cNew, cst});
      yt = c.emit(Op::Where, {live, yt, c.scalar(dt, 0)});
    }
    h = hNew;
    cst = cNew;
    ys.push_back(reshapeTo(c, yt, batchFirst ? Shape{B, 1, 1, H} : Shape{1, 1, B, H}));
  }
  Shape stateShape = batchFirst ? Shape{B, 1, H} : Shape{1, B, H};
  if (c.outputUsed(0)) {
    ValueId y = ys.size() == 1 ? ys[0] : c.emit(Op::Concat, ys, {{"axis", int64_t(batchFirst ? 1 : 0)}});
    c.setOutput(0, y);
  }
  if (c.numOutputs() > 1) c.setOutput(1, reshapeTo(c, h, stateShape));
  if (cell == Cell::Lstm && c.numOutputs() > 2) c.setOutput(2, reshapeTo(c, cst, stateShape));
}

}  // namespace

void addRecurrentConverters(ConverterTable& t) {
  t[{"", "RNN"}] = recurrent<Cell::Rnn>;
  t[{"", "GRU"}] = recurrent<Cell::Gru>;
  t[{"", "LSTM"}] = recurrent<Cell::Lstm>;
}

}  // namespace mgc::onnximport
