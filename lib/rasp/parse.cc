// The S-RASP front end: a line-oriented recursive-descent parser (the EBNF
// of docs/srasp.md), with names resolved, types checked and the side rules
// of scores, values and defaults enforced while parsing, so that each error
// names the line and column where it is seen. Written by hand: the grammar is
// small and line-based, and positioned messages in our own words are the
// point (no parser generator is among the project's dependencies).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>
#include <limits>
#include <map>

#include "io/file_util.h"
#include "rasp/program.h"
#include "util/symbols.h"

namespace softhat::rasp {

const char* type_name(Type t) { return t == Type::kBool ? "bool" : t == Type::kInt ? "int" : "sym"; }

const char* mask_text(Mask m) {
  switch (m) {
    case Mask::kAll: return "[all]";
    case Mask::kBefore: return "[j<i]";
    case Mask::kUpTo: return "[j<=i]";
    case Mask::kAfter: return "[j>i]";
    case Mask::kFrom: return "[j>=i]";
  }
  return "?";
}

const char* fragment_name(Fragment f) {
  switch (f) {
    case Fragment::kBRasp: return "B-RASP";
    case Fragment::kCRasp: return "C-RASP";
    case Fragment::kBRaspPos: return "B-RASP[pos]";
    case Fragment::kSRasp: return "S-RASP";
  }
  return "?";
}

namespace {

struct Token {
  enum Kind : unsigned char { kIdent, kInt, kSym, kPunct, kEnd } kind = kEnd;
  std::string text;  // identifier, digits, the symbol's UTF-8, or the punctuation
  std::size_t column = 0;
};

const char* const kReserved[] = {"if",    "then", "else", "psum", "lmost", "rmost", "j",     "concat",
                                 "true",  "false", "input", "alphabet", "pad", "output"};
bool reserved(const std::string& s) { return std::find(std::begin(kReserved), std::end(kReserved), s) != std::end(kReserved); }

std::string describe(const Token& t) {
  switch (t.kind) {
    case Token::kEnd: return "the end of the line";
    case Token::kSym: return "'" + t.text + "'";
    default: return "'" + t.text + "'";
  }
}

// The length in bytes of the UTF-8 sequence starting at s[k]; 0 if the
// bytes there are not one (a stray or truncated sequence).
std::size_t utf8_length(std::string_view s, std::size_t k) {
  const auto c = static_cast<unsigned char>(s[k]);
  const std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (len == 0 || k + len > s.size()) return 0;
  for (std::size_t b = 1; b < len; ++b) {
    if ((static_cast<unsigned char>(s[k + b]) & 0xC0) != 0x80) return 0;
  }
  return len;
}

enum class Ctx : unsigned char { kMap, kScore, kValue, kDefault, kPad };

class Parser {
 public:
  Parser(std::string_view text, std::string name) : text_(text) { program_.name = std::move(name); }

