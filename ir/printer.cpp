// The text IR printer. Output is deterministic (attributes sorted by name,
// constants in value order, nodes in graph order) so that golden files and
// FileCheck tests stay stable.
#include "ir/printer.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace mgc {

namespace {

// Lists longer than this print as one hex string of the raw bytes: exact and
// about 2 characters per byte.
constexpr int64_t kMaxListElements = 256;

bool isPlainIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

bool isPlainName(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!isPlainIdentifierChar(c)) return false;
  return true;
}

std::string printSymbol(char sigil, const std::string& name) {
  return isPlainName(name) ? sigil + name : sigil + quoteString(name);
}

// Does `text` read back (the way the parser reads it) as exactly `v`?
bool readsBackAs(const char* text, double v, DType dtype) {
  switch (dtype) {
    case DType::F16: {
      uint16_t want = floatToHalf(float(v));
      return floatToHalf(std::strtof(text, nullptr)) == want;
    }
    case DType::BF16: return floatToBf16(std::strtof(text, nullptr)) == floatToBf16(float(v));
    case DType::F32: return std::strtof(text, nullptr) == float(v);
    case DType::F64: return std::strtod(text, nullptr) == v;
    case DType::I64: case DType::I32: case DType::I8: case DType::U8: case DType::Bool:
    case DType::I16: case DType::U16: case DType::U32: case DType::U64: break;
  }
  return std::strtod(text, nullptr) == v;
}

void appendElement(std::string& out, const HostTensor& t, int64_t i) {
  switch (t.type.dtype) {
    case DType::F16: case DType::BF16: case DType::F32: case DType::F64:
      out += formatFloat(t.getF(i), t.type.dtype);
      return;
    case DType::Bool:
      out += t.getI(i) ? "true" : "false";
      return;
    case DType::I64: case DType::I32: case DType::I8: case DType::U8:
    case DType::I16: case DType::U16: case DType::U32: case DType::U64:
      out += std::to_string(t.getI(i));
      return;
  }
}

// NaNs read back as the canonical quiet NaN and bools as 0 / 1; a tensor
// holding any other NaN or bool byte prints as hex so that its bytes survive
// the round trip.
bool textReadsBackExactly(const HostTensor& t) {
  int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) {
    switch (t.type.dtype) {
      case DType::F16:
        if (std::isnan(t.getF(i)) && t.as<uint16_t>()[i] != 0x7e00) return false;
        break;
      case DType::BF16:
        if (std::isnan(t.getF(i)) && t.as<uint16_t>()[i] != 0x7fc0) return false;
        break;
      case DType::F32: {
        uint32_t bits;
        std::memcpy(&bits, t.data.data() + size_t(i) * 4, 4);
        if (std::isnan(t.as<float>()[i]) && bits != 0x7fc00000u) return false;
        break;
      }
      case DType::F64: {
        uint64_t bits;
        std::memcpy(&bits, t.data.data() + size_t(i) * 8, 8);
        if (std::isnan(t.as<double>()[i]) && bits != 0x7ff8000000000000ull) return false;
        break;
      }
      case DType::Bool:
        if (t.as<uint8_t>()[i] > 1) return false;
        break;
      case DType::U64:  // the text form holds u64 values up to 2^63 - 1
        if (t.as<uint64_t>()[i] > uint64_t(INT64_MAX)) return false;
        break;
      case DType::I64: case DType::I32: case DType::I8: case DType::U8:
      case DType::I16: case DType::U16: case DType::U32:
        return true;
    }
  }
  return true;
}

bool isSplat(const HostTensor& t) {
  int64_t n = t.numel();
  size_t es = dtypeSize(t.type.dtype);
  if (n < 1 || t.data.size() != size_t(n) * es) return false;
  for (int64_t i = 1; i < n; ++i)
    if (std::memcmp(t.data.data(), t.data.data() + size_t(i) * es, es) != 0) return false;
  return true;
}

std::string printDense(const HostTensor& t) {
  int64_t n = t.numel();
  std::string out = "dense<";
  if (t.data.size() != t.type.bytes()) return out + "\"<" + std::to_string(t.data.size()) + " bytes: size mismatch>\">";
  bool textIsExact = textReadsBackExactly(t);
  if (textIsExact && isSplat(t)) {
    appendElement(out, t, 0);
  } else if (textIsExact && n <= kMaxListElements) {
    out += "[";
    for (int64_t i = 0; i < n; ++i) {
      if (i) out += ", ";
      appendElement(out, t, i);
    }
    out += "]";
  } else {
    static const char kHex[] = "0123456789abcdef";
    out += "\"0x";
    out.reserve(out.size() + t.data.size() * 2 + 4);
    for (uint8_t b : t.data) {
      out += kHex[b >> 4];
      out += kHex[b & 15];
    }
    out += "\"";
  }
  return out + ">";
}

