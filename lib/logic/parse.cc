#include "logic/parse.h"

#include <fmt/format.h>

#include <vector>

#include "logic/print.h"
#include "util/error.h"
#include "util/symbols.h"

namespace softhat::logic {
namespace {

constexpr std::int64_t kMaxInteger = 1'000'000'000;  // keeps every term exact in 128-bit arithmetic

enum class Tok {
  kEnd,
  kLParen,
  kRParen,
  kBang,
  kAnd,
  kOr,
  kImpl,
  kIff,
  kUnaryOp,   // Y X O H F G
  kBinaryOp,  // S U
  kWord,      // a run of lowercase letters and digits
  kQuoted,    // 'x'
  kHash,
  kPlus,
  kMinus,
  kStar,
  kComma,
  kCmp,
};

struct Token {
  Tok kind = Tok::kEnd;
  std::size_t pos = 0;
  std::size_t len = 0;
  std::string_view text;
  char symbol = 0;  // kQuoted: the symbol; kUnaryOp/kBinaryOp: the operator letter
  Cmp cmp = Cmp::kEq;
};

bool is_word_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_printable(char c) { return c > ' ' && c < 0x7f; }

std::string describe(const Token& t) {
  if (t.kind == Tok::kEnd) return "end of input";
  return fmt::format("'{}'", t.text);
}

std::string describe_char(char c) {
  if (is_printable(c)) return fmt::format("'{}'", c);
  return fmt::format("byte 0x{:02x}", static_cast<unsigned char>(c));
}

class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options) : text_(text), options_(options) {
    cur_ = lex(0);
  }

  Formula parse_all() {
    if (cur_.kind == Tok::kEnd) throw ParseError(cur_.pos, "empty formula, expected a formula");
    Formula f = parse_iff();
    if (cur_.kind != Tok::kEnd) {
      throw ParseError(cur_.pos, fmt::format("unexpected {} at {}, expected an operator or end of input",
                                             describe(cur_), cur_.pos));
    }
    return f;
  }

 private:
  // ---- lexer ----
  Token lex(std::size_t pos) const {
    while (pos < text_.size() && is_space(text_[pos])) ++pos;
    Token t;
    t.pos = pos;
    if (pos >= text_.size()) return t;
    const char c = text_[pos];
    auto at = [&](std::size_t k) { return pos + k < text_.size() ? text_[pos + k] : '\0'; };
    auto tok = [&](Tok kind, std::size_t len) {
      t.kind = kind;
      t.len = len;
      t.text = text_.substr(pos, len);
      return t;
    };
    auto cmp = [&](Cmp which, std::size_t len) {
      t.cmp = which;
      return tok(Tok::kCmp, len);
    };
    switch (c) {
      case '(': return tok(Tok::kLParen, 1);
      case ')': return tok(Tok::kRParen, 1);
      case '&': return tok(Tok::kAnd, 1);
      case '|': return tok(Tok::kOr, 1);
      case '#': return tok(Tok::kHash, 1);
      case '+': return tok(Tok::kPlus, 1);
      case '*': return tok(Tok::kStar, 1);
      case ',': return tok(Tok::kComma, 1);
      case '-': return at(1) == '>' ? tok(Tok::kImpl, 2) : tok(Tok::kMinus, 1);
      case '!': return at(1) == '=' ? cmp(Cmp::kNe, 2) : tok(Tok::kBang, 1);
      case '=': return cmp(Cmp::kEq, 1);
      case '>': return at(1) == '=' ? cmp(Cmp::kGe, 2) : cmp(Cmp::kGt, 1);
      case '<':
        if (at(1) == '-' && at(2) == '>') return tok(Tok::kIff, 3);
        return at(1) == '=' ? cmp(Cmp::kLe, 2) : cmp(Cmp::kLt, 1);
      case 'Y':
      case 'X':
      case 'O':
      case 'H':
      case 'F':
      case 'G':
        t.symbol = c;
        return tok(Tok::kUnaryOp, 1);
      case 'S':
      case 'U':
        t.symbol = c;
        return tok(Tok::kBinaryOp, 1);
      case '\'': return lex_quoted(pos);
      default: break;
    }
    if (static_cast<unsigned char>(c) >= 0x80) lex_non_ascii(pos);
    if (is_word_char(c)) {
      std::size_t end = pos;
      while (end < text_.size() && is_word_char(text_[end])) ++end;
      return tok(Tok::kWord, end - pos);
    }
    if (c >= 'A' && c <= 'Z') {
      throw ParseError(pos, fmt::format("unexpected '{}' at {}: upper-case letters are operators, "
                                        "write the symbol quoted as '{}'",
                                        c, pos, c));
    }
    if (is_printable(c)) {
      throw ParseError(pos, fmt::format("unexpected '{}' at {}, expected a formula (symbols other than "
                                        "lowercase letters and digits are written quoted: {})",
                                        c, pos, symbol_literal(c)));
    }
    throw ParseError(pos, fmt::format("unexpected {} at {}, expected a formula", describe_char(c), pos));
  }