  Program run() {
    collect_names();
    std::size_t line_no = 0;
    for (std::size_t start = 0; start <= text_.size();) {
      std::size_t end = text_.find('\n', start);
      if (end == std::string_view::npos) end = text_.size();
      std::string_view line = text_.substr(start, end - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      ++line_no;
      parse_line(line, line_no);
      start = end + 1;
    }
    last_line_ = line_no;
    finish();
    return std::move(program_);
  }

 private:
  [[noreturn]] void fail(std::size_t column, const std::string& what) const {
    throw ProgramError(fmt::format("{}:{}:{}: {}", program_.name, line_, column, what), line_, column);
  }

  // Every statement's name and line, first: a use of a later name is
  // reported as recursion, not as an unknown name.
  void collect_names() {
    std::size_t line_no = 0;
    for (std::size_t start = 0; start <= text_.size();) {
      std::size_t end = text_.find('\n', start);
      if (end == std::string_view::npos) end = text_.size();
      ++line_no;
      std::string_view line = text_.substr(start, end - start);
      const std::size_t a = line.find_first_not_of(" \t");
      const std::size_t colon = line.find(':');
      if (a != std::string_view::npos && colon != std::string_view::npos && colon > a) {
        std::string_view name = line.substr(a, colon - a);
        while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.remove_suffix(1);
        if (!name.empty() && name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789") ==
                                 std::string_view::npos) {
          later_.emplace(std::string(name), line_no);
        }
      }
      start = end + 1;
    }
  }

  void tokenize(std::string_view line) {
    tokens_.clear();
    pos_ = 0;
    for (std::size_t k = 0; k < line.size();) {
      const char c = line[k];
      if (c == ' ' || c == '\t') {
        ++k;
        continue;
      }
      if (c == '-' && k + 1 < line.size() && line[k + 1] == '-') break;  // a comment
      Token t;
      t.column = k + 1;
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        std::size_t e = k;
        while (e < line.size() && (std::isalnum(static_cast<unsigned char>(line[e])) || line[e] == '_')) ++e;
        t.kind = Token::kIdent, t.text = std::string(line.substr(k, e - k)), k = e;
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        std::size_t e = k;
        while (e < line.size() && std::isdigit(static_cast<unsigned char>(line[e]))) ++e;
        t.kind = Token::kInt, t.text = std::string(line.substr(k, e - k)), k = e;
      } else if (c == '\'') {
        if (k + 1 >= line.size()) fail(k + 1, "a symbol literal is not closed (expected 'x')");
        const std::size_t len = utf8_length(line, k + 1);
        if (len == 0) fail(k + 2, "invalid UTF-8 in a symbol literal");
        if (k + 1 + len >= line.size() || line[k + 1 + len] != '\'') {
          fail(k + 1, "a symbol literal holds exactly one character, as in 'a' (expected a closing ')");
        }
        t.kind = Token::kSym, t.text = std::string(line.substr(k + 1, len)), k += len + 2;
      } else {
        static const char* const two[] = {":=", "->", "||", "&&", "==", "!=", "<=", ">="};
        t.kind = Token::kPunct;
        for (const char* p : two) {
          if (line.substr(k, 2) == p) t.text = p;
        }
        if (t.text.empty()) {
          if (std::string_view(":()[]{},!<>+-*=").find(c) == std::string_view::npos) {
            const std::size_t len = utf8_length(line, k);
            if (len == 0) fail(k + 1, "invalid UTF-8");
            fail(k + 1, fmt::format("unexpected character '{}'", std::string(line.substr(k, len))));
          }
          t.text = std::string(1, c);
        }
        k += t.text.size();
      }
      tokens_.push_back(std::move(t));
    }
    end_column_ = line.size() + 1;
  }

  const Token& peek(std::size_t ahead = 0) const {
    static const Token end;
    return pos_ + ahead < tokens_.size() ? tokens_[pos_ + ahead] : end;
  }
  std::size_t column() const { return pos_ < tokens_.size() ? tokens_[pos_].column : end_column_; }
  bool at(const char* punct) const { return peek().kind == Token::kPunct && peek().text == punct; }
  bool at_word(const char* word) const { return peek().kind == Token::kIdent && peek().text == word; }
  void expect(const char* punct, const char* what) {
    if (!at(punct)) fail(column(), fmt::format("expected {}, found {}", what, describe(peek())));
    ++pos_;
  }
  void expect_word(const char* word) {
    if (!at_word(word)) fail(column(), fmt::format("expected '{}', found {}", word, describe(peek())));
    ++pos_;
  }
  void expect_end() {
    if (peek().kind != Token::kEnd) fail(column(), fmt::format("expected the end of the line, found {}", describe(peek())));
  }

  void parse_line(std::string_view line, std::size_t line_no) {
    line_ = line_no;
    const std::size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line.substr(first, 5) == "input" &&
        (first + 5 == line.size() || line[first + 5] == ' ' || line[first + 5] == '\t')) {
      tokenize(line.substr(0, std::min(line.find('{'), line.size())));  // the symbols are read raw
      return parse_alphabet(line);
    }
    tokenize(line);
    if (tokens_.empty()) return;
    if (at_word("pad")) {
      if (program_.pad) fail(column(), "a second `pad` line (one polynomial per program)");
      ++pos_;
      program_.pad = parse_expr(Ctx::kPad);
      require(*program_.pad, Type::kInt, "the padding polynomial");
      return expect_end();
    }
    if (at_word("output")) {
      const std::size_t col = column();
      ++pos_;
      if (program_.output >= 0) fail(col, "a second `output` line (a program has one output)");
      if (peek().kind != Token::kIdent) fail(column(), fmt::format("expected a vector's name after `output`, found {}", describe(peek())));
      const auto it = names_.find(peek().text);
      if (it == names_.end()) fail(column(), fmt::format("unknown vector '{}' (expected a vector defined above)", peek().text));
      if (program_.statements[static_cast<std::size_t>(it->second)].type != Type::kSym) {
        fail(column(), fmt::format("the output must be a sym vector; '{}' is {}", peek().text,
                                   type_name(program_.statements[static_cast<std::size_t>(it->second)].type)));
      }
      program_.output = it->second;
      ++pos_;
      return expect_end();
    }
    if (program_.alphabet.empty()) fail(column(), "expected `input alphabet {...}` before the first statement");
    parse_statement();
  }

