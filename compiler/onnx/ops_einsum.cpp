// Einsum with one or two operands and no repeated index within an operand
// (no diagonals) and no ellipsis: ReduceSum for indices only one operand
// has, then one batched MatMul over [batch, left, contracted] ×
// [batch, contracted, right], then a Transpose into the output order.
#include <algorithm>
#include <cctype>
#include <map>

#include "compiler/onnx/ops_extra.h"

namespace mgc::onnximport {

namespace {

struct Term {
  ValueId v;
  std::string idx;  // one letter per axis
};

// Sums away the axes whose letter is not in `keep`.
Term sumAway(NodeContext& c, Term t, const std::string& keep) {
  std::vector<int64_t> axes;
  std::string rest;
  for (size_t k = 0; k < t.idx.size(); ++k) {
    if (keep.find(t.idx[k]) == std::string::npos) axes.push_back(int64_t(k));
    else rest += t.idx[k];
  }
  if (axes.empty()) return t;
  return {c.emit(Op::ReduceSum, {t.v}, {{"axes", axes}, {"keepdims", int64_t(0)}}), rest};
}

// Transposes t so its letters read `order` (a permutation of t.idx).
ValueId arrange(NodeContext& c, const Term& t, const std::string& order) {
  if (order == t.idx) return t.v;
  std::vector<int64_t> perm;
  for (char ch : order) perm.push_back(int64_t(t.idx.find(ch)));
  return c.emit(Op::Transpose, {t.v}, {{"perm", perm}});
}

void einsum(NodeContext& c) {
  c.onlyAttrs({"equation"});
  std::string eq;
  for (char ch : c.attrString("equation"))
    if (ch != ' ') eq += ch;
  if (eq.find('.') != std::string::npos) c.unsupported("ellipsis ('...') is not supported");
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow), out;
  std::vector<std::string> terms;
  for (size_t at = 0;;) {
    size_t comma = lhs.find(',', at);
    terms.push_back(lhs.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (int(terms.size()) != c.numInputs()) c.fail("equation has " + std::to_string(terms.size()) + " operands for " + std::to_string(c.numInputs()) + " inputs");
  if (terms.size() > 2) c.unsupported("more than two operands are not supported");
  std::map<char, int64_t> size, count;
  for (size_t i = 0; i < terms.size(); ++i) {
    const Shape s = c.type(c.input(int(i))).shape;
    if (terms[i].size() != s.size()) c.fail("operand " + std::to_string(i) + " '" + terms[i] + "' does not match rank " + std::to_string(s.size()));
    for (size_t k = 0; k < s.size(); ++k) {
      char ch = terms[i][k];
      if (!std::isalpha(static_cast<unsigned char>(ch))) c.fail("equation '" + eq + "' is not valid");
      if (terms[i].find(ch) != k) c.unsupported("a repeated index within one operand (diagonal) is not supported");
      if (size.count(ch) && size[ch] != s[k]) c.unsupported("index '" + std::string(1, ch) + "' has different sizes (broadcasting is not supported)");
      size[ch] = s[k];
      ++count[ch];
    }
  }
  if (arrow != std::string::npos) {
    out = eq.substr(arrow + 2);
    for (char ch : out)
      if (!size.count(ch) || std::count(out.begin(), out.end(), ch) != 1) c.fail("output '" + out + "' is not valid");
  } else {
    for (const auto& e : count)
      if (e.second == 1) out += e.first;
  }
  if (terms.size() == 1) {
    Term t = sumAway(c, {c.input(0), terms[0]}, out);
    return c.setOutput(0, arrange(c, t, out));
  }
  Term a{c.input(0), terms[0]}, b{c.input(1), terms[1]};
  a = sumAway(c, a, out + b.idx);
  b = sumAway(c, b, out + a.idx);
  std::string batch, left, right, contract;
  for (char ch : a.idx) {
    bool inB = b.idx.find(ch) != std::string::npos, inOut = out.find(ch) != std::string::npos;
    (inB ? (inOut ? batch : contract) : left) += ch;
  }
  for (char ch : b.idx)
    if (a.idx.find(ch) == std::string::npos) right += ch;
  auto prod = [&](const std::string& letters) {
    int64_t p = 1;
    for (char ch : letters) p *= size[ch];
    return p;
  };
  ValueId am = reshapeTo(c, arrange(c, a, batch + left + contract), {prod(batch), prod(left), prod(contract)});
  ValueId bm = reshapeTo(c, arrange(c, b, batch + contract + right), {prod(batch), prod(contract), prod(right)});
  Shape full;
  std::string fullIdx = batch + left + right;
  for (char ch : fullIdx) full.push_back(size[ch]);
  Term y{reshapeTo(c, c.emit(Op::MatMul, {am, bm}), full), fullIdx};
  c.setOutput(0, arrange(c, y, out));
}

}  // namespace

void addEinsumConverters(ConverterTable& t) { t[{"", "Einsum"}] = einsum; }

}  // namespace mgc::onnximport