  // A code point outside ASCII where a token starts: symbols other than
  // lowercase ASCII letters and digits are only written quoted.
  [[noreturn]] void lex_non_ascii(std::size_t pos) const {
    const auto d = sym::decode_one(text_, pos);
    if (!d) {
      throw ParseError(pos, fmt::format("invalid UTF-8 at {} (byte 0x{:02x})", pos,
                                        static_cast<unsigned char>(text_[pos])));
    }
    if (sym::not_a_symbol(d->code_point)) {
      throw ParseError(pos, fmt::format("unexpected {} at {} ({}), expected a formula",
                                        sym::code_point_name(d->code_point), pos, sym::not_a_symbol(d->code_point)));
    }
    const std::string shown = sym::utf8(d->code_point);
    throw ParseError(pos, fmt::format("unexpected '{}' at {}: symbols other than lowercase ASCII letters and digits "
                                      "are written quoted, as '{}'",
                                      shown, pos, shown));
  }

  // The code of the non-ASCII symbol quoted at text_[k] (the quote at pos);
  // `length` receives its UTF-8 length.
  char quoted_code(std::size_t pos, std::size_t k, std::size_t& length) const {
    const auto d = sym::decode_one(text_, k);
    if (!d) {
      throw ParseError(pos, fmt::format("invalid UTF-8 at {} (byte 0x{:02x}) in the quoted symbol at {}", k,
                                        static_cast<unsigned char>(text_[k]), pos));
    }
    length = d->length;
    if (const char* why = sym::not_a_symbol(d->code_point)) {
      throw ParseError(pos, fmt::format("quoted symbol at {} is {}, {}, not a printable symbol", pos,
                                        sym::code_point_name(d->code_point), why));
    }
    if (auto code = sym::find(d->code_point)) return *code;
    if (options_.alphabet) {
      // Never declared: in no alphabet, so not in this one.
      throw ParseError(pos, fmt::format("symbol '{}' at {} is not in the alphabet {}", sym::utf8(d->code_point), pos,
                                        alphabet_set(*options_.alphabet)));
    }
    try {
      return sym::intern(d->code_point);  // syntax alone (no alphabet): any symbol
    } catch (const InputError& e) {
      throw ParseError(pos, fmt::format("{} at {}", e.what(), pos));
    }
  }

  Token lex_quoted(std::size_t pos) const {
    Token t;
    t.kind = Tok::kQuoted;
    t.pos = pos;
    std::size_t k = pos + 1;
    if (k >= text_.size()) throw ParseError(pos, fmt::format("unterminated quoted symbol at {}", pos));
    char sym = text_[k];
    std::size_t sym_len = 1;
    if (static_cast<unsigned char>(sym) >= 0x80) {
      sym = quoted_code(pos, k, sym_len);
    } else if (sym == '\\') {
      ++k;
      if (k >= text_.size() || (text_[k] != '\'' && text_[k] != '\\')) {
        throw ParseError(pos, fmt::format("bad escape in quoted symbol at {}: only '\\'' and '\\\\' exist",
                                          pos));
      }
      sym = text_[k];
    } else if (sym == '\'') {
      throw ParseError(pos, fmt::format("empty quoted symbol at {} (a quote is written '\\'')", pos));
    } else if (!is_printable(sym)) {
      throw ParseError(pos, fmt::format("quoted symbol at {} is {}, but symbols are printable ASCII "
                                        "other than space",
                                        pos, describe_char(sym)));
    }
    k += sym_len;
    if (k >= text_.size() || text_[k] != '\'') {
      throw ParseError(pos, fmt::format("unterminated quoted symbol at {}, expected a closing quote", pos));
    }
    t.symbol = sym;
    t.len = k + 1 - pos;
    t.text = text_.substr(pos, t.len);
    return t;
  }