  void parse_alphabet(std::string_view line) {
    ++pos_;
    expect_word("alphabet");
    if (!program_.alphabet.empty()) fail(tokens_[0].column, "a second `input alphabet` line");
    const std::size_t open = line.find('{'), close = line.rfind('}');
    if (open == std::string_view::npos) fail(column(), fmt::format("expected '{{', found {}", describe(peek())));
    if (close == std::string_view::npos || close < open) fail(line.size() + 1, "expected '}' closing the alphabet");
    std::size_t k = open + 1;
    std::vector<std::string> seen;
    while (true) {
      while (k < close && (line[k] == ' ' || line[k] == '\t')) ++k;
      if (k >= close) fail(k + 1, "expected a symbol");
      const std::size_t len = utf8_length(line, k);
      if (len == 0) fail(k + 1, "invalid UTF-8 (expected a symbol)");
      std::string s(line.substr(k, len));
      if (s == "#") fail(k + 1, "'#' is the padding symbol: it cannot be an input symbol");
      if (std::find(seen.begin(), seen.end(), s) != seen.end()) fail(k + 1, fmt::format("'{}' is listed twice", s));
      if (static_cast<unsigned char>(s[0]) < 0x20 || s == "'") fail(k + 1, "expected a printable symbol");
      seen.push_back(s);
      k += len;
      while (k < close && (line[k] == ' ' || line[k] == '\t')) ++k;
      if (k == close) break;
      if (line[k] != ',') fail(k + 1, "expected ',' or '}' (each symbol is one character)");
      ++k;
    }
    const std::size_t rest = line.find_first_not_of(" \t", close + 1);
    if (rest != std::string_view::npos && line.substr(rest, 2) != "--") fail(rest + 1, "expected the end of the line after '}'");
    for (const std::string& s : seen) program_.alphabet += declare(s, open + 1);
    program_.pad_symbol = declare("#", open + 1);
  }

  void parse_statement() {
    if (peek().kind != Token::kIdent || reserved(peek().text)) {
      fail(column(), fmt::format("expected a statement `NAME : TYPE := ...`, found {}", describe(peek())));
    }
    Statement st;
    st.name = peek().text;
    st.line = line_;
    const std::size_t name_col = column();
    if (st.name == "tok" || st.name == "pos") fail(name_col, fmt::format("'{}' is predefined and cannot be redefined", st.name));
    if (names_.count(st.name)) fail(name_col, fmt::format("'{}' is already defined (programs are straight-line: no redefinition)", st.name));
    ++pos_;
    expect(":", "':' after the vector's name");
    if (peek().kind != Token::kIdent || (peek().text != "bool" && peek().text != "int" && peek().text != "sym")) {
      fail(column(), fmt::format("expected a type (bool, int or sym), found {}", describe(peek())));
    }
    st.type = peek().text == "bool" ? Type::kBool : peek().text == "int" ? Type::kInt : Type::kSym;
    ++pos_;
    expect(":=", "':='");
    defining_ = st.name;
    const std::size_t rhs_col = column();
    if (at_word("psum")) {
      parse_psum(st);
    } else if (at_word("lmost") || at_word("rmost")) {
      parse_select(st);
    } else {
      st.kind = Statement::Kind::kMap;
      st.expr = parse_expr(Ctx::kMap);
      check_type(st, st.expr.type, rhs_col);
    }
    expect_end();
    names_[st.name] = static_cast<int>(program_.statements.size());
    program_.statements.push_back(std::move(st));
  }

  void parse_psum(Statement& st) {
    const std::size_t col = column();
    ++pos_;
    st.kind = Statement::Kind::kPsum;
    expect("(", "'(' after psum");
    st.expr = parse_expr(Ctx::kMap);
    if (st.expr.type == Type::kSym) fail(st.expr.column, "psum sums an int or a bool (true counts 1), not a sym");
    expect(")", "')' closing psum");
    check_type(st, Type::kInt, col);
  }

