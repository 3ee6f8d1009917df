// The text IR parser: a hand-written lexer and a recursive-descent parser
// over a grammar without nesting (docs/ir.md), so hostile input cannot
// exhaust the stack. Every size read from the file is bounded before it is
// used to allocate.
#include "ir/parser.h"

#include "formats/file_read.h"
#include "ir/printer.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace mgc {

namespace {

enum class Tok { Eof, Ident, ValueName, SymbolName, Int, Float, String, Punct };

struct Token {
  Tok kind = Tok::Eof;
  std::string text;  // identifier, number text, decoded string / name, or the punctuation char
  int line = 1, col = 1;
};

bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isNameChar(char c) { return isIdentStart(c) || isDigit(c) || c == '.'; }

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  [[noreturn]] void fail(int line, int col, const std::string& msg) const {
    throw Error(file_ + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + msg);
  }

  Token next() {
    skipSpaceAndComments();
    Token t;
    t.line = line_;
    t.col = col_;
    if (pos_ >= text_.size()) return t;
    char c = text_[pos_];
    if (c == '%' || c == '@') {
      get();
      t.kind = c == '%' ? Tok::ValueName : Tok::SymbolName;
      if (peekChar() == '"') {
        t.text = lexString(t.line, t.col);
        if (t.text.empty()) fail(t.line, t.col, "empty quoted name");
      } else {
        while (pos_ < text_.size() && isNameChar(text_[pos_])) t.text += get();
        if (t.text.empty()) fail(t.line, t.col, std::string("expected a name after '") + c + "'");
      }
      return t;
    }
    if (c == '"') {
      t.kind = Tok::String;
      t.text = lexString(t.line, t.col);
      return t;
    }
    if (isDigit(c) || (c == '-' && pos_ + 1 < text_.size() && (isDigit(text_[pos_ + 1]) || isIdentStart(text_[pos_ + 1])))) {
      lexNumber(t);
      return t;
    }
    if (isIdentStart(c)) {
      while (pos_ < text_.size() && isNameChar(text_[pos_])) t.text += get();
      t.kind = t.text == "nan" || t.text == "inf" ? Tok::Float : Tok::Ident;
      return t;
    }
    if (std::strchr("(){}[]<>,:=", c) && c != '\0') {
      t.kind = Tok::Punct;
      t.text = std::string(1, get());
      return t;
    }
    fail(t.line, t.col, "unexpected character " + describeChar(c));
  }

 private:
  static std::string describeChar(char c) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
    static const char kHex[] = "0123456789ABCDEF";
    return std::string("0x") + kHex[u >> 4] + kHex[u & 15];
  }

  char peekChar() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  char get() {
    char c = text_[pos_++];
    if (c == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    return c;
  }

  void skipSpaceAndComments() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        get();
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') get();
      } else {
        return;
      }
    }
  }

  // A "..." literal; returns the decoded bytes.
  std::string lexString(int line, int col) {
    get();  // opening quote
    std::string out;
    for (;;) {
      if (pos_ >= text_.size() || text_[pos_] == '\n') fail(line, col, "unterminated string");
      char c = get();
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      int el = line_, ec = col_ - 1;
      char e = pos_ < text_.size() ? get() : '\0';
      if (e == '"' || e == '\\') {
        out += e;
      } else if (e == 'n') {
        out += '\n';
      } else if (e == 't') {
        out += '\t';
      } else {
        int hi = hexDigit(e), lo = pos_ < text_.size() ? hexDigit(text_[pos_]) : -1;
        if (hi < 0 || lo < 0) fail(el, ec, "invalid escape in string (use \\\", \\\\, \\n, \\t or \\XX)");
        get();
        out += char(hi * 16 + lo);
      }
    }
  }

  void lexNumber(Token& t) {
    if (peekChar() == '-') t.text += get();
    if (isIdentStart(peekChar())) {  // -inf / -nan
      std::string word;
      while (pos_ < text_.size() && isNameChar(text_[pos_])) word += get();
      if (word != "inf" && word != "nan") fail(t.line, t.col, "malformed number '-" + word + "'");
      t.kind = Tok::Float;
      t.text += word;
      return;
    }
    bool isFloat = false;
    while (isDigit(peekChar())) t.text += get();
    if (peekChar() == '.') {
      isFloat = true;
      t.text += get();
      while (isDigit(peekChar())) t.text += get();
    }
    if (peekChar() == 'e' || peekChar() == 'E') {
      isFloat = true;
      t.text += get();
      if (peekChar() == '+' || peekChar() == '-') t.text += get();
      if (!isDigit(peekChar())) fail(t.line, t.col, "malformed number '" + t.text + "'");
      while (isDigit(peekChar())) t.text += get();
    }
    if (isNameChar(peekChar())) fail(t.line, t.col, "malformed number '" + t.text + peekChar() + "'");
    t.kind = isFloat ? Tok::Float : Tok::Int;
  }

  std::string_view text_;
  const std::string& file_;
  size_t pos_ = 0;
  int line_ = 1, col_ = 1;
};

