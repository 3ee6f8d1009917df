// Resize / Upsample: the per-axis interpolation matrix (resize_matrix.h)
// against weights worked out by hand from the ONNX spec, and the converter
// (ops_resize.cpp) on small in-memory models: which IR ops it emits and the
// values they compute on the CPU reference evaluator.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "compiler/onnx/import.h"
#include "compiler/onnx/resize_matrix.h"
#include "ir/eval.h"

using namespace mgc;
using namespace mgc::onnximport;

namespace {

ResizeAxis axis(int64_t in, int64_t out, ResizeMode mode, CoordinateMode coord) {
  ResizeAxis a;
  a.inSize = in;
  a.outSize = out;
  a.scale = double(out) / double(in);
  a.mode = mode;
  a.coord = coord;
  return a;
}

void requireMatrix(const ResizeMatrix& m, const std::vector<std::vector<double>>& want) {
  REQUIRE(m.rows == int64_t(want.size()));
  for (int64_t i = 0; i < m.rows; ++i) {
    REQUIRE(m.cols == int64_t(want[size_t(i)].size()));
    for (int64_t j = 0; j < m.cols; ++j) {
      INFO("row " << i << " column " << j);
      CHECK(m.at(i, j) == Approx(want[size_t(i)][size_t(j)]).margin(1e-12));
    }
  }
}

}  // namespace

TEST_CASE("resize matrix: nearest", "[resize]") {
  // half_pixel, 2 -> 4: sample points -0.25, 0.25, 0.75, 1.25 round to 0, 0, 1, 1.
  ResizeMatrix m = resizeMatrix(axis(2, 4, ResizeMode::Nearest, CoordinateMode::HalfPixel));
  CHECK(copySources(m) == std::vector<int64_t>{0, 0, 1, 1});
  CHECK(repeatFactor(m) == 2);

  // asymmetric, 4 -> 8: points 0, .5, 1, 1.5 ... The ties at .5 decide.
  ResizeAxis a = axis(4, 8, ResizeMode::Nearest, CoordinateMode::Asymmetric);
  CHECK(copySources(resizeMatrix(a)) == std::vector<int64_t>{0, 0, 1, 1, 2, 2, 3, 3});
  a.rounding = NearestRounding::RoundPreferCeil;  // 3.5 rounds to 4, read from the edge 3
  CHECK(copySources(resizeMatrix(a)) == std::vector<int64_t>{0, 1, 1, 2, 2, 3, 3, 3});
  CHECK(!repeatFactor(resizeMatrix(a)));
  a.rounding = NearestRounding::Ceil;  // integers stay, fractions go up
  CHECK(copySources(resizeMatrix(a)) == std::vector<int64_t>{0, 1, 1, 2, 2, 3, 3, 3});
  a.rounding = NearestRounding::Floor;
  CHECK(repeatFactor(resizeMatrix(a)) == 2);

  // A downscale 5 -> 2 (half_pixel: points 0.75, 3.25) copies but does not repeat.
  ResizeMatrix d = resizeMatrix(axis(5, 2, ResizeMode::Nearest, CoordinateMode::HalfPixel));
  CHECK(copySources(d) == std::vector<int64_t>{1, 3});
  CHECK(!repeatFactor(d));

  // tf_half_pixel_for_nearest, 4 -> 2: (x + .5) / .5 = 1, 3.
  CHECK(copySources(resizeMatrix(axis(4, 2, ResizeMode::Nearest, CoordinateMode::TfHalfPixelForNearest))) ==
        std::vector<int64_t>{1, 3});
  // Identity: scale 1 under every transform.
  CHECK(repeatFactor(resizeMatrix(axis(3, 3, ResizeMode::Cubic, CoordinateMode::HalfPixel))) == 1);
  CHECK(repeatFactor(resizeMatrix(axis(3, 3, ResizeMode::Linear, CoordinateMode::AlignCorners))) == 1);
}