  void parse_select(Statement& st) {
    st.kind = Statement::Kind::kSelect;
    st.dir = at_word("lmost") ? Dir::kLeftmost : Dir::kRightmost;
    ++pos_;
    expect_word("j");
    st.mask = parse_mask();
    expect("(", "'(' opening the score");
    st.score = parse_expr(Ctx::kScore);
    require(st.score, Type::kBool, "a score");
    expect(")", "')' closing the score");
    expect("->", "'->' before the value");
    const std::size_t value_col = column();
    st.value = parse_expr(Ctx::kValue);
    check_type(st, st.value.type, value_col);
    expect_word("else");
    const std::size_t default_col = column();
    st.expr = parse_expr(Ctx::kDefault);
    if (st.expr.type != st.type) {
      fail(default_col, fmt::format("the default is {}, but '{}' is {}", type_name(st.expr.type), st.name, type_name(st.type)));
    }
  }

  Mask parse_mask() {
    const std::size_t col = column();
    expect("[", "a mask: [all], [j<i], [j<=i], [j>i] or [j>=i]");
    Mask m = Mask::kAll;
    if (at_word("all")) {
      ++pos_;
    } else if (at_word("j")) {
      ++pos_;
      const std::string op = peek().kind == Token::kPunct ? peek().text : "";
      if (op == "<") m = Mask::kBefore;
      else if (op == "<=") m = Mask::kUpTo;
      else if (op == ">") m = Mask::kAfter;
      else if (op == ">=") m = Mask::kFrom;
      else fail(col, "expected a mask: [all], [j<i], [j<=i], [j>i] or [j>=i]");
      ++pos_;
      if (!at_word("i")) fail(col, "expected a mask: [all], [j<i], [j<=i], [j>i] or [j>=i]");
      ++pos_;
    } else {
      fail(col, "expected a mask: [all], [j<i], [j<=i], [j>i] or [j>=i]");
    }
    expect("]", "']' closing the mask");
    return m;
  }

  // A symbol's code (util/symbols.h); a full symbol table is an error here.
  std::string declare(const std::string& s, std::size_t col) const {
    try {
      return sym::declare(s);
    } catch (const InputError& e) {
      fail(col, e.what());
    }
  }

  void check_type(const Statement& st, Type found, std::size_t col) const {
    if (found != st.type) fail(col, fmt::format("'{}' is declared {}, but its definition is {}", st.name, type_name(st.type), type_name(found)));
  }
  void require(const Expr& e, Type t, const std::string& what) const {
    if (e.type != t) fail(e.column, fmt::format("{} must be {}, found {}", what, type_name(t), type_name(e.type)));
  }

  Expr node(Expr::Kind kind, Type type, std::size_t col, std::vector<Expr> args = {}) const {
    Expr e;
    e.kind = kind, e.type = type, e.line = line_, e.column = col, e.args = std::move(args);
    for (const Expr& a : e.args) e.height = std::max(e.height, a.height + 1);
    if (e.height > kMaxHeight) fail(col, fmt::format("an expression deeper than {} operations (split it into statements)", kMaxHeight));
    return e;
  }
  static constexpr int kMaxHeight = 1000;

  // Nesting (parentheses, if, !, unary -) is bounded, so that the parser's
  // and the interpreter's recursion stay shallow on any input.
  static constexpr int kMaxDepth = 100;
  struct Deeper {
    Parser& p;
    explicit Deeper(Parser& parser) : p(parser) {
      if (++p.depth_ > kMaxDepth) p.fail(p.column(), fmt::format("expressions nest deeper than {} levels", kMaxDepth));
    }
    ~Deeper() { --p.depth_; }
    Deeper(const Deeper&) = delete;
    Deeper& operator=(const Deeper&) = delete;
  };

  Expr parse_expr(Ctx ctx) {
    const Deeper deeper(*this);
    if (at_word("if")) {
      const std::size_t col = column();
      ++pos_;
      Expr c = parse_expr(ctx);
      require(c, Type::kBool, "an if's condition");
      expect_word("then");
      Expr a = parse_expr(ctx);
      expect_word("else");
      Expr b = parse_expr(ctx);
      if (a.type != b.type) fail(b.column, fmt::format("the branches of an if differ: {} and {}", type_name(a.type), type_name(b.type)));
      const Type t = a.type;
      return node(Expr::Kind::kIf, t, col, {std::move(c), std::move(a), std::move(b)});
    }
    return parse_binary(ctx, 0);
  }