class Parser {
 public:
  Parser(std::string_view text, const std::string& file) : file_(file), lex_(text, file_) { advance(); }

  Graph parseFile() {
    expectKeyword("graph");
    if (tok_.kind != Tok::SymbolName) fail(tok_, "expected the graph name (@name), got " + describe(tok_));
    g_.name = tok_.text;
    advance();
    expectPunct('(');
    if (!isPunct(')')) {
      for (;;) {
        Token name = expectValueName();
        expectPunct(':');
        TensorType t = parseType();
        g_.inputs.push_back(defineValue(name, t));
        if (!isPunct(',')) break;
        advance();
      }
    }
    expectPunct(')');
    expectPunct('{');
    while (tok_.kind == Tok::ValueName) parseStatement();
    // update %state = %new   (training: the state's value after the run)
    while (isKeyword("update")) {
      advance();
      Token st = tok_;
      ValueId state = use(expectValueName());
      if (!g_.value(state).isState) fail(st, printValueName(st.text) + " is not a state value");
      expectPunct('=');
      ValueId next = use(expectValueName());
      if (g_.type(next) != g_.type(state))
        fail(st, "update of " + printValueName(st.text) + " with a value of type " + g_.type(next).str());
      g_.stateUpdates.push_back({state, next});
    }
    expectKeyword("return");
    if (tok_.kind == Tok::ValueName) {
      for (;;) {
        g_.outputs.push_back(use(expectValueName()));
        if (!isPunct(',')) break;
        advance();
      }
    }
    expectPunct('}');
    if (tok_.kind != Tok::Eof) fail(tok_, "expected end of file after the graph");
    return std::move(g_);
  }

 private:
  [[noreturn]] void fail(const Token& at, const std::string& msg) const { lex_.fail(at.line, at.col, msg); }

  void advance() { tok_ = lex_.next(); }
  bool isPunct(char c) const { return tok_.kind == Tok::Punct && tok_.text[0] == c; }
  bool isKeyword(const char* w) const { return tok_.kind == Tok::Ident && tok_.text == w; }

  static std::string describe(const Token& t) {
    switch (t.kind) {
      case Tok::Eof: return "end of file";
      case Tok::Ident: return "'" + t.text + "'";
      case Tok::ValueName: return "value " + printValueName(t.text);
      case Tok::SymbolName: return "symbol @" + t.text;
      case Tok::Int: case Tok::Float: return "number " + t.text;
      case Tok::String: return "string " + quoteString(t.text.substr(0, 40));
      case Tok::Punct: return "'" + t.text + "'";
    }
    return "token";
  }

  void expectPunct(char c) {
    if (!isPunct(c)) fail(tok_, std::string("expected '") + c + "', got " + describe(tok_));
    advance();
  }

  void expectKeyword(const char* w) {
    if (!isKeyword(w)) fail(tok_, std::string("expected '") + w + "', got " + describe(tok_));
    advance();
  }

  Token expectValueName() {
    if (tok_.kind != Tok::ValueName) fail(tok_, "expected a value name (%name), got " + describe(tok_));
    Token t = tok_;
    advance();
    return t;
  }

  ValueId use(const Token& name) {
    ValueId v = g_.find(name.text);
    if (v == kNoValue) fail(name, "use of undefined value " + printValueName(name.text));
    return v;
  }

  ValueId defineValue(const Token& name, const TensorType& t) {
    if (g_.find(name.text) != kNoValue) fail(name, "redefinition of value " + printValueName(name.text));
    return g_.addValue(name.text, t);
  }

  int64_t parseInt(const Token& t, int64_t lo, int64_t hi, const char* what) {
    if (t.kind != Tok::Int) fail(t, std::string("expected an integer ") + what + ", got " + describe(t));
    errno = 0;
    long long v = std::strtoll(t.text.c_str(), nullptr, 10);
    if (errno == ERANGE || v < lo || v > hi)
      fail(t, std::string("integer ") + t.text + " is out of range for " + what + " [" + std::to_string(lo) + ", " +
                  std::to_string(hi) + "]");
    return v;
  }