TEST_CASE("resize matrix: linear", "[resize]") {
  // half_pixel 2 -> 4 (PyTorch bilinear, align_corners=False): edges clamp.
  requireMatrix(resizeMatrix(axis(2, 4, ResizeMode::Linear, CoordinateMode::HalfPixel)),
                {{1, 0}, {0.75, 0.25}, {0.25, 0.75}, {0, 1}});
  // align_corners 3 -> 5: points i * 2 / 4.
  requireMatrix(resizeMatrix(axis(3, 5, ResizeMode::Linear, CoordinateMode::AlignCorners)),
                {{1, 0, 0}, {0.5, 0.5, 0}, {0, 1, 0}, {0, 0.5, 0.5}, {0, 0, 1}});
  // align_corners with `scales` 0.6 on 4: the reference divides by
  // scale * in - 1 = 1.4, not by the integer size 2 - 1: x(1) = 3 / 1.4.
  ResizeAxis s = axis(4, 2, ResizeMode::Linear, CoordinateMode::AlignCorners);
  s.scale = double(0.6f);
  const double x1 = 3 / (double(0.6f) * 4 - 1);
  requireMatrix(resizeMatrix(s), {{1, 0, 0, 0}, {0, 0, 1 - (x1 - 2), x1 - 2}});
  // pytorch_half_pixel to one element samples -0.5 (the first element);
  // half_pixel samples the centre.
  requireMatrix(resizeMatrix(axis(3, 1, ResizeMode::Linear, CoordinateMode::PytorchHalfPixel)), {{1, 0, 0}});
  requireMatrix(resizeMatrix(axis(3, 1, ResizeMode::Linear, CoordinateMode::HalfPixel)), {{0, 1, 0}});
  // half_pixel_symmetric, `scales` 0.5 on 3: output width 1.5 floors to 1;
  // offset 1.5 * (1 - 1 / 1.5) = 0.5 moves the point from 0.5 to 1.
  ResizeAxis sym = axis(3, 1, ResizeMode::Linear, CoordinateMode::HalfPixelSymmetric);
  sym.scale = 0.5;
  requireMatrix(resizeMatrix(sym), {{0, 1, 0}});
  sym.coord = CoordinateMode::HalfPixel;
  requireMatrix(resizeMatrix(sym), {{0.5, 0.5, 0}});
}

TEST_CASE("resize matrix: cubic", "[resize]") {
  // Keys kernel, A = -0.75, half_pixel 4 -> 8. Output 0 samples -0.25
  // (ratio 0.75): neighbours -2, -1, 0, 1 with weights
  // -0.03515625, 0.26171875, 0.87890625, -0.10546875 (sum 1); the three
  // left of the input all read element 0.
  ResizeAxis a = axis(4, 8, ResizeMode::Cubic, CoordinateMode::HalfPixel);
  ResizeMatrix m = resizeMatrix(a);
  CHECK(m.at(0, 0) == Approx(-0.03515625 + 0.26171875 + 0.87890625).margin(1e-12));
  CHECK(m.at(0, 1) == Approx(-0.10546875).margin(1e-12));
  CHECK(m.at(0, 2) == 0);
  // exclude_outside drops the outside neighbours and renormalizes.
  a.excludeOutside = true;
  m = resizeMatrix(a);
  CHECK(m.at(0, 0) == Approx(0.87890625 / 0.7734375).margin(1e-12));
  CHECK(m.at(0, 1) == Approx(-0.10546875 / 0.7734375).margin(1e-12));
  // Output 3 samples 1.25 (ratio 0.25, neighbours 0..3), all inside: the
  // mirrored weights.
  CHECK(m.at(3, 0) == Approx(-0.10546875).margin(1e-12));
  CHECK(m.at(3, 1) == Approx(0.87890625).margin(1e-12));
  CHECK(m.at(3, 2) == Approx(0.26171875).margin(1e-12));
  CHECK(m.at(3, 3) == Approx(-0.03515625).margin(1e-12));
}

