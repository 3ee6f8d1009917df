// 3-D windows (Conv, MaxPool, AveragePool over [N, C, D, H, W]) as 2-D IR
// ops. Pooling is separable: the window over (H, W) first, then over D on
// [N, C, D, OH·OW] (max of maxes; for averages the element counts of the
// axes multiply, so the mean of means is exact with or without padding).
// Conv3d sums one 2-D convolution per depth tap over strided depth slices.
#include <algorithm>

#include "compiler/onnx/ops_extra.h"

namespace mgc::onnximport {

namespace {

struct Window3 {
  std::vector<int64_t> kernel, strides, dilations, pads;  // pads [d0, h0, w0, d1, h1, w1]
};

Window3 readWindow3(NodeContext& c, const Shape& spatial, std::vector<int64_t> kernel, bool hasDilations) {
  std::vector<int64_t> ones(3, 1);
  Window3 w{std::move(kernel), c.attrInts("strides", ones), hasDilations ? c.attrInts("dilations", ones) : ones,
            c.attrInts("pads", std::vector<int64_t>(6, 0))};
  if (w.kernel.size() != 3 || w.strides.size() != 3 || w.dilations.size() != 3 || w.pads.size() != 6)
    c.fail("kernel_shape/strides/dilations/pads do not match 3 spatial axes");
  for (size_t k = 0; k < 3; ++k)
    if (w.kernel[k] <= 0 || w.strides[k] <= 0 || w.dilations[k] <= 0 || w.kernel[k] > (1 << 20) || w.strides[k] > (1 << 20) ||
        w.dilations[k] > (1 << 20))
      c.fail("kernel, strides and dilations must be positive and reasonable");
  for (int64_t p : w.pads)
    if (p < 0 || p > (1 << 20)) c.fail("pads must be in [0, 2^20]");
  std::string autoPad = c.attrString("auto_pad", "NOTSET");
  if (autoPad == "VALID") {
    w.pads.assign(6, 0);
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t k = 0; k < 3; ++k) {
      int64_t out = (spatial[k] + w.strides[k] - 1) / w.strides[k];
      int64_t total = std::max<int64_t>(0, (out - 1) * w.strides[k] + (w.kernel[k] - 1) * w.dilations[k] + 1 - spatial[k]);
      int64_t small = total / 2, large = total - small;
      w.pads[k] = autoPad == "SAME_UPPER" ? small : large;
      w.pads[k + 3] = autoPad == "SAME_UPPER" ? large : small;
    }
  } else if (autoPad != "NOTSET") {
    c.fail("auto_pad '" + autoPad + "' is not valid");
  }
  return w;
}

Attrs poolAttrs(NodeContext& c, Op op, std::vector<int64_t> kernel, std::vector<int64_t> strides, std::vector<int64_t> pads,
                std::vector<int64_t> dilations) {
  Attrs a{{"kernel", std::move(kernel)}, {"strides", std::move(strides)}, {"pads", std::move(pads)},
          {"ceil_mode", c.attrInt("ceil_mode", 0)}};
  if (op == Op::MaxPool) a["dilations"] = std::move(dilations);
  else a["count_include_pad"] = c.attrInt("count_include_pad", 0);
  return a;
}

}  // namespace

void pool3d(NodeContext& c, Op op) {
  ValueId x = c.input(0);
  const Shape s = c.type(x).shape;
  Window3 w = readWindow3(c, Shape(s.begin() + 2, s.end()), c.attrInts("kernel_shape"), op == Op::MaxPool);
  int64_t n = s[0], ch = s[1], d = s[2];
  ValueId hw = c.emit(op, {reshapeTo(c, x, {n, ch * d, s[3], s[4]})},
                      poolAttrs(c, op, {w.kernel[1], w.kernel[2]}, {w.strides[1], w.strides[2]},
                                {w.pads[1], w.pads[2], w.pads[4], w.pads[5]}, {w.dilations[1], w.dilations[2]}));
  const Shape hs = c.type(hw).shape;
  ValueId y = c.emit(op, {reshapeTo(c, hw, {n, ch, d, hs[2] * hs[3]})},
                     poolAttrs(c, op, {w.kernel[0], 1}, {w.strides[0], 1}, {w.pads[0], 0, w.pads[3], 0}, {w.dilations[0], 1}));
  c.setOutput(0, reshapeTo(c, y, {n, ch, c.type(y).shape[2], hs[2], hs[3]}));
}