  // Levels: 0 ||, 1 &&, then ! (parse_not), comparisons, sums, products.
  Expr parse_binary(Ctx ctx, int level) {
    if (level == 2) return parse_not(ctx);
    const char* op = level == 0 ? "||" : "&&";
    Expr left = parse_binary(ctx, level + 1);
    while (at(op)) {
      const std::size_t col = column();
      ++pos_;
      Expr right = parse_binary(ctx, level + 1);
      require(left, Type::kBool, fmt::format("the left side of {}", op));
      require(right, Type::kBool, fmt::format("the right side of {}", op));
      left = node(level == 0 ? Expr::Kind::kOr : Expr::Kind::kAnd, Type::kBool, col, {std::move(left), std::move(right)});
    }
    return left;
  }

  Expr parse_not(Ctx ctx) {
    const Deeper deeper(*this);
    if (at("!")) {
      const std::size_t col = column();
      ++pos_;
      Expr e = parse_not(ctx);
      require(e, Type::kBool, "the operand of !");
      return node(Expr::Kind::kNot, Type::kBool, col, {std::move(e)});
    }
    return parse_cmp(ctx);
  }

  Expr parse_cmp(Ctx ctx) {
    Expr left = parse_sum(ctx);
    static const std::pair<const char*, Expr::Kind> ops[] = {{"==", Expr::Kind::kEq}, {"!=", Expr::Kind::kNe},
                                                             {"<", Expr::Kind::kLt},  {"<=", Expr::Kind::kLe},
                                                             {">", Expr::Kind::kGt},  {">=", Expr::Kind::kGe}};
    for (const auto& [text, kind] : ops) {
      if (!at(text)) continue;
      const std::size_t col = column();
      ++pos_;
      Expr right = parse_sum(ctx);
      if (kind == Expr::Kind::kEq || kind == Expr::Kind::kNe) {
        if (left.type != right.type) {
          fail(col, fmt::format("{} compares values of one type, found {} and {}", text, type_name(left.type), type_name(right.type)));
        }
        check_tok_literal(left, right);
        check_tok_literal(right, left);
      } else {
        require(left, Type::kInt, fmt::format("the left side of {}", text));
        require(right, Type::kInt, fmt::format("the right side of {}", text));
      }
      return node(kind, Type::kBool, col, {std::move(left), std::move(right)});
    }
    return left;
  }

  // tok == 'x' with x outside the alphabet (and not '#') is never true: a typo.
  void check_tok_literal(const Expr& var, const Expr& lit) const {
    if (var.kind != Expr::Kind::kVar || var.var != Expr::kTok || lit.kind != Expr::Kind::kSym) return;
    if (lit.symbol == program_.pad_symbol || program_.alphabet.find(lit.symbol) != std::string::npos) return;
    fail(lit.column, fmt::format("'{}' is not in the input alphabet {{{}}} (tok never equals it)", sym::encode(lit.symbol),
                                 alphabet_text()));
  }
  std::string alphabet_text() const {
    std::string out;
    for (char c : program_.alphabet) out += (out.empty() ? "" : ", ") + sym::encode(std::string(1, c));
    return out;
  }

  Expr parse_sum(Ctx ctx) {
    Expr left = parse_prod(ctx);
    while (at("+") || at("-")) {
      const bool plus = at("+");
      const std::size_t col = column();
      ++pos_;
      Expr right = parse_prod(ctx);
      require(left, Type::kInt, fmt::format("the left side of {}", plus ? "+" : "-"));
      require(right, Type::kInt, fmt::format("the right side of {}", plus ? "+" : "-"));
      left = node(plus ? Expr::Kind::kAdd : Expr::Kind::kSub, Type::kInt, col, {std::move(left), std::move(right)});
    }
    return left;
  }

  static bool constant(const Expr& e) {
    return e.kind == Expr::Kind::kInt || (e.kind == Expr::Kind::kNeg && constant(e.args[0]));
  }