TEST_CASE("resize matrix: antialias widens a downscale", "[resize]") {
  // linear, half_pixel 4 -> 2 (scale 0.5): the triangle spans 4 inputs.
  // Point 0.5 (ratio 0.5): arguments (k - 0.5) * 0.5 for k = -1..2 give
  // 0.25, 0.75, 0.75, 0.25, normalized /2; neighbours -1..2 (-1 reads 0).
  ResizeAxis a = axis(4, 2, ResizeMode::Linear, CoordinateMode::HalfPixel);
  a.antialias = true;
  requireMatrix(resizeMatrix(a), {{0.5, 0.375, 0.125, 0}, {0, 0.125, 0.375, 0.5}});
  // An upscale is not widened: antialias changes nothing.
  ResizeAxis up = axis(2, 4, ResizeMode::Linear, CoordinateMode::HalfPixel);
  up.antialias = true;
  requireMatrix(resizeMatrix(up), {{1, 0}, {0.75, 0.25}, {0.25, 0.75}, {0, 1}});
  // Cubic antialias at scale 1 is plain cubic: identity.
  ResizeAxis c = axis(3, 3, ResizeMode::Cubic, CoordinateMode::HalfPixel);
  c.antialias = true;
  CHECK(repeatFactor(resizeMatrix(c)) == 1);
}

TEST_CASE("resize matrix: tf_crop_and_resize extrapolates", "[resize]") {
  // roi [0.5, 1.5] of 3 elements to 3: points x + 1 = 1, 2, 3; 3 > 2 is outside.
  ResizeAxis a = axis(3, 3, ResizeMode::Linear, CoordinateMode::TfCropAndResize);
  a.roiStart = 0.5;
  a.roiEnd = 1.5;
  ResizeMatrix m = resizeMatrix(a);
  requireMatrix(m, {{0, 1, 0}, {0, 0, 1}, {0, 0, 0}});
  CHECK(m.extrapolated == std::vector<bool>{false, false, true});
  CHECK(!copySources(m));
}

TEST_CASE("resize matrix: invalid axes throw", "[resize]") {
  ResizeAxis a = axis(2, 4, ResizeMode::Nearest, CoordinateMode::HalfPixel);
  a.antialias = true;
  CHECK_THROWS_WITH(resizeMatrix(a), Catch::Contains("antialias"));
  CHECK_THROWS_AS(resizeMatrix(axis(2, 0, ResizeMode::Linear, CoordinateMode::HalfPixel)), Error);
  ResizeAxis big = axis(1 << 13, 1 << 13, ResizeMode::Linear, CoordinateMode::HalfPixel);
  big.outSize = 1 << 12;
  CHECK_THROWS_WITH(resizeMatrix(big), Catch::Contains("too large"));
}

// ---- the converter --------------------------------------------------------

namespace {

// A one-node model: Resize / Upsample on x: f32[shape], constant float
// `scales` (input `scalesAt`; -1: none) or int64 `sizes` (input 3).
struct ModelSpec {
  std::string op = "Resize";
  int opset = 13;
  Shape shape;
  std::vector<float> scales;
  std::vector<int64_t> sizes;
  std::vector<std::pair<std::string, std::string>> stringAttrs;
  bool scalesAsGraphInput = false;
  int elemType = onnx::TensorProto::FLOAT;
};

Graph importSpec(const ModelSpec& s) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.add_opset_import()->set_version(s.opset);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("resize");
  auto addValue = [](google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name, int type,
                     const Shape& shape) {
    onnx::ValueInfoProto* v = list->Add();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(type);
    for (int64_t d : shape) v->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
  };
  addValue(g->mutable_input(), "x", s.elemType, s.shape);
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(s.op);
  n->set_name("rs");
  n->add_input("x");
  n->add_output("y");
  const bool legacy = s.op == "Upsample" || s.opset < 11;
  if (s.op == "Upsample" && s.opset < 9) {  // Upsample-7: scales is an attribute
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name("scales");
    a->set_type(onnx::AttributeProto::FLOATS);
    for (float v : s.scales) a->add_floats(v);
  } else if (!s.scales.empty()) {
    if (!legacy) n->add_input("");  // roi
    n->add_input("scales");
    if (s.scalesAsGraphInput) {
      addValue(g->mutable_input(), "scales", onnx::TensorProto::FLOAT, {int64_t(s.scales.size())});
    } else {
      onnx::TensorProto* t = g->add_initializer();
      t->set_name("scales");
      t->set_data_type(onnx::TensorProto::FLOAT);
      t->add_dims(int64_t(s.scales.size()));
      for (float v : s.scales) t->add_float_data(v);
    }
  } else {
    n->add_input("");
    n->add_input("");
    n->add_input("sizes");
    onnx::TensorProto* t = g->add_initializer();
    t->set_name("sizes");
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(int64_t(s.sizes.size()));
    for (int64_t v : s.sizes) t->add_int64_data(v);
  }
  for (const auto& [k, v] : s.stringAttrs) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(k);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(v);
  }
  addValue(g->mutable_output(), "y", s.elemType, {});
  const std::string bytes = m.SerializeAsString();
  return importOnnxBytes(bytes.data(), bytes.size(), "resize.onnx");
}

