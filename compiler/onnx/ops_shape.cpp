// Shape-manipulating ONNX ops. Everything that depends on a shape operand
// (Reshape's shape, Slice's starts, Pad's pads ...) needs it constant, and
// is resolved here to the IR's explicit, normalized attributes.
#include <algorithm>
#include <set>

#include "compiler/onnx/importer.h"
#include "compiler/onnx/ops_extra.h"
#include "compiler/onnx/tensor_proto.h"

namespace mgc::onnximport {

namespace {

// Sorted, normalized, duplicate-free axes.
std::vector<int64_t> normAxes(NodeContext& c, const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<int64_t> r;
  for (int64_t a : axes) r.push_back(c.normAxis(a, rank));
  std::sort(r.begin(), r.end());
  if (std::adjacent_find(r.begin(), r.end()) != r.end()) c.fail("axes contain a duplicate");
  return r;
}

// Axes from the attribute (before `inputOpset`) or from input 1 (after).
std::optional<std::vector<int64_t>> axesOperand(NodeContext& c, int inputOpset) {
  if (c.opset >= inputOpset) return c.intsInput(1, "axes");
  if (c.hasAttr("axes")) return c.attrInts("axes");
  return std::nullopt;
}

void reshape(NodeContext& c) {
  ValueId x = c.input(0);
  std::optional<std::vector<int64_t>> target;
  if (c.opset < 5) {  // Reshape-1: the shape is an attribute
    c.onlyAttrs({"shape"});
    target = c.attrInts("shape");
  } else {
    c.onlyAttrs({"allowzero"});
    target = c.intsInput(1, "shape");
  }
  if (!target) c.fail("shape input is missing");
  const Shape in = c.type(x).shape;
  bool allowZero = c.attrInt("allowzero", 0) != 0;
  Shape out;
  int inferAxis = -1;
  for (size_t k = 0; k < target->size(); ++k) {
    int64_t d = (*target)[k];
    if (d == 0 && !allowZero) {
      if (k >= in.size()) c.fail("shape entry " + std::to_string(k) + " is 0 but the input has rank " + std::to_string(in.size()));
      d = in[k];
    } else if (d == -1) {
      if (inferAxis >= 0) c.fail("shape has more than one -1");
      inferAxis = int(k);
      d = 1;
    } else if (d < 0) {
      c.fail("shape entry " + std::to_string(d) + " is invalid");
    }
    out.push_back(d);
  }
  int64_t known = checkedNumel(out, "target shape"), total = c.type(x).numel();
  if (inferAxis >= 0) {
    if (known == 0 || total % known != 0)
      c.fail("cannot infer the -1 in " + shapeStr(*target) + " for input " + c.type(x).str());
    out[size_t(inferAxis)] = total / known;
  }
  c.emitOutput(0, Op::Reshape, {x}, {{"shape", out}});
}

void flatten(NodeContext& c) {
  c.onlyAttrs({"axis"});
  ValueId x = c.input(0);
  const Shape s = c.type(x).shape;
  int64_t rank = int64_t(s.size()), axis = c.attrInt("axis", 1);
  if (axis < -rank || axis > rank) c.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  if (axis < 0) axis += rank;
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < rank; ++k) (k < axis ? outer : inner) *= s[size_t(k)];
  c.emitOutput(0, Op::Reshape, {x}, {{"shape", Shape{outer, inner}}});
}

void squeeze(NodeContext& c) {
  c.onlyAttrs({"axes"});
  ValueId x = c.input(0);
  const Shape s = c.type(x).shape;
  auto axes = axesOperand(c, 13);
  std::vector<bool> drop(s.size(), false);
  if (axes && !axes->empty()) {  // an empty list squeezes all, as onnxruntime does
    for (int64_t a : normAxes(c, *axes, int64_t(s.size()))) {
      if (s[size_t(a)] != 1) c.fail("cannot squeeze axis " + std::to_string(a) + " of " + c.type(x).str());
      drop[size_t(a)] = true;
    }
  } else {
    for (size_t k = 0; k < s.size(); ++k) drop[k] = s[k] == 1;
  }
  Shape out;
  for (size_t k = 0; k < s.size(); ++k)
    if (!drop[k]) out.push_back(s[k]);
  c.emitOutput(0, Op::Reshape, {x}, {{"shape", out}});
}

void unsqueeze(NodeContext& c) {
  c.onlyAttrs({"axes"});
  ValueId x = c.input(0);
  const Shape s = c.type(x).shape;
  auto axes = axesOperand(c, 13);
  if (!axes) c.fail("axes are missing");
  if (axes->size() > 64) c.fail("too many axes");
  int64_t outRank = int64_t(s.size() + axes->size());
  std::vector<int64_t> at = normAxes(c, *axes, outRank);
  Shape out;
  size_t next = 0;
  for (int64_t k = 0; k < outRank; ++k)
    out.push_back(std::binary_search(at.begin(), at.end(), k) ? 1 : s[next++]);
  c.emitOutput(0, Op::Reshape, {x}, {{"shape", out}});
}

void transpose(NodeContext& c) {
  c.onlyAttrs({"perm"});
  ValueId x = c.input(0);
  std::vector<int64_t> reversed;
  for (int64_t k = c.type(x).rank() - 1; k >= 0; --k) reversed.push_back(k);
  c.emitOutput(0, Op::Transpose, {x}, {{"perm", c.attrInts("perm", reversed)}});
}

void concat(NodeContext& c) {
  c.onlyAttrs({"axis"});
  std::vector<ValueId> ins;
  for (int k = 0; k < c.numInputs(); ++k) ins.push_back(c.input(k));
  if (ins.empty()) c.fail("no inputs");
  // Concat-1 defaults the axis to 1; since opset 4 it is required.
  int64_t axis = c.normAxis(c.opset < 4 ? c.attrInt("axis", 1) : c.attrInt("axis"), c.type(ins[0]).rank());
  Attrs attrs{{"axis", axis}};
  size_t maxIn = size_t(opInfo(Op::Concat).maxInputs);
  while (ins.size() > maxIn) {  // the IR op takes a bounded number: concatenate in groups
    ValueId head = c.emit(Op::Concat, std::vector<ValueId>(ins.begin(), ins.begin() + long(maxIn)), attrs);
    ins.erase(ins.begin(), ins.begin() + long(maxIn));
    ins.insert(ins.begin(), head);
  }
  c.emitOutput(0, Op::Concat, ins, attrs);
}

// One Slice entry per axis, clamped the way ONNX does it, in the IR's
// normalized form (0 <= start, end in [-1, dim], step != 0).
void slice(NodeContext& c) {
  ValueId x = c.input(0);
  const Shape s = c.type(x).shape;
  int64_t rank = int64_t(s.size());
  std::vector<int64_t> starts, ends, axes, steps;
  if (c.opset < 10) {
    c.onlyAttrs({"starts", "ends", "axes"});
    starts = c.attrInts("starts");
    ends = c.attrInts("ends");
    axes = c.attrInts("axes", std::vector<int64_t>{});
  } else {
    c.onlyAttrs({});
    starts = c.intsInput(1, "starts").value_or(std::vector<int64_t>{});
    ends = c.intsInput(2, "ends").value_or(std::vector<int64_t>{});
    axes = c.intsInput(3, "axes").value_or(std::vector<int64_t>{});
    steps = c.intsInput(4, "steps").value_or(std::vector<int64_t>{});
  }
  if (axes.empty())
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(int64_t(k));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    c.fail("starts, ends, axes and steps differ in length");

  std::vector<int64_t> st(size_t(rank), 0), en(s.begin(), s.end()), sp(size_t(rank), 1);
  std::vector<bool> seen(size_t(rank), false);
  for (size_t i = 0; i < starts.size(); ++i) {
    size_t a = size_t(c.normAxis(axes[i], rank));
    if (seen[a]) c.fail("axis " + std::to_string(a) + " appears twice");
    seen[a] = true;
    int64_t dim = s[a], b = starts[i], e = ends[i], step = steps[i];
    if (step == 0) c.fail("step is zero");
    // A step past the dimension selects the same single element; clamping
    // it keeps the IR's count arithmetic far from overflow.
    step = std::clamp<int64_t>(step, -std::max<int64_t>(dim, 1), std::max<int64_t>(dim, 1));
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    if (dim == 0) {
      b = e = 0;
    } else if (step > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
    } else {
      b = std::clamp<int64_t>(b, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
    }
    st[a] = b;
    en[a] = e;
    sp[a] = step;
  }
  c.emitOutput(0, Op::Slice, {x}, {{"starts", st}, {"ends", en}, {"steps", sp}});
}

// Constant indices are normalized (negative → from the end) and checked.
void gather(NodeContext& c) {
  c.onlyAttrs({"axis"});
  ValueId data = c.input(0), indices = c.input(1);
  int64_t axis = c.normAxis(c.attrInt("axis", 0), c.type(data).rank());
  const Value& iv = c.im.g.value(indices);
  if (iv.isConstant()) {
    int64_t dim = c.type(data).shape[size_t(axis)];
    HostTensor idx = *iv.constant;
    bool changed = false;
    for (int64_t i = 0; i < idx.numel(); ++i) {
      int64_t v = idx.getI(i);
      if (v < -dim || v >= dim) c.fail("index " + std::to_string(v) + " is out of range for dimension " + std::to_string(dim));
      if (v < 0) {
        idx.setI(i, v + dim);
        changed = true;
      }
    }
    if (changed) indices = c.constant(std::move(idx));
  }
  c.emitOutput(0, Op::Gather, {data, indices}, {{"axis", axis}});
}

void split(NodeContext& c) {
  c.onlyAttrs({"axis", "split"});
  ValueId x = c.input(0);
  const Shape s = c.type(x).shape;
  int64_t axis = c.normAxis(c.attrInt("axis", 0), int64_t(s.size()));
  int64_t dim = s[size_t(axis)], n = c.numOutputs();
  std::optional<std::vector<int64_t>> sizes =
      c.opset >= 13 ? c.intsInput(1, "split") : c.hasAttr("split") ? std::optional(c.attrInts("split")) : std::nullopt;
  if (!sizes) {
    if (n == 0 || dim % n != 0) c.fail("cannot split dimension " + std::to_string(dim) + " into " + std::to_string(n) + " equal parts");
    sizes = std::vector<int64_t>(size_t(n), dim / n);
  }
  if (int64_t(sizes->size()) != n) c.fail("split has " + std::to_string(sizes->size()) + " sizes for " + std::to_string(n) + " outputs");
  int64_t offset = 0;
  for (int64_t k = 0; k < n; ++k) {
    int64_t size = (*sizes)[size_t(k)];
    if (size < 0 || size > dim - offset) c.fail("split sizes do not add up to dimension " + std::to_string(dim));
    std::vector<int64_t> st(s.size(), 0), en(s.begin(), s.end()), sp(s.size(), 1);
    st[size_t(axis)] = offset;
    en[size_t(axis)] = offset + size;
    offset += size;
    if (!c.proto.output(int(k)).empty())
      c.emitOutput(int(k), Op::Slice, {x}, {{"starts", st}, {"ends", en}, {"steps", sp}});
  }
  if (offset != dim) c.fail("split sizes do not add up to dimension " + std::to_string(dim));
}

void expand(NodeContext& c) {
  c.onlyAttrs({});
  auto shape = c.intsInput(1, "shape");
  if (!shape) c.fail("shape input is missing");
  checkedNumel(*shape, "shape");
  c.emitOutput(0, Op::Expand, {c.input(0)}, {{"shape", *shape}});
}

void pad(NodeContext& c) {
  if (c.opset < 2) c.onlyAttrs({"mode", "paddings", "value"});  // Pad-1 calls the pads "paddings"
  else c.onlyAttrs({"mode", "pads", "value"});
  ValueId x = c.input(0);
  int64_t rank = c.type(x).rank();
  std::string mode = c.attrString("mode", "constant");
  std::vector<int64_t> pads;
  double value = 0;
  if (c.opset < 11) {
    pads = c.attrInts(c.opset < 2 ? "paddings" : "pads");
    value = c.attrFloat("value", 0.0);
  } else {
    auto p = c.intsInput(1, "pads");
    if (!p) c.fail("pads input is missing");
    pads = *p;
    if (const HostTensor* v = c.constInput(2, "constant_value")) {
      if (v->numel() > 1) c.fail("constant_value must be a scalar, got " + v->type.str());
      if (v->numel() == 1) value = v->getF(0);
    }
    if (auto axes = c.intsInput(3, "axes")) {  // opset 18: pads for the listed axes only
      std::vector<int64_t> full(size_t(2 * rank), 0);
      if (pads.size() != 2 * axes->size()) c.fail("pads do not match axes");
      std::vector<int64_t> at;
      for (int64_t a : *axes) at.push_back(c.normAxis(a, rank));
      for (size_t i = 0; i < at.size(); ++i) {
        full[size_t(at[i])] = pads[i];
        full[size_t(at[i] + rank)] = pads[i + at.size()];
      }
      pads = full;
    }
  }
  if (int64_t(pads.size()) != 2 * rank) c.fail("pads has " + std::to_string(pads.size()) + " entries for rank " + std::to_string(rank));
  for (int64_t p : pads)
    if (p < -kMaxElements || p > kMaxElements) c.fail("pad " + std::to_string(p) + " is out of range");
  if (mode != "constant") return c.setOutput(0, padByMode(c, x, pads, mode));
  c.emitOutput(0, Op::Pad, {x}, {{"pads", pads}, {"value", value}});
}

// Tile(x, r) = Reshape(Expand(Reshape(x, [1,d0,1,d1..]), [r0,d0,r1,d1..]), [r0*d0, r1*d1..]).
void tile(NodeContext& c) {
  if (c.opset < 6) c.unsupported("Tile-1 (tiles/axis inputs) is not supported");
  c.onlyAttrs({});
  ValueId x = c.input(0);
  const Shape s = c.type(x).shape;
  auto reps = c.intsInput(1, "repeats");
  if (!reps || reps->size() != s.size()) c.fail("repeats must have one entry per axis");
  if (std::all_of(reps->begin(), reps->end(), [](int64_t r) { return r == 1; })) return c.setOutput(0, x);
  Shape spread, expanded, out;
  for (size_t k = 0; k < s.size(); ++k) {
    int64_t r = (*reps)[k];
    if (r < 0) c.fail("repeats must be >= 0");
    spread.insert(spread.end(), {1, s[k]});
    expanded.insert(expanded.end(), {r, s[k]});
    checkedNumel(expanded, "tiled shape");  // before r * s[k] can overflow
    out.push_back(r * s[k]);
  }
  ValueId e = c.emit(Op::Expand, {reshapeTo(c, x, spread)}, {{"shape", expanded}});
  c.emitOutput(0, Op::Reshape, {e}, {{"shape", out}});
}

}  // namespace

void addShapeConverters(ConverterTable& t) {
  t[{"", "Reshape"}] = reshape;
  t[{"", "Flatten"}] = flatten;
  t[{"", "Squeeze"}] = squeeze;
  t[{"", "Unsqueeze"}] = unsqueeze;
  t[{"", "Transpose"}] = transpose;
  t[{"", "Concat"}] = concat;
  t[{"", "Slice"}] = slice;
  t[{"", "Gather"}] = gather;
  t[{"", "Split"}] = split;
  t[{"", "Expand"}] = expand;
  t[{"", "Pad"}] = pad;
  t[{"", "Tile"}] = tile;
}

}  // namespace mgc::onnximport
