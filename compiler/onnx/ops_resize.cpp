// ONNX Resize (opsets 10..19) and Upsample (7, 9) as compositions of IR ops:
// no resize op or kernel exists. Resizing is linear and separable, so each
// resized axis k gets a constant [out, in] matrix A (resize_matrix.h) and
//
//   last axis:       y = x @ A^T
//   next-to-last:    y = A @ x                          (batch broadcasting)
//   any other axis:  [P, D, Q] = reshape(x); y = reshape(A @ x)
//
// An axis whose map is "output i copies input floor(i / s)" (nearest with an
// integer upscale, PyTorch's nn.Upsample(mode='nearest')) is a pure copy:
// all such axes together become Reshape → Expand → Reshape
// ([N,C,H,W] → [N,C,H,1,W,1] → [N,C,H,s,W,t] → [N,C,sH,tW]). Identity maps are
// skipped. Gradients follow from MatMul / Expand / Reshape. scales, sizes and
// roi must be constants: they fix the output shape and the matrices.
#include <algorithm>
#include <cmath>

#include "compiler/onnx/ops_extra.h"
#include "compiler/onnx/resize_matrix.h"

namespace mgc::onnximport {

namespace {

ResizeMode parseMode(NodeContext& c) {
  const std::string m = c.attrString("mode", std::string("nearest"));
  if (m == "nearest") return ResizeMode::Nearest;
  if (m == "linear" || (c.opType() == "Upsample" && m == "bilinear")) return ResizeMode::Linear;
  if (m == "cubic" && c.opType() == "Resize" && c.opset >= 11) return ResizeMode::Cubic;
  c.fail("mode '" + m + "' is not valid");
}

NearestRounding parseRounding(NodeContext& c) {
  const std::string m = c.attrString("nearest_mode", std::string("round_prefer_floor"));
  if (m == "round_prefer_floor") return NearestRounding::RoundPreferFloor;
  if (m == "round_prefer_ceil") return NearestRounding::RoundPreferCeil;
  if (m == "floor") return NearestRounding::Floor;
  if (m == "ceil") return NearestRounding::Ceil;
  c.fail("nearest_mode '" + m + "' is not valid");
}

CoordinateMode parseCoordinates(NodeContext& c) {
  const std::string m = c.attrString("coordinate_transformation_mode", std::string("half_pixel"));
  if (m == "half_pixel") return CoordinateMode::HalfPixel;
  if (m == "half_pixel_symmetric") return CoordinateMode::HalfPixelSymmetric;
  if (m == "pytorch_half_pixel") return CoordinateMode::PytorchHalfPixel;
  if (m == "align_corners") return CoordinateMode::AlignCorners;
  if (m == "asymmetric") return CoordinateMode::Asymmetric;
  // "tf_half_pixel_for_nn" is the name Resize-11 first shipped with.
  if (m == "tf_half_pixel_for_nearest" || m == "tf_half_pixel_for_nn") return CoordinateMode::TfHalfPixelForNearest;
  if (m == "tf_crop_and_resize") return CoordinateMode::TfCropAndResize;
  c.fail("coordinate_transformation_mode '" + m + "' is not valid");
}

// A constant float input as doubles; nullopt when absent or empty (opset 11
// passes an empty `scales` when `sizes` is used).
std::optional<std::vector<double>> floatsInput(NodeContext& c, int k, const char* what) {
  const HostTensor* t = c.constInput(k, what);
  if (!t || t->numel() == 0) return std::nullopt;
  if (!isFloat(t->type.dtype)) c.fail(std::string(what) + " must be a float tensor, got " + t->type.str());
  if (t->type.rank() != 1) c.fail(std::string(what) + " must be 1-D, got " + t->type.str());
  std::vector<double> r;
  for (int64_t i = 0; i < t->numel(); ++i) r.push_back(t->getF(i));
  return r;
}

// Identity axes: a ResizeAxis per input axis that maps it onto itself.
std::vector<ResizeAxis> identityAxes(const Shape& s) {
  std::vector<ResizeAxis> axes(s.size());
  for (size_t k = 0; k < s.size(); ++k) axes[k].inSize = axes[k].outSize = s[k];
  return axes;
}

// Axis k of `a` scaled by `scale` (a `scales` entry): out = floor(scale * in).
void setScale(NodeContext& c, ResizeAxis& a, double scale, size_t k) {
  if (!(scale > 0) || !std::isfinite(scale))
    c.fail("scale " + std::to_string(scale) + " of axis " + std::to_string(k) + " is not positive");
  const double out = std::floor(scale * double(a.inSize));
  if (out < 1 || out > 1e12)
    c.fail("scale " + std::to_string(scale) + " gives axis " + std::to_string(k) + " of " + std::to_string(a.inSize) +
           " elements an invalid size");
  a.outSize = int64_t(out);
  a.scale = scale;
}

// Upsample-7/9 and Resize-10: asymmetric coordinates; nearest rounds down
// when upscaling and up when downscaling (onnxruntime's behaviour for these
// opsets, which predate nearest_mode).
void legacyAxes(NodeContext& c, std::vector<ResizeAxis>& axes, const std::vector<double>& scales) {
  if (scales.size() != axes.size())
    c.fail("scales has " + std::to_string(scales.size()) + " entries for rank " + std::to_string(axes.size()));
  ResizeMode mode = parseMode(c);
  for (size_t k = 0; k < axes.size(); ++k) {
    setScale(c, axes[k], scales[k], k);
    axes[k].mode = mode;
    axes[k].coord = CoordinateMode::Asymmetric;
    axes[k].rounding = scales[k] < 1 ? NearestRounding::Ceil : NearestRounding::Floor;
  }
}

// x resized along axis k by the matrix m.
ValueId resizeAxis(NodeContext& c, ValueId x, size_t k, const ResizeMatrix& m) {
  const TensorType t = c.type(x);
  Shape out = t.shape;
  out[k] = m.rows;
  if (!isFloat(t.dtype)) {
    // Integers cannot go through a float matrix exactly; a copy is a Gather.
    std::optional<std::vector<int64_t>> src = copySources(m);
    if (!src) c.unsupported("resizing " + t.str() + " other than by copying elements (nearest) is not supported");
    HostTensor idx(TensorType{DType::I64, {m.rows}});
    for (int64_t i = 0; i < m.rows; ++i) idx.setI(i, (*src)[size_t(i)]);
    return c.emit(Op::Gather, {x, c.constant(std::move(idx))}, {{"axis", int64_t(k)}});
  }
  const size_t rank = t.shape.size();
  const bool last = k + 1 == rank;
  // The last axis multiplies by A^T from the right, so store it transposed.
  HostTensor a(TensorType{t.dtype, last ? Shape{m.cols, m.rows} : Shape{m.rows, m.cols}});
  for (int64_t i = 0; i < m.rows; ++i)
    for (int64_t j = 0; j < m.cols; ++j) a.setF(last ? j * m.rows + i : i * m.cols + j, m.at(i, j));
  ValueId av = c.constant(std::move(a));
  if (last) return c.emit(Op::MatMul, {x, av});
  if (k + 2 == rank) return c.emit(Op::MatMul, {av, x});
  int64_t before = 1, after = 1;
  for (size_t j = 0; j < rank; ++j)
    if (j < k)
      before *= t.shape[j];
    else if (j > k)
      after *= t.shape[j];
  ValueId x3 = reshapeTo(c, x, {before, m.cols, after});
  return reshapeTo(c, c.emit(Op::MatMul, {av, x3}), out);
}

// Axes copied s times each (output i reads input i / s): Reshape → Expand →
// Reshape with a unit axis after each repeated one. Runs of axes without a
// unit axis between them are merged, so that the Expand stays within the
// copy kernel's 6 dims; past that, one Expand per repeated axis.
constexpr size_t kMaxExpandRank = 6;

ValueId repeatAxes(NodeContext& c, ValueId x, const std::vector<int64_t>& repeat) {
  if (std::all_of(repeat.begin(), repeat.end(), [](int64_t s) { return s == 1; })) return x;
  const Shape in = c.type(x).shape;
  Shape split, expanded, out;
  bool merge = false;  // the last entry is an input axis, not a unit axis
  for (size_t k = 0; k < in.size(); ++k) {
    if (merge) {
      split.back() *= in[k];
      expanded.back() *= in[k];
    } else {
      split.push_back(in[k]);
      expanded.push_back(in[k]);
    }
    merge = true;
    if (repeat[k] > 1) {
      split.push_back(1);
      expanded.push_back(repeat[k]);
      merge = false;
    }
    out.push_back(in[k] * repeat[k]);
  }
  if (split.size() <= kMaxExpandRank) {
    ValueId e = c.emit(Op::Expand, {reshapeTo(c, x, split)}, {{"shape", expanded}});
    return reshapeTo(c, e, out);
  }
  Shape cur = in;
  for (size_t k = 0; k < in.size(); ++k) {
    if (repeat[k] == 1) continue;
    int64_t upTo = 1, after = 1;  // elements per index of axes [0, k] and (k, rank)
    for (size_t j = 0; j < cur.size(); ++j) (j <= k ? upTo : after) *= cur[j];
    ValueId e = c.emit(Op::Expand, {reshapeTo(c, x, {upTo, 1, after})}, {{"shape", Shape{upTo, repeat[k], after}}});
    cur[k] *= repeat[k];
    x = reshapeTo(c, e, cur);
  }
  return x;
}

// Resizes input 0 as `axes` say and binds output 0. tf_crop_and_resize
// samples outside the input become `extrapolation`: their matrix rows are
// zero, and a constant adds the value where any axis extrapolates.
void emitResize(NodeContext& c, const std::vector<ResizeAxis>& axes, double extrapolation) {
  ValueId y = c.input(0);
  std::vector<int64_t> repeat(axes.size(), 1);
  std::vector<std::vector<bool>> outside(axes.size());
  for (size_t k = 0; k < axes.size(); ++k) {
    ResizeMatrix m;
    try {
      m = resizeMatrix(axes[k]);
    } catch (const Error& e) {
      c.fail("axis " + std::to_string(k) + ": " + e.what());
    }
    if (std::optional<int64_t> s = repeatFactor(m)) {
      repeat[k] = *s;
      continue;
    }
    if (m.anyExtrapolated()) outside[k] = m.extrapolated;
    y = resizeAxis(c, y, k, m);
  }
  y = repeatAxes(c, y, repeat);
  const bool extrapolates = std::any_of(outside.begin(), outside.end(), [](const auto& o) { return !o.empty(); });
  if (extrapolates && extrapolation != 0) {
    Shape s(axes.size(), 1);
    for (size_t k = 0; k < axes.size(); ++k)
      if (!outside[k].empty()) s[k] = int64_t(outside[k].size());
    HostTensor add(TensorType{c.type(y).dtype, s});
    for (int64_t flat = 0; flat < add.numel(); ++flat) {
      bool out = false;
      for (size_t k = axes.size(), rest = size_t(flat); k-- > 0; rest /= size_t(s[k]))
        if (!outside[k].empty() && outside[k][rest % size_t(s[k])]) out = true;
      add.setF(flat, out ? extrapolation : 0.0);
    }
    y = c.emit(Op::Add, {y, c.constant(std::move(add))});
  }
  c.setOutput(0, y);
}

void resize(NodeContext& c) {
  const Shape shape = c.type(c.input(0)).shape;
  std::vector<ResizeAxis> axes = identityAxes(shape);
  if (c.opset < 11) {
    c.onlyAttrs({"mode"});
    std::optional<std::vector<double>> scales = floatsInput(c, 1, "scales");
    if (!scales) c.fail("scales input is missing");
    legacyAxes(c, axes, *scales);
    return emitResize(c, axes, 0);
  }
  if (c.opset < 18)
    c.onlyAttrs({"coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside", "extrapolation_value", "mode",
                 "nearest_mode"});
  else
    c.onlyAttrs({"antialias", "axes", "coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside",
                 "extrapolation_value", "keep_aspect_ratio_policy", "mode", "nearest_mode"});
  const int64_t rank = int64_t(shape.size());
  // Opset 18's `axes`: scales / sizes / roi list only these axes.
  std::vector<size_t> which;
  if (c.hasAttr("axes")) {
    for (int64_t a : c.attrInts("axes")) {
      size_t k = size_t(c.normAxis(a, rank, "axes entry"));
      if (std::find(which.begin(), which.end(), k) != which.end()) c.fail("axes contain a duplicate");
      which.push_back(k);
    }
  } else {
    for (size_t k = 0; k < shape.size(); ++k) which.push_back(k);
  }
  std::optional<std::vector<double>> scales = floatsInput(c, 2, "scales");
  std::optional<std::vector<int64_t>> sizes = c.intsInput(3, "sizes");
  if (sizes && sizes->empty()) sizes.reset();
  if (scales.has_value() == sizes.has_value()) c.fail("exactly one of scales and sizes must be given");
  const size_t n = scales ? scales->size() : sizes->size();
  if (n != which.size())
    c.fail(std::string(scales ? "scales" : "sizes") + " has " + std::to_string(n) + " entries for " +
           std::to_string(which.size()) + " axes");

  const std::string policy = c.attrString("keep_aspect_ratio_policy", std::string("stretch"));
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    c.fail("keep_aspect_ratio_policy '" + policy + "' is not valid");
  if (scales) {
    for (size_t i = 0; i < n; ++i) setScale(c, axes[which[i]], (*scales)[i], which[i]);
  } else {
    for (size_t i = 0; i < n; ++i)
      if ((*sizes)[i] < 1 || (*sizes)[i] > (int64_t(1) << 40))
        c.fail("sizes entry " + std::to_string((*sizes)[i]) + " is not valid");
    if (policy == "stretch") {
      for (size_t i = 0; i < n; ++i) {
        ResizeAxis& a = axes[which[i]];
        a.outSize = (*sizes)[i];
        a.scale = double(a.outSize) / double(a.inSize);
      }
    } else {
      // One scale for all listed axes: the smallest (not_larger) or largest
      // (not_smaller) of out / in; sizes are rounded half up from it.
      double common = policy == "not_larger" ? INFINITY : 0;
      for (size_t i = 0; i < n; ++i) {
        double s = double((*sizes)[i]) / double(shape[which[i]]);
        common = policy == "not_larger" ? std::min(common, s) : std::max(common, s);
      }
      for (size_t i = 0; i < n; ++i) {
        ResizeAxis& a = axes[which[i]];
        a.scale = common;
        a.outSize = int64_t(std::floor(common * double(a.inSize) + 0.5));
        if (a.outSize < 1) c.fail("keep_aspect_ratio_policy gives axis " + std::to_string(which[i]) + " no elements");
      }
    }
  }

  const ResizeMode mode = parseMode(c);
  const CoordinateMode coord = parseCoordinates(c);
  const bool antialias = c.attrInt("antialias", 0) != 0;
  if (antialias && mode == ResizeMode::Nearest) c.fail("antialias is not defined for mode nearest");
  std::optional<std::vector<double>> roi;
  if (coord == CoordinateMode::TfCropAndResize) {
    roi = floatsInput(c, 1, "roi");
    if (!roi || roi->size() != 2 * which.size())
      c.fail("tf_crop_and_resize needs roi with " + std::to_string(2 * which.size()) + " entries (starts, then ends)");
  }
  const NearestRounding rounding = parseRounding(c);
  const double cubicA = c.attrFloat("cubic_coeff_a", -0.75);
  const bool excludeOutside = c.attrInt("exclude_outside", 0) != 0;
  for (ResizeAxis& a : axes) {
    a.mode = mode;
    a.coord = coord;
    a.rounding = rounding;
    a.cubicA = cubicA;
    a.excludeOutside = excludeOutside;
    a.antialias = antialias;
  }
  if (roi)
    for (size_t i = 0; i < which.size(); ++i) {
      axes[which[i]].roiStart = (*roi)[i];
      axes[which[i]].roiEnd = (*roi)[i + which.size()];
    }
  emitResize(c, axes, c.attrFloat("extrapolation_value", 0.0));
}

void upsample(NodeContext& c) {
  if (c.opset < 7) c.unsupported("Upsample before opset 7 (height_scale / width_scale) is not supported");
  if (c.opset >= 10) c.fail("Upsample is deprecated from opset 10 on (use Resize)");
  std::vector<ResizeAxis> axes = identityAxes(c.type(c.input(0)).shape);
  std::vector<double> scales;
  if (c.opset < 9) {
    c.onlyAttrs({"mode", "scales"});
    scales = c.attrFloats("scales");
  } else {
    c.onlyAttrs({"mode"});
    std::optional<std::vector<double>> s = floatsInput(c, 1, "scales");
    if (!s) c.fail("scales input is missing");
    scales = *s;
  }
  legacyAxes(c, axes, scales);
  emitResize(c, axes, 0);
}

}  // namespace

void addResizeConverters(ConverterTable& t) {
  t[{"", "Resize"}] = resize;
  t[{"", "Upsample"}] = upsample;
}

}  // namespace mgc::onnximport
