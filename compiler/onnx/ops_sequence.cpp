// Sequences whose length is known while importing: a sequence value is the
// list of its element tensors (Importer::sequences), so SequenceAt /
// Insert / Erase need constant positions and every op resolves here.
// ConcatFromSequence and SplitToSequence become Concat / Slice nodes.
#include <algorithm>

#include "compiler/onnx/ops_extra.h"

namespace mgc::onnximport {

namespace {

using Seq = std::vector<ValueId>;

const Seq& seqInput(NodeContext& c, int k) {
  if (!c.hasInput(k)) c.fail("input " + std::to_string(k) + " (a sequence) is missing");
  auto it = c.im.sequences.find(c.proto.input(k));
  if (it == c.im.sequences.end()) c.fail("input '" + c.proto.input(k) + "' is not a sequence");
  return it->second;
}

void setSeq(NodeContext& c, Seq s) {
  if (c.numOutputs() < 1 || c.proto.output(0).empty()) return;
  const std::string& out = c.proto.output(0);
  if (c.im.values.count(out) || c.im.sequences.count(out)) c.fail("value '" + out + "' is defined twice");
  c.im.sequences[out] = std::move(s);
}

// A constant scalar position in [-n, n - 1 + extra] (extra = 1 for insert).
int64_t position(NodeContext& c, int k, int64_t n, int64_t def, int64_t extra) {
  const HostTensor* t = c.constInput(k, "position");
  if (!t) return def;
  if (t->numel() != 1) c.fail("position must be a scalar");
  int64_t p = t->getI(0);
  if (p < -n || p > n - 1 + extra) c.fail("position " + std::to_string(p) + " is out of range for a sequence of " + std::to_string(n));
  return p < 0 ? p + n : p;
}

void sequenceEmpty(NodeContext& c) {
  c.onlyAttrs({"dtype"});
  setSeq(c, {});
}

void sequenceConstruct(NodeContext& c) {
  c.onlyAttrs({});
  Seq s;
  for (int k = 0; k < c.numInputs(); ++k) s.push_back(c.input(k));
  setSeq(c, s);
}

void sequenceInsert(NodeContext& c) {
  c.onlyAttrs({});
  Seq s = seqInput(c, 0);
  int64_t n = int64_t(s.size()), at = position(c, 2, n, n, 1);
  s.insert(s.begin() + at, c.input(1));
  setSeq(c, s);
}

void sequenceErase(NodeContext& c) {
  c.onlyAttrs({});
  Seq s = seqInput(c, 0);
  if (s.empty()) c.fail("cannot erase from an empty sequence");
  int64_t n = int64_t(s.size());
  s.erase(s.begin() + position(c, 1, n, n - 1, 0));
  setSeq(c, s);
}

void sequenceAt(NodeContext& c) {
  c.onlyAttrs({});
  const Seq& s = seqInput(c, 0);
  if (s.empty()) c.fail("cannot index an empty sequence");
  int64_t n = int64_t(s.size());
  if (!c.hasInput(1)) c.fail("position is missing");
  c.setOutput(0, s[size_t(position(c, 1, n, 0, 0))]);
}

void sequenceLength(NodeContext& c) {
  c.onlyAttrs({});
  HostTensor t(TensorType{DType::I64, {}});
  t.setI(0, int64_t(seqInput(c, 0).size()));
  c.setOutputConstant(0, std::move(t));
}

void concatFromSequence(NodeContext& c) {
  c.onlyAttrs({"axis", "new_axis"});
  Seq s = seqInput(c, 0);
  if (s.empty()) c.fail("cannot concatenate an empty sequence");
  bool newAxis = c.attrInt("new_axis", 0) != 0;
  int64_t rank = c.type(s[0]).rank() + (newAxis ? 1 : 0);
  int64_t axis = c.normAxis(c.attrInt("axis"), rank);
  if (newAxis)
    for (ValueId& v : s) {
      Shape sh = c.type(v).shape;
      sh.insert(sh.begin() + axis, 1);
      v = reshapeTo(c, v, sh);
    }
  if (s.size() == 1) return c.setOutput(0, s[0]);
  size_t maxIn = size_t(opInfo(Op::Concat).maxInputs);
  while (s.size() > maxIn) {  // the IR op takes a bounded number: concatenate in groups
    ValueId head = c.emit(Op::Concat, Seq(s.begin(), s.begin() + long(maxIn)), {{"axis", axis}});
    s.erase(s.begin(), s.begin() + long(maxIn));
    s.insert(s.begin(), head);
  }
  c.emitOutput(0, Op::Concat, s, {{"axis", axis}});
}

// Without `split`: pieces of 1 (squeezed unless keepdims); a scalar split:
// pieces of that size (the last may be smaller); a 1-D split: those sizes.
void splitToSequence(NodeContext& c) {
  c.onlyAttrs({"axis", "keepdims"});
  ValueId x = c.input(0);
  const Shape s = c.type(x).shape;
  int64_t axis = c.normAxis(c.attrInt("axis", 0), int64_t(s.size())), dim = s[size_t(axis)];
  std::vector<int64_t> sizes;
  bool squeeze = false;
  if (const HostTensor* t = c.constInput(1, "split")) {
    if (t->type.rank() == 0) {
      int64_t k = t->getI(0);
      if (k <= 0) c.fail("split must be positive");
      for (int64_t at = 0; at < dim; at += k) sizes.push_back(std::min(k, dim - at));
    } else {
      for (int64_t i = 0; i < t->numel(); ++i) sizes.push_back(t->getI(i));
    }
  } else {
    sizes.assign(size_t(dim), 1);
    squeeze = c.attrInt("keepdims", 1) == 0;
  }
  Seq out;
  int64_t offset = 0;
  for (int64_t size : sizes) {
    if (size < 0 || size > dim - offset) c.fail("split sizes do not add up to dimension " + std::to_string(dim));
    std::vector<int64_t> st(s.size(), 0), en(s.begin(), s.end()), sp(s.size(), 1);
    st[size_t(axis)] = offset;
    en[size_t(axis)] = offset + size;
    offset += size;
    ValueId piece = c.emit(Op::Slice, {x}, {{"starts", st}, {"ends", en}, {"steps", sp}});
    if (squeeze) {
      Shape sh = c.type(piece).shape;
      sh.erase(sh.begin() + axis);
      piece = reshapeTo(c, piece, sh);
    }
    out.push_back(piece);
  }
  if (offset != dim) c.fail("split sizes do not add up to dimension " + std::to_string(dim));
  setSeq(c, out);
}

}  // namespace

void addSequenceConverters(ConverterTable& t) {
  t[{"", "SequenceEmpty"}] = sequenceEmpty;
  t[{"", "SequenceConstruct"}] = sequenceConstruct;
  t[{"", "SequenceInsert"}] = sequenceInsert;
  t[{"", "SequenceErase"}] = sequenceErase;
  t[{"", "SequenceAt"}] = sequenceAt;
  t[{"", "SequenceLength"}] = sequenceLength;
  t[{"", "ConcatFromSequence"}] = concatFromSequence;
  t[{"", "SplitToSequence"}] = splitToSequence;
}

}  // namespace mgc::onnximport