void conv3d(NodeContext& c) {
  ValueId x = c.input(0), wt = c.input(1), bias = c.optInput(2);
  const Shape s = c.type(x).shape, ws = c.type(wt).shape;
  std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  if (c.hasAttr("kernel_shape") && c.attrInts("kernel_shape") != kernel) c.fail("kernel_shape does not match the weight");
  Window3 w = readWindow3(c, Shape(s.begin() + 2, s.end()), kernel, true);
  int64_t n = s[0], ch = s[1], m = ws[0];
  // Depth padding up front; each depth tap then reads a strided slice.
  if (w.pads[0] || w.pads[3])
    x = c.emit(Op::Pad, {x}, {{"pads", std::vector<int64_t>{0, 0, w.pads[0], 0, 0, 0, 0, w.pads[3], 0, 0}}, {"value", 0.0}});
  const Shape xs = c.type(x).shape;  // padded
  int64_t dp = xs[2], span = (kernel[0] - 1) * w.dilations[0] + 1;
  if (dp < span) c.fail("the depth window is larger than the padded input");
  int64_t od = (dp - span) / w.strides[0] + 1;
  Attrs conv2{{"strides", std::vector<int64_t>{w.strides[1], w.strides[2]}},
              {"pads", std::vector<int64_t>{w.pads[1], w.pads[2], w.pads[4], w.pads[5]}},
              {"dilations", std::vector<int64_t>{w.dilations[1], w.dilations[2]}}, {"group", c.attrInt("group", 1)}};
  ValueId sum = kNoValue;
  for (int64_t k = 0; k < kernel[0]; ++k) {
    int64_t start = k * w.dilations[0];
    std::vector<int64_t> st{0, 0, start, 0, 0}, en(xs.begin(), xs.end()), sp{1, 1, w.strides[0], 1, 1};
    en[2] = start + (od - 1) * w.strides[0] + 1;
    ValueId slab = c.emit(Op::Slice, {x}, {{"starts", st}, {"ends", en}, {"steps", sp}});  // [N, C, OD, H, W]
    slab = c.emit(Op::Transpose, {slab}, {{"perm", std::vector<int64_t>{0, 2, 1, 3, 4}}});
    slab = reshapeTo(c, slab, {n * od, ch, s[3], s[4]});
    std::vector<int64_t> wst{0, 0, k, 0, 0}, wen(ws.begin(), ws.end()), wsp(5, 1);
    wst[2] = k;
    wen[2] = k + 1;
    ValueId tap = c.emit(Op::Slice, {wt}, {{"starts", wst}, {"ends", wen}, {"steps", wsp}});
    tap = reshapeTo(c, tap, {ws[0], ws[1], ws[3], ws[4]});
    ValueId y = c.emit(Op::Conv, {slab, tap}, conv2);
    sum = sum == kNoValue ? y : c.emit(Op::Add, {sum, y});
  }
  const Shape ys = c.type(sum).shape;  // [N·OD, M, OH, OW]
  ValueId y = c.emit(Op::Transpose, {reshapeTo(c, sum, {n, od, m, ys[2], ys[3]})},
                     {{"perm", std::vector<int64_t>{0, 2, 1, 3, 4}}});
  if (bias != kNoValue) y = c.emit(Op::Add, {y, reshapeTo(c, bias, {m, 1, 1, 1})});
  c.setOutput(0, y);
}

}  // namespace mgc::onnximport