// The ops computing y (the Identity that names a graph output left out).
std::vector<Op> opsOf(const Graph& g) {
  std::vector<Op> ops;
  for (const Node& n : g.nodes)
    if (n.op != Op::Identity) ops.push_back(n.op);
  return ops;
}

std::vector<float> run(const Graph& g, const Shape& shape, const std::vector<float>& x, DType dtype = DType::F32) {
  HostTensor in(TensorType{dtype, shape});
  for (size_t i = 0; i < x.size(); ++i) in.setF(int64_t(i), x[i]);
  std::map<std::string, HostTensor> out = evalGraph(g, {{"x", in}});
  const HostTensor& y = out.at("y");
  std::vector<float> r;
  for (int64_t i = 0; i < y.numel(); ++i) r.push_back(float(y.getF(i)));
  return r;
}

// x upsampled by integer factors s (nearest): y[o] = x[o / s] per axis.
std::vector<float> nearestUpsample(const Shape& in, const std::vector<int64_t>& s, const std::vector<float>& x) {
  Shape out;
  for (size_t k = 0; k < in.size(); ++k) out.push_back(in[k] * s[k]);
  std::vector<float> y(size_t(numel(out)));
  for (int64_t o = 0; o < numel(out); ++o) {
    int64_t src = 0, rest = o, stride = 1;
    for (size_t k = out.size(); k-- > 0;) {
      src += (rest % out[k]) / s[k] * stride;
      rest /= out[k];
      stride *= in[k];
    }
    y[size_t(o)] = x[size_t(src)];
  }
  return y;
}

}  // namespace