  Expr parse_prod(Ctx ctx) {
    Expr left = parse_atom(ctx);
    while (at("*")) {
      const std::size_t col = column();
      ++pos_;
      Expr right = parse_atom(ctx);
      require(left, Type::kInt, "the left side of *");
      require(right, Type::kInt, "the right side of *");
      if (ctx != Ctx::kPad && !constant(left) && !constant(right)) {
        fail(col, "a multiplication needs an integer literal as one factor (x * y of two vectors is not position-wise "
                  "linear; write 2 * x)");
      }
      left = node(Expr::Kind::kMul, Type::kInt, col, {std::move(left), std::move(right)});
    }
    return left;
  }

  Expr parse_atom(Ctx ctx) {
    const Token t = peek();
    const std::size_t col = column();
    if (t.kind == Token::kInt) {
      ++pos_;
      Expr e = node(Expr::Kind::kInt, Type::kInt, col);
      const auto [end, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), e.number);
      if (ec != std::errc() || end != t.text.data() + t.text.size()) {
        fail(col, fmt::format("the integer {} does not fit in 64 bits", t.text));
      }
      return e;
    }
    if (t.kind == Token::kSym) {
      ++pos_;
      if (ctx == Ctx::kPad) fail(col, "the padding polynomial is over n: integers, n, + - *");
      Expr e = node(Expr::Kind::kSym, Type::kSym, col);
      e.symbol = declare(t.text, col);
      return e;
    }
    if (at("-")) {
      const Deeper deeper(*this);
      ++pos_;
      Expr e = parse_atom(ctx);
      require(e, Type::kInt, "the operand of unary -");
      return node(Expr::Kind::kNeg, Type::kInt, col, {std::move(e)});
    }
    if (at("(")) {
      ++pos_;
      Expr e = parse_expr(ctx);
      expect(")", "')'");
      return e;
    }
    if (t.kind != Token::kIdent) fail(col, fmt::format("expected a value (a number, 'x', true, false or a name), found {}", describe(t)));
    if (t.text == "true" || t.text == "false") {
      ++pos_;
      Expr e = node(Expr::Kind::kBool, Type::kBool, col);
      e.number = t.text == "true";
      return e;
    }
    if (t.text == "concat") return parse_concat(ctx);
    return parse_variable(ctx);
  }

  Expr parse_concat(Ctx ctx) {
    const std::size_t col = column();
    ++pos_;
    expect("(", "'(' after concat");
    Expr a = parse_expr(ctx);
    expect(",", "',' between concat's arguments");
    Expr b = parse_expr(ctx);
    expect(")", "')' closing concat");
    require(a, Type::kSym, "concat's first argument");
    require(b, Type::kSym, "concat's second argument");
    return node(Expr::Kind::kConcat, Type::kSym, col, {std::move(a), std::move(b)});
  }

  Expr parse_variable(Ctx ctx) {
    const Token t = peek();
    const std::size_t col = column();
    ++pos_;
    Expr e = node(Expr::Kind::kVar, Type::kInt, col);
    if (ctx == Ctx::kPad) {
      if (t.text != "n") fail(col, fmt::format("the padding polynomial is over n alone, found '{}'", t.text));
      e.var = Expr::kN;
      return e;
    }
    if (reserved(t.text)) fail(col, fmt::format("expected a value, found the keyword '{}'", t.text));
    if (t.text == "tok") e.var = Expr::kTok, e.type = Type::kSym;
    else if (t.text == "pos") e.var = Expr::kPos, e.type = Type::kInt;
    else e.var = resolve(t.text, col, e.type);
    std::optional<char> index;
    if (at("[")) {
      ++pos_;
      if (at_word("i")) index = 'i';
      else if (at_word("j")) index = 'j';
      else fail(column(), fmt::format("expected [i] or [j] after '{}', found {}", t.text, describe(peek())));
      ++pos_;
      expect("]", "']'");
    }
    switch (ctx) {
      case Ctx::kScore:
        if (!index) fail(col, fmt::format("in a score every variable is read at [i] or [j]: write {0}[i] or {0}[j]", t.text));
        e.at = *index == 'i' ? At::kHere : At::kOther;
        break;
      case Ctx::kValue:
        if (index == 'i') fail(col, fmt::format("a value is read at the selected j: write {0} or {0}[j]", t.text));
        e.at = At::kOther;
        break;
      case Ctx::kDefault:
      case Ctx::kMap:
        if (index == 'j') {
          fail(col, fmt::format("{}[j] outside a score or value: here vectors are read at i (write {})",
                                t.text, t.text));
        }
        e.at = At::kHere;
        break;
      case Ctx::kPad: break;
    }
    return e;
  }