  // f32[1,3,8,8] / i64[] : bounded so that no size computation overflows.
  TensorType parseType() {
    Token at = tok_;
    TensorType t;
    if (tok_.kind != Tok::Ident || !parseDType(tok_.text, &t.dtype))
      fail(tok_, "expected a tensor type like f32[1,3], got " + describe(tok_));
    advance();
    expectPunct('[');
    int64_t count = 1;
    if (!isPunct(']')) {
      for (;;) {
        if (t.rank() >= kMaxRank) fail(tok_, "rank exceeds " + std::to_string(kMaxRank));
        int64_t d = parseInt(tok_, 0, kMaxDim, "a dimension");
        count = boundedProduct(count, d, kMaxElements);
        if (count < 0) fail(at, "tensor type has more than 2^48 elements");
        t.shape.push_back(d);
        advance();
        if (!isPunct(',')) break;
        advance();
      }
    }
    expectPunct(']');
    return t;
  }

  // One element of a dense literal appended to `bytes` in `dtype`.
  void appendElement(const Token& t, DType dtype, std::vector<uint8_t>& bytes) {
    auto put = [&](const void* p, size_t n) {
      const uint8_t* b = static_cast<const uint8_t*>(p);
      bytes.insert(bytes.end(), b, b + n);
    };
    switch (dtype) {
      case DType::F16: case DType::BF16: case DType::F32: {
        if (t.kind != Tok::Int && t.kind != Tok::Float) fail(t, "expected a number, got " + describe(t));
        errno = 0;
        float f = std::strtof(t.text.c_str(), nullptr);
        if (errno == ERANGE && std::isinf(f)) fail(t, t.text + " is out of range for " + dtypeName(dtype));
        if (dtype == DType::F32) return put(&f, 4);
        uint16_t h = dtype == DType::F16 ? floatToHalf(f) : floatToBf16(f);
        float back = dtype == DType::F16 ? halfToFloat(h) : bf16ToFloat(h);
        if (std::isfinite(f) && std::isinf(back)) fail(t, t.text + " is out of range for " + dtypeName(dtype));
        return put(&h, 2);
      }
      case DType::F64: {
        if (t.kind != Tok::Int && t.kind != Tok::Float) fail(t, "expected a number, got " + describe(t));
        errno = 0;
        double d = std::strtod(t.text.c_str(), nullptr);
        if (errno == ERANGE && std::isinf(d)) fail(t, t.text + " is out of range for f64");
        return put(&d, 8);
      }
      case DType::Bool: {
        uint8_t b;
        if (t.kind == Tok::Ident && (t.text == "true" || t.text == "false")) b = t.text == "true";
        else b = uint8_t(parseInt(t, 0, 1, "bool"));
        return put(&b, 1);
      }
      case DType::I64: {
        int64_t v = parseInt(t, INT64_MIN, INT64_MAX, "i64");
        return put(&v, 8);
      }
      case DType::I32: {
        int32_t v = int32_t(parseInt(t, INT32_MIN, INT32_MAX, "i32"));
        return put(&v, 4);
      }
      case DType::I8: {
        int8_t v = int8_t(parseInt(t, INT8_MIN, INT8_MAX, "i8"));
        return put(&v, 1);
      }
      case DType::U8: {
        uint8_t v = uint8_t(parseInt(t, 0, UINT8_MAX, "u8"));
        return put(&v, 1);
      }
      case DType::I16: {
        int16_t v = int16_t(parseInt(t, INT16_MIN, INT16_MAX, "i16"));
        return put(&v, 2);
      }
      case DType::U16: {
        uint16_t v = uint16_t(parseInt(t, 0, UINT16_MAX, "u16"));
        return put(&v, 2);
      }
      case DType::U32: {
        uint32_t v = uint32_t(parseInt(t, 0, UINT32_MAX, "u32"));
        return put(&v, 4);
      }
      case DType::U64: {  // values past 2^63 - 1 print as hex (printer.cpp)
        uint64_t v = uint64_t(parseInt(t, 0, INT64_MAX, "u64"));
        return put(&v, 8);
      }
    }
  }