  void advance() { cur_ = lex(cur_.pos + cur_.len); }
  Token peek() const { return lex(cur_.pos + cur_.len); }

  // ---- nesting limits ----
  void enter(std::size_t pos) {
    if (++nest_ > options_.max_depth) too_deep(pos);
  }
  void leave() { --nest_; }
  [[noreturn]] void too_deep(std::size_t pos) const {
    throw ParseError(pos, fmt::format("formula nests deeper than {} levels at {}", options_.max_depth, pos));
  }
  Formula checked(Formula f, std::size_t pos) const {
    if (f->depth > options_.max_depth) too_deep(pos);
    return f;
  }

  // ---- grammar ----
  Formula parse_iff() {
    Formula lhs = parse_impl();
    while (cur_.kind == Tok::kIff) {
      const std::size_t pos = cur_.pos;
      advance();
      lhs = checked(iff(lhs, parse_impl()), pos);
    }
    return lhs;
  }

  Formula parse_impl() {
    Formula lhs = parse_or();
    if (cur_.kind != Tok::kImpl) return lhs;
    const std::size_t pos = cur_.pos;
    advance();
    enter(pos);
    Formula rhs = parse_impl();
    leave();
    return checked(implies(lhs, rhs), pos);
  }

  Formula parse_or() {
    std::vector<Formula> operands{parse_and()};
    while (cur_.kind == Tok::kOr) {
      advance();
      operands.push_back(parse_and());
    }
    return operands.size() == 1 ? operands[0] : or_(std::move(operands));
  }

  Formula parse_and() {
    std::vector<Formula> operands{parse_since()};
    while (cur_.kind == Tok::kAnd) {
      advance();
      operands.push_back(parse_since());
    }
    return operands.size() == 1 ? operands[0] : and_(std::move(operands));
  }

  Formula parse_since() {
    Formula lhs = parse_unary(false);
    if (cur_.kind != Tok::kBinaryOp) return lhs;
    const Token op = cur_;
    advance();
    enter(op.pos);
    Formula rhs = parse_since();
    leave();
    return checked(op.symbol == 'S' ? since(lhs, rhs) : until(lhs, rhs), op.pos);
  }