std::string printAttr(const Node& n, const std::string& key, const AttrValue& v) {
  std::string out;
  if (auto* i = std::get_if<int64_t>(&v)) {
    // Cast's target dtype reads better by name; the parser maps it back.
    if (n.op == Op::Cast && key == "to" && *i >= 0 && *i < kNumDTypes) return dtypeName(DType(*i));
    return std::to_string(*i);
  }
  if (auto* d = std::get_if<double>(&v)) return formatFloat(*d, DType::F64);
  if (auto* s = std::get_if<std::string>(&v)) return quoteString(*s);
  if (auto* il = std::get_if<std::vector<int64_t>>(&v)) {
    out = "[";
    for (size_t k = 0; k < il->size(); ++k) out += (k ? ", " : "") + std::to_string((*il)[k]);
    return out + "]";
  }
  if (auto* fl = std::get_if<std::vector<double>>(&v)) {
    out = "[";
    for (size_t k = 0; k < fl->size(); ++k) out += (k ? ", " : "") + formatFloat((*fl)[k], DType::F64);
    return out + "]";
  }
  return out;
}

// A value reference; ids that do not name a value (a broken graph being
// printed for a diagnostic) print as `%<bad:ID>` instead of crashing.
std::string ref(const Graph& g, ValueId v) {
  if (v == kNoValue) return "none";
  if (v < 0 || size_t(v) >= g.values.size()) return "%<bad:" + std::to_string(v) + ">";
  return printValueName(g.values[size_t(v)].name);
}

std::string typeOf(const Graph& g, ValueId v) {
  if (v < 0 || size_t(v) >= g.values.size()) return "?";
  return g.values[size_t(v)].type.str();
}

void printNode(std::string& out, const Graph& g, const Node& n) {
  out += "  ";
  for (size_t k = 0; k < n.outputs.size(); ++k) out += (k ? ", " : "") + ref(g, n.outputs[k]);
  out += " = ";
  out += opName(n.op);
  out += "(";
  for (size_t k = 0; k < n.inputs.size(); ++k) out += (k ? ", " : "") + ref(g, n.inputs[k]);
  out += ")";
  if (!n.attrs.empty()) {
    out += " {";
    bool first = true;
    for (const auto& [key, value] : n.attrs) {
      out += first ? "" : ", ";
      first = false;
      out += (isPlainName(key) ? key : quoteString(key)) + " = " + printAttr(n, key, value);
    }
    out += "}";
  }
  out += " : ";
  for (size_t k = 0; k < n.outputs.size(); ++k) out += (k ? ", " : "") + typeOf(g, n.outputs[k]);
  // The node name is printed only where it differs from its first result's
  // name (the parser defaults it to that).
  bool defaultName = !n.outputs.empty() && n.outputs[0] >= 0 && size_t(n.outputs[0]) < g.values.size() &&
                     g.values[size_t(n.outputs[0])].name == n.name;
  if (!defaultName && !n.name.empty()) out += " loc(" + quoteString(n.name) + ")";
  out += "\n";
}

}  // namespace

std::string quoteString(const std::string& s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c >= 0x7f) {
      out += '\\';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string printValueName(const std::string& name) { return printSymbol('%', name); }

std::string formatFloat(double v, DType dtype) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  int maxDigits = dtype == DType::F64 ? 17 : 9;
  char buf[64];
  for (int digits = 1; digits <= maxDigits; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (readsBackAs(buf, v, dtype)) break;
  }
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string printGraph(const Graph& g, bool elideConstants) {
  std::string out = "graph " + printSymbol('@', g.name) + "(";
  for (size_t k = 0; k < g.inputs.size(); ++k) out += (k ? ", " : "") + ref(g, g.inputs[k]) + ": " + typeOf(g, g.inputs[k]);
  out += ") {\n";
  for (const Value& v : g.values) {
    if (!v.isConstant()) continue;
    out += "  " + printValueName(v.name) + " = const " + v.type.str() + " ";
    if (elideConstants && v.constant->numel() > kElideAboveElements) out += "dense_resource<elided>";
    else out += printDense(*v.constant);
    out += "\n";
  }
  for (const Value& v : g.values) {
    if (!v.isState) continue;
    out += "  " + printValueName(v.name) + " = state " + v.type.str() + " ";
    if (v.isZeroState()) out += "zeros";
    else if (elideConstants && v.initial->numel() > kElideAboveElements) out += "dense_resource<elided>";
    else out += printDense(*v.initial);
    out += "\n";
  }
  for (const Node& n : g.nodes) printNode(out, g, n);
  for (const auto& [state, next] : g.stateUpdates)
    out += "  update " + ref(g, state) + " = " + ref(g, next) + "\n";
  out += "  return";
  for (size_t k = 0; k < g.outputs.size(); ++k) out += (k ? ", " : " ") + ref(g, g.outputs[k]);
  out += "\n}\n";
  return out;
}

}  // namespace mgc