  int resolve(const std::string& name, std::size_t col, Type& type) const {
    const auto it = names_.find(name);
    if (it != names_.end()) {
      type = program_.statements[static_cast<std::size_t>(it->second)].type;
      return it->second;
    }
    if (name == defining_) fail(col, fmt::format("'{}' is used in its own definition (no recursion: each vector uses only those above it)", name));
    const auto later = later_.find(name);
    if (later != later_.end()) {
      fail(col, fmt::format("'{}' is defined later, at line {} (no recursion: each vector uses only those above it)",
                            name, later->second));
    }
    fail(col, fmt::format("unknown name '{}' (expected tok, pos or a vector defined above)", name));
  }

  void finish() {
    line_ = last_line_;
    if (program_.alphabet.empty()) fail(1, "no `input alphabet {...}` line");
    if (program_.output < 0) fail(1, "no `output NAME` line (expected the sym vector the program outputs)");
    program_.fragment = classify();
  }

  // The smallest fragment (docs/srasp.md): B-RASP without int; C-RASP with
  // psum but without pos and without an int in any attention statement;
  // B-RASP[pos] with int but no psum; else S-RASP.
  Fragment classify() const {
    bool ints = false, psum = false, uses_pos = false, int_attention = false;
    std::function<void(const Expr&, bool)> walk = [&](const Expr& e, bool attention) {
      if (e.type == Type::kInt) ints = true, int_attention = int_attention || attention;
      if (e.kind == Expr::Kind::kVar && e.var == Expr::kPos) uses_pos = true;
      for (const Expr& a : e.args) walk(a, attention);
    };
    for (const Statement& st : program_.statements) {
      const bool sel = st.kind == Statement::Kind::kSelect;
      if (st.type == Type::kInt) ints = true, int_attention = int_attention || sel;
      psum = psum || st.kind == Statement::Kind::kPsum;
      walk(st.expr, sel);
      if (sel) walk(st.score, true), walk(st.value, true);
    }
    if (!ints) return Fragment::kBRasp;
    if (!psum) return Fragment::kBRaspPos;
    if (!uses_pos && !int_attention) return Fragment::kCRasp;
    return Fragment::kSRasp;
  }

  std::string_view text_;
  Program program_;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0, line_ = 0, end_column_ = 1, last_line_ = 0;
  std::map<std::string, int> names_;
  std::map<std::string, std::size_t> later_;  // every statement's name -> its line
  std::string defining_;
  int depth_ = 0;
};

}  // namespace

Program parse_program(std::string_view text, const std::string& name) { return Parser(text, name).run(); }

Program load_program(const std::string& path) {
  return parse_program(io::read_file(path), path);
}

std::size_t Program::length_with_padding(std::size_t n) const {
  if (!pad) return n;
  std::function<std::int64_t(const Expr&)> eval = [&](const Expr& e) -> std::int64_t {
    std::int64_t a = 0, b = 0, r = 0;
    switch (e.kind) {
      case Expr::Kind::kInt: return e.number;
      case Expr::Kind::kVar: return static_cast<std::int64_t>(n);
      case Expr::Kind::kNeg: a = eval(e.args[0]); if (__builtin_sub_overflow(0, a, &r)) break; return r;
      case Expr::Kind::kAdd: a = eval(e.args[0]), b = eval(e.args[1]); if (__builtin_add_overflow(a, b, &r)) break; return r;
      case Expr::Kind::kSub: a = eval(e.args[0]), b = eval(e.args[1]); if (__builtin_sub_overflow(a, b, &r)) break; return r;
      case Expr::Kind::kMul: a = eval(e.args[0]), b = eval(e.args[1]); if (__builtin_mul_overflow(a, b, &r)) break; return r;
      default: break;
    }
    throw LimitError(fmt::format("the padding polynomial overflows 64 bits at n = {}", n));
  };
  const std::int64_t p = eval(*pad);
  if (p < 0) throw InputError(fmt::format("the padding polynomial is negative at n = {} ({})", n, p));
  std::size_t total = 0;
  if (__builtin_add_overflow(n, static_cast<std::size_t>(p), &total)) {
    throw LimitError(fmt::format("n + pad(n) overflows at n = {}", n));
  }
  return total;
}

}  // namespace softhat::rasp