  // Unary operators are collected in a loop, not by recursion, so long
  // chains (Y Y Y ... a) cost no stack.
  Formula parse_unary(bool count_operand) {
    std::vector<Token> ops;
    while (cur_.kind == Tok::kBang || cur_.kind == Tok::kUnaryOp) {
      ops.push_back(cur_);
      if (ops.size() > options_.max_depth) too_deep(cur_.pos);
      advance();
    }
    Formula f = parse_primary(count_operand);
    for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
      switch (it->kind == Tok::kBang ? '!' : it->symbol) {
        case '!': f = not_(f); break;
        case 'Y': f = yesterday(f); break;
        case 'X': f = next(f); break;
        case 'O': f = once(f); break;
        case 'H': f = historically(f); break;
        case 'F': f = eventually(f); break;
        case 'G': f = globally(f); break;
      }
      checked(f, it->pos);
    }
    return f;
  }

  bool is_number(const Token& t) const {
    if (t.kind != Tok::kWord) return false;
    for (char c : t.text) {
      if (!is_digit(c)) return false;
    }
    return true;
  }

  // At the start of a primary: is this number an integer (a term) or a letter?
  bool number_is_integer() const {
    if (cur_.len >= 2) return true;
    const Tok next = peek().kind;
    return next == Tok::kStar || next == Tok::kPlus || next == Tok::kMinus || next == Tok::kCmp;
  }

  Formula parse_primary(bool count_operand) {
    const Token t = cur_;
    switch (t.kind) {
      case Tok::kLParen: {
        enter(t.pos);
        advance();
        Formula f = parse_iff();
        if (cur_.kind != Tok::kRParen) {
          throw ParseError(cur_.pos, fmt::format("expected ')' at {} to close the '(' at {}, found {}",
                                                 cur_.pos, t.pos, describe(cur_)));
        }
        advance();
        leave();
        return f;
      }
      case Tok::kHash: return parse_comparison();
      case Tok::kQuoted:
        advance();
        return make_letter(t.symbol, t.pos);
      case Tok::kWord: return parse_word(count_operand);
      default:
        throw ParseError(t.pos, fmt::format("unexpected {} at {}, expected a formula", describe(t), t.pos));
    }
  }

  Formula parse_word(bool count_operand) {
    const Token t = cur_;
    if (is_number(t) && !count_operand && number_is_integer()) return parse_comparison();
    if (t.text == "true" || t.text == "false" || t.text == "first" || t.text == "last") {
      advance();
      if (t.text == "true") return make_true();
      if (t.text == "false") return make_false();
      return t.text == "first" ? first() : last();
    }
    if (t.text == "mod") return parse_mod();
    if (t.len == 1) {
      advance();
      return make_letter(t.text[0], t.pos);
    }
    std::string suggestion;
    for (char c : t.text) suggestion += suggestion.empty() ? std::string(1, c) : fmt::format(" & {}", c);
    throw ParseError(t.pos, fmt::format("{} at {}: did you mean {}?", t.text, t.pos, suggestion));
  }

  Formula make_letter(char c, std::size_t pos) const {
    if (options_.alphabet && options_.alphabet->find(c) == std::string::npos) {
      throw ParseError(pos, fmt::format("symbol '{}' at {} is not in the alphabet {}", sym::encode(c), pos,
                                        alphabet_set(*options_.alphabet)));
    }
    return letter(c);
  }

  std::int64_t parse_integer() {
    if (!is_number(cur_)) {
      throw ParseError(cur_.pos, fmt::format("expected an integer at {}, found {}", cur_.pos, describe(cur_)));
    }
    std::int64_t v = 0;
    for (char c : cur_.text) {
      v = v * 10 + (c - '0');
      if (v > kMaxInteger) {
        throw ParseError(cur_.pos, fmt::format("integer {} at {} is too large (the limit is {})", cur_.text,
                                               cur_.pos, kMaxInteger));
      }
    }
    advance();
    return v;
  }

  void expect(Tok kind, const char* what) {
    if (cur_.kind != kind) {
      throw ParseError(cur_.pos, fmt::format("expected {} at {}, found {}", what, cur_.pos, describe(cur_)));
    }
    advance();
  }

  Formula parse_mod() {
    const std::size_t pos = cur_.pos;
    advance();
    expect(Tok::kLParen, "'(' after mod");
    const std::int64_t m = parse_integer();
    expect(Tok::kComma, "','");
    const std::int64_t r = parse_integer();
    expect(Tok::kRParen, "')'");
    if (m < 1 || r >= m) {
      throw ParseError(pos, fmt::format("mod({},{}) at {} needs m >= 1 and 0 <= r < m", m, r, pos));
    }
    return mod(m, r);
  }

  Formula parse_comparison() {
    const std::size_t pos = cur_.pos;
    Term lhs = parse_term();
    if (cur_.kind != Tok::kCmp) {
      throw ParseError(cur_.pos, fmt::format("expected a comparison (<, <=, >, >=, =, !=) at {} after the "
                                             "counting term at {}, found {}",
                                             cur_.pos, pos, describe(cur_)));
    }
    const Cmp cmp = cur_.cmp;
    advance();
    Term rhs = parse_term();
    return checked(compare(std::move(lhs), cmp, std::move(rhs)), pos);
  }

  Term parse_term() {
    Term t;
    parse_product(t, 1);
    while (cur_.kind == Tok::kPlus || cur_.kind == Tok::kMinus) {
      const int sign = cur_.kind == Tok::kPlus ? 1 : -1;
      advance();
      parse_product(t, sign);
    }
    return t;
  }

  void parse_product(Term& t, int sign) {
    if (cur_.kind == Tok::kHash) {
      t.counts.emplace_back(sign, parse_count());
      return;
    }
    if (!is_number(cur_)) {
      throw ParseError(cur_.pos, fmt::format("expected a count '#...' or an integer at {}, found {}", cur_.pos,
                                             describe(cur_)));
    }
    const std::int64_t v = parse_integer();
    if (cur_.kind == Tok::kStar) {
      advance();
      if (cur_.kind != Tok::kHash) {
        throw ParseError(cur_.pos, fmt::format("expected a count '#...' at {} after '*', found {}", cur_.pos,
                                               describe(cur_)));
      }
      t.counts.emplace_back(sign * v, parse_count());
    } else {
      t.constant += sign * v;
    }
  }

  Formula parse_count() {
    const std::size_t pos = cur_.pos;
    advance();  // '#'
    enter(pos);
    Formula f = parse_unary(true);
    leave();
    return f;
  }

  std::string_view text_;
  const ParseOptions& options_;
  Token cur_;
  std::size_t nest_ = 0;
};

}  // namespace