TEST_CASE("resize converter: nearest 2x is Reshape, Expand, Reshape", "[resize]") {
  ModelSpec s;
  s.shape = {1, 1, 2, 2};
  s.scales = {1, 1, 2, 2};
  s.stringAttrs = {{"mode", "nearest"}, {"coordinate_transformation_mode", "asymmetric"}, {"nearest_mode", "floor"}};
  Graph g = importSpec(s);
  CHECK(opsOf(g) == std::vector<Op>{Op::Reshape, Op::Expand, Op::Reshape});
  CHECK(g.type(g.outputs[0]).shape == Shape{1, 1, 4, 4});
  CHECK(run(g, s.shape, {1, 2, 3, 4}) == std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  // half_pixel with round_prefer_floor reduces to the same copy.
  s.stringAttrs = {{"mode", "nearest"}};
  CHECK(opsOf(importSpec(s)) == std::vector<Op>{Op::Reshape, Op::Expand, Op::Reshape});
  // Upsample-9 and Resize-10 too.
  s.op = "Upsample";
  s.opset = 9;
  CHECK(opsOf(importSpec(s)) == std::vector<Op>{Op::Reshape, Op::Expand, Op::Reshape});
  s.opset = 7;
  s.scales = {1, 1, 3, 2};
  g = importSpec(s);
  CHECK(g.type(g.outputs[0]).shape == Shape{1, 1, 6, 4});
  CHECK(run(g, s.shape, {1, 2, 3, 4}) == nearestUpsample(s.shape, {1, 1, 3, 2}, {1, 2, 3, 4}));
}

TEST_CASE("resize converter: nearest on many axes stays within the copy kernel's rank", "[resize]") {
  ModelSpec s;
  std::vector<float> x;
  for (int i = 0; i < 16; ++i) x.push_back(float(i));
  // 3-D upsample of [N, C, D, H, W]: N, C, D merge, so [NCD, 1, H, 1, W, 1].
  s.shape = {1, 2, 2, 2, 2};
  s.scales = {1, 1, 2, 3, 2};
  Graph g = importSpec(s);
  CHECK(opsOf(g) == std::vector<Op>{Op::Reshape, Op::Expand, Op::Reshape});
  for (const Node& n : g.nodes)
    if (n.op == Op::Expand) CHECK(g.type(n.outputs[0]).shape.size() == 6);
  CHECK(run(g, s.shape, x) == nearestUpsample(s.shape, {1, 1, 2, 3, 2}, x));
  // Every axis of a 4-D tensor repeated would need 8: one Expand per axis.
  s.shape = {2, 2, 2, 2};
  s.scales = {2, 3, 2, 2};
  g = importSpec(s);
  int expands = 0;
  for (const Node& n : g.nodes) expands += n.op == Op::Expand;
  CHECK(expands == 4);
  CHECK(run(g, s.shape, x) == nearestUpsample(s.shape, {2, 3, 2, 2}, x));
}

TEST_CASE("resize converter: linear is one MatMul per resized axis", "[resize]") {
  ModelSpec s;
  s.shape = {1, 2, 2};
  s.sizes = {1, 2, 4};  // last axis only
  s.stringAttrs = {{"mode", "linear"}};
  Graph g = importSpec(s);
  CHECK(opsOf(g) == std::vector<Op>{Op::MatMul});
  CHECK(run(g, s.shape, {0, 4, 8, 16}) == std::vector<float>{0, 1, 3, 4, 8, 10, 14, 16});
  // The first of three axes: [P, D, Q] = [1, 1, 4] around the MatMul.
  s.shape = {2, 1, 2};
  s.sizes = {4, 1, 2};
  g = importSpec(s);
  CHECK(opsOf(g) == std::vector<Op>{Op::Reshape, Op::MatMul, Op::Reshape});
  CHECK(run(g, s.shape, {0, 4, 8, 16}) == std::vector<float>{0, 4, 2, 7, 6, 13, 8, 16});
}

TEST_CASE("resize converter: integers resize by copying (Gather)", "[resize]") {
  ModelSpec s;
  s.elemType = onnx::TensorProto::INT32;
  s.shape = {1, 5};
  s.sizes = {1, 2};  // nearest half_pixel 5 -> 2 reads elements 1 and 3
  Graph g = importSpec(s);
  CHECK(opsOf(g) == std::vector<Op>{Op::Gather});
  CHECK(run(g, s.shape, {10, 11, 12, 13, 14}, DType::I32) == std::vector<float>{11, 13});
  s.stringAttrs = {{"mode", "linear"}};  // would mix integers
  CHECK_THROWS_WITH(importSpec(s), Catch::Contains("not supported"));
}

TEST_CASE("resize converter: errors name the node", "[resize]") {
  ModelSpec s;
  s.shape = {1, 1, 2, 2};
  s.scales = {1, 1, 2, 2};
  s.scalesAsGraphInput = true;
  CHECK_THROWS_WITH(importSpec(s), Catch::Contains("'rs' (Resize") && Catch::Contains("must be a constant"));
  s.scalesAsGraphInput = false;
  s.stringAttrs = {{"coordinate_transformation_mode", "sideways"}};
  CHECK_THROWS_WITH(importSpec(s), Catch::Contains("'rs' (Resize") && Catch::Contains("'sideways' is not valid"));
  s.stringAttrs = {};
  s.scales = {1, 2};
  CHECK_THROWS_WITH(importSpec(s), Catch::Contains("scales has 2 entries for 4 axes"));
}