  // dense<[e, ...]> | dense<e> (splat) | dense<"0xHEX"> (raw little-endian bytes)
  HostTensor parseDense(const TensorType& type) {
    if (isKeyword("dense_resource")) fail(tok_, "elided constant data (dense_resource) cannot be parsed");
    expectKeyword("dense");
    expectPunct('<');
    HostTensor result;
    result.type = type;
    int64_t n = type.numel();
    size_t es = dtypeSize(type.dtype);
    if (tok_.kind == Tok::String) {
      const std::string& s = tok_.text;
      if (s.size() < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) fail(tok_, "hex data must start with 0x");
      if ((s.size() - 2) % 2 != 0 || (s.size() - 2) / 2 != size_t(n) * es)
        fail(tok_, "hex data has " + std::to_string((s.size() - 2) / 2) + " bytes, type " + type.str() + " needs " +
                       std::to_string(size_t(n) * es));
      result.data.resize(size_t(n) * es);
      for (size_t k = 0; k < result.data.size(); ++k) {
        int hi = hexDigit(s[2 + 2 * k]), lo = hexDigit(s[3 + 2 * k]);
        if (hi < 0 || lo < 0) fail(tok_, "invalid hex digit in constant data");
        result.data[k] = uint8_t(hi * 16 + lo);
      }
      advance();
    } else if (isPunct('[')) {
      Token open = tok_;
      advance();
      int64_t count = 0;
      if (!isPunct(']')) {
        for (;;) {
          if (count == n) fail(tok_, "too many elements for " + type.str() + " (expected " + std::to_string(n) + ")");
          appendElement(tok_, type.dtype, result.data);
          ++count;
          advance();
          if (!isPunct(',')) break;
          advance();
        }
      }
      if (count != n) fail(open, "expected " + std::to_string(n) + " elements for " + type.str() + ", got " + std::to_string(count));
      expectPunct(']');
    } else {
      if (n < 1) fail(tok_, "a splat needs at least one element; use dense<[]>");
      if (int64_t(size_t(n) * es) > kMaxConstantBytes) fail(tok_, "splat constant is larger than 2 GiB");
      std::vector<uint8_t> one;
      appendElement(tok_, type.dtype, one);
      advance();
      result.data.resize(size_t(n) * es);
      for (int64_t i = 0; i < n; ++i) std::memcpy(result.data.data() + size_t(i) * es, one.data(), es);
    }
    expectPunct('>');
    return result;
  }

  // Attribute values: 3 | 2.5 | "s" | [1, 2] | [1.5, 2.0] | f16 (a dtype, stored as its enum int)
  AttrValue parseAttrValue() {
    const char* what = "an integer attribute";
    if (tok_.kind == Tok::Int) {
      int64_t v = parseInt(tok_, INT32_MIN, INT32_MAX, what);
      advance();
      return v;
    }
    if (tok_.kind == Tok::Float) return parseF64(tok_);
    if (tok_.kind == Tok::String) {
      std::string s = tok_.text;
      advance();
      return s;
    }
    if (tok_.kind == Tok::Ident) {
      DType dt;
      if (!parseDType(tok_.text, &dt)) fail(tok_, "unknown attribute value " + describe(tok_));
      advance();
      return int64_t(dt);
    }
    if (!isPunct('[')) fail(tok_, "expected an attribute value, got " + describe(tok_));
    advance();
    std::vector<int64_t> ints;
    std::vector<double> floats;
    bool anyFloat = false;
    if (!isPunct(']')) {
      for (;;) {
        if (tok_.kind == Tok::Float) {
          anyFloat = true;
          floats.push_back(std::get<double>(parseF64(tok_)));
        } else {
          int64_t v = parseInt(tok_, INT32_MIN, INT32_MAX, "a list attribute");
          ints.push_back(v);
          floats.push_back(double(v));
          advance();
        }
        if (!isPunct(',')) break;
        advance();
      }
    }
    expectPunct(']');
    if (anyFloat) return floats;
    return ints;
  }

  AttrValue parseF64(const Token& t) {
    errno = 0;
    double d = std::strtod(t.text.c_str(), nullptr);
    if (errno == ERANGE && std::isinf(d)) fail(t, t.text + " is out of range for a float attribute");
    advance();
    return d;
  }

  Attrs parseAttrDict() {
    Attrs attrs;
    expectPunct('{');
    if (!isPunct('}')) {
      for (;;) {
        // nan / inf lex as numbers but are fine attribute names.
        bool wordLike = tok_.kind == Tok::Ident || (tok_.kind == Tok::Float && isIdentStart(tok_.text[0]));
        if (!wordLike && tok_.kind != Tok::String) fail(tok_, "expected an attribute name, got " + describe(tok_));
        Token key = tok_;
        if (attrs.count(key.text)) fail(key, "duplicate attribute '" + key.text + "'");
        advance();
        expectPunct('=');
        attrs[key.text] = parseAttrValue();
        if (!isPunct(',')) break;
        advance();
      }
    }
    expectPunct('}');
    return attrs;
  }