Formula parse(std::string_view text, const ParseOptions& options) {
  if (options.alphabet) validate_alphabet(*options.alphabet);
  if (text.size() > options.max_size) {
    throw ParseError(options.max_size, fmt::format("the formula has {} bytes, more than the limit of {} bytes",
                                                   text.size(), options.max_size));
  }
  return Parser(text, options).parse_all();
}

Formula parse(std::string_view text, std::string_view alphabet) {
  ParseOptions options;
  options.alphabet = std::string(alphabet);
  return parse(text, options);
}

void validate_alphabet(std::string_view alphabet) {
  if (alphabet.empty()) throw std::invalid_argument("the alphabet is empty");
  for (std::size_t i = 0; i < alphabet.size(); ++i) {
    const char c = alphabet[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      const char32_t cp = sym::code_point(c);
      if (cp == 0xFFFD) {
        throw std::invalid_argument(fmt::format("alphabet symbol code 0x{:02x} at {} was never declared",
                                                static_cast<unsigned char>(c), i));
      }
      if (const char* why = sym::not_a_symbol(cp)) {
        const bool mark = std::string_view(why) == "a combining mark";
        throw std::invalid_argument(fmt::format(
            "alphabet symbol {} at {} is {}, not a printable symbol{}", sym::code_point_name(cp), i, why,
            mark ? " (softhat does not normalize: write the precomposed letter, e.g. U+00E1 for a + U+0301)" : ""));
      }
    } else if (!is_printable(c)) {
      throw std::invalid_argument(fmt::format(
          "alphabet character {} at {} is not printable ASCII other than space", describe_char(c), i));
    }
    if (alphabet.find(c) != i) {
      throw std::invalid_argument(fmt::format("alphabet repeats '{}' at {}", sym::encode(c), i));
    }
  }
}

std::string declare_alphabet(std::string_view text) {
  std::string codes;
  codes.reserve(text.size());
  for (std::size_t pos = 0; pos < text.size();) {
    const auto d = sym::decode_one(text, pos);
    if (!d) {
      throw InputError(fmt::format("alphabet has invalid UTF-8 at byte {} (0x{:02x})", pos,
                                   static_cast<unsigned char>(text[pos])));
    }
    try {
      codes += d->code_point < 0x80 ? static_cast<char>(d->code_point) : sym::intern(d->code_point);
    } catch (const InputError& e) {
      throw InputError(fmt::format("alphabet: {}", e.what()));
    }
    pos += d->length;
  }
  return codes;
}

}  // namespace softhat::logic