  // %a, %b = op(%x, none) {attrs} : t1, t2 loc("name")
  // %c = const f32[2] dense<[1.0, 2.0]>
  void parseStatement() {
    std::vector<Token> results;
    for (;;) {
      Token r = expectValueName();
      for (const Token& prev : results)
        if (prev.text == r.text) fail(r, "redefinition of value " + printValueName(r.text));
      results.push_back(r);
      if (!isPunct(',')) break;
      advance();
    }
    expectPunct('=');
    if (isKeyword("const") || isKeyword("state")) {
      const bool state = isKeyword("state");
      advance();
      if (results.size() != 1) fail(results[1], "a constant defines exactly one value");
      TensorType t = parseType();
      if (int64_t(t.bytes()) > kMaxConstantBytes)
        fail(results[0], std::string(state ? "state" : "constant") + " is larger than 2 GiB");
      // `zeros`: a state that starts as zeros, with no bytes held.
      const bool zeros = isKeyword("zeros");
      if (zeros && !state) fail(tok_, "'zeros' initializes a state; a constant holds its bytes: dense<0.0>");
      HostTensor data;
      if (zeros) advance();
      else data = parseDense(t);
      if (g_.find(results[0].text) != kNoValue) fail(results[0], "redefinition of value " + printValueName(results[0].text));
      if (zeros) g_.addZeroState(results[0].text, t);
      else if (state) g_.addState(results[0].text, std::move(data));
      else g_.addConstant(results[0].text, std::move(data));
      return;
    }
    Token opTok = tok_;
    Op op;
    if (tok_.kind != Tok::Ident) fail(tok_, "expected an op name or 'const', got " + describe(tok_));
    if (!parseOp(tok_.text, &op)) fail(tok_, "unknown op '" + tok_.text + "'");
    advance();
    Node n{op, results[0].text, {}, {}, {}};
    expectPunct('(');
    if (!isPunct(')')) {
      for (;;) {
        if (isKeyword("none")) {
          n.inputs.push_back(kNoValue);
          advance();
        } else {
          n.inputs.push_back(use(expectValueName()));
        }
        if (!isPunct(',')) break;
        advance();
      }
    }
    expectPunct(')');
    if (isPunct('{')) n.attrs = parseAttrDict();
    expectPunct(':');
    std::vector<std::pair<Token, TensorType>> types;
    for (;;) {
      Token at = tok_;
      types.emplace_back(at, parseType());
      if (!isPunct(',')) break;
      advance();
    }
    if (isKeyword("loc")) {
      advance();
      expectPunct('(');
      if (tok_.kind != Tok::String) fail(tok_, "expected a string in loc(...)");
      n.name = tok_.text;
      advance();
      expectPunct(')');
    }
    std::vector<TensorType> inferred;
    try {
      inferred = inferTypesChecked(g_, n);
    } catch (const Error& e) {
      fail(opTok, e.what());
    }
    if (inferred.size() != results.size())
      fail(opTok, std::string(opName(op)) + " has " + std::to_string(inferred.size()) + " result(s), " +
                      std::to_string(results.size()) + " named");
    if (types.size() != results.size())
      fail(types.back().first, std::to_string(results.size()) + " result(s) but " + std::to_string(types.size()) + " type(s)");
    for (size_t k = 0; k < types.size(); ++k)
      if (types[k].second != inferred[k])
        fail(types[k].first, "result type " + types[k].second.str() + " does not match the inferred type " + inferred[k].str());
    for (size_t k = 0; k < results.size(); ++k) n.outputs.push_back(defineValue(results[k], types[k].second));
    g_.addNodeWithOutputs(n.op, n.name, std::move(n.inputs), std::move(n.outputs), std::move(n.attrs));
  }

  std::string file_;
  Lexer lex_;
  Token tok_;
  Graph g_;
};

}  // namespace

Graph parseGraph(std::string_view text, const std::string& filename) {
  Parser p(text, filename);
  return p.parseFile();
}

Graph parseGraphFile(const std::string& path) {
  std::string text, error;
  if (!fileio::readAll(path, &text, &error)) throw Error(error);
  return parseGraph(text, path);
}

}  // namespace mgc
