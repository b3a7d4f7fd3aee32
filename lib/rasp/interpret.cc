// The reference interpreter: the semantics of docs/srasp.md evaluated
// literally, statement by statement, position by
// position, with checked 64-bit integers.
#include <fmt/format.h>

#include <stdexcept>

#include "rasp/program.h"
#include "util/interrupt.h"
#include "util/symbols.h"

namespace softhat::rasp {

namespace {

class Interpreter {
 public:
  Interpreter(const Program& p, std::string_view word, std::size_t max_padded) : p_(p), word_(word) {
    for (char c : word) {
      if (p.alphabet.find(c) == std::string::npos) {
        throw std::invalid_argument(fmt::format("symbol '{}' is not in the program's alphabet", sym::encode(std::string(1, c))));
      }
    }
    trace_.n = word.size();
    trace_.padded = p.length_with_padding(word.size());
    if (trace_.padded > max_padded) {
      throw LimitError(fmt::format("{}: a word of {} symbols runs on N = {} positions, more than {}", p.name, word.size(),
                                   trace_.padded, max_padded),
                       Limit::kLength);
    }
    trace_.numbers.resize(p.statements.size());
    trace_.symbols.resize(p.statements.size());
  }

  Trace run() {
    for (std::size_t s = 0; s < p_.statements.size(); ++s) {
      current_ = s;
      const Statement& st = p_.statements[s];
      if (st.type == Type::kSym) trace_.symbols[s].resize(trace_.padded);
      else trace_.numbers[s].resize(trace_.padded);
      switch (st.kind) {
        case Statement::Kind::kMap: map(st, s); break;
        case Statement::Kind::kPsum: psum(st, s); break;
        case Statement::Kind::kSelect: select(st, s); break;
      }
    }
    return std::move(trace_);
  }

 private:
  [[noreturn]] void overflow() const {
    throw std::overflow_error(fmt::format("{}:{}: '{}' leaves the 64-bit integers", p_.name,
                                          p_.statements[current_].line, p_.statements[current_].name));
  }

  void map(const Statement& st, std::size_t s) {
    for (std::size_t i = 0; i < trace_.padded; ++i) {
      if (st.type == Type::kSym) trace_.symbols[s][i] = symbol(st.expr, i, i);
      else trace_.numbers[s][i] = number(st.expr, i, i);
    }
  }

  void psum(const Statement& st, std::size_t s) {
    std::int64_t total = 0;
    for (std::size_t i = 0; i < trace_.padded; ++i) {
      if (__builtin_add_overflow(total, number(st.expr, i, i), &total)) overflow();
      trace_.numbers[s][i] = total;
    }
  }

  void select(const Statement& st, std::size_t s) {
    const std::int64_t N = static_cast<std::int64_t>(trace_.padded);
    for (std::int64_t i = 0; i < N; ++i) {
      if ((i & 255) == 0) throw_if_interrupted();
      std::int64_t lo = 0, hi = N - 1;  // the mask's range of j
      switch (st.mask) {
        case Mask::kAll: break;
        case Mask::kBefore: hi = i - 1; break;
        case Mask::kUpTo: hi = i; break;
        case Mask::kAfter: lo = i + 1; break;
        case Mask::kFrom: lo = i; break;
      }
      const bool left = st.dir == Dir::kLeftmost;
      std::int64_t found = -1;
      for (std::int64_t k = 0; k <= hi - lo; ++k) {
        const std::int64_t j = left ? lo + k : hi - k;
        if (number(st.score, static_cast<std::size_t>(i), static_cast<std::size_t>(j))) {
          found = j;
          break;
        }
      }
      const auto ui = static_cast<std::size_t>(i);
      const bool hit = found >= 0;
      const auto at = static_cast<std::size_t>(hit ? found : i);
      const Expr& e = hit ? st.value : st.expr;
      // A value reads its variables at j (At::kOther); a default at i.
      if (st.type == Type::kSym) trace_.symbols[s][ui] = symbol(e, ui, at);
      else trace_.numbers[s][ui] = number(e, ui, at);
    }
  }

  std::size_t where(const Expr& e, std::size_t i, std::size_t j) const { return e.at == At::kHere ? i : j; }

  std::string symbol(const Expr& e, std::size_t i, std::size_t j) const {
    switch (e.kind) {
      case Expr::Kind::kSym: return e.symbol;
      case Expr::Kind::kVar: {
        const std::size_t k = where(e, i, j);
        if (e.var == Expr::kTok) return k < word_.size() ? std::string(1, word_[k]) : p_.pad_symbol;
        return trace_.symbols[static_cast<std::size_t>(e.var)][k];
      }
      case Expr::Kind::kIf: return number(e.args[0], i, j) ? symbol(e.args[1], i, j) : symbol(e.args[2], i, j);
      case Expr::Kind::kConcat: return symbol(e.args[0], i, j) + symbol(e.args[1], i, j);
      default: throw std::logic_error("rasp: a sym expression of a non-sym kind");
    }
  }

  std::int64_t number(const Expr& e, std::size_t i, std::size_t j) const {
    std::int64_t r = 0;
    switch (e.kind) {
      case Expr::Kind::kInt:
      case Expr::Kind::kBool: return e.number;
      case Expr::Kind::kVar: {
        const std::size_t k = where(e, i, j);
        if (e.var == Expr::kPos) return static_cast<std::int64_t>(k);
        return trace_.numbers[static_cast<std::size_t>(e.var)][k];
      }
      case Expr::Kind::kNeg: if (__builtin_sub_overflow(0, number(e.args[0], i, j), &r)) overflow(); return r;
      case Expr::Kind::kNot: return !number(e.args[0], i, j);
      case Expr::Kind::kAdd: if (__builtin_add_overflow(number(e.args[0], i, j), number(e.args[1], i, j), &r)) overflow(); return r;
      case Expr::Kind::kSub: if (__builtin_sub_overflow(number(e.args[0], i, j), number(e.args[1], i, j), &r)) overflow(); return r;
      case Expr::Kind::kMul: if (__builtin_mul_overflow(number(e.args[0], i, j), number(e.args[1], i, j), &r)) overflow(); return r;
      case Expr::Kind::kAnd: return number(e.args[0], i, j) && number(e.args[1], i, j);
      case Expr::Kind::kOr: return number(e.args[0], i, j) || number(e.args[1], i, j);
      case Expr::Kind::kEq:
      case Expr::Kind::kNe: {
        const bool eq = e.args[0].type == Type::kSym ? symbol(e.args[0], i, j) == symbol(e.args[1], i, j)
                                                     : number(e.args[0], i, j) == number(e.args[1], i, j);
        return e.kind == Expr::Kind::kEq ? eq : !eq;
      }
      case Expr::Kind::kLt: return number(e.args[0], i, j) < number(e.args[1], i, j);
      case Expr::Kind::kLe: return number(e.args[0], i, j) <= number(e.args[1], i, j);
      case Expr::Kind::kGt: return number(e.args[0], i, j) > number(e.args[1], i, j);
      case Expr::Kind::kGe: return number(e.args[0], i, j) >= number(e.args[1], i, j);
      case Expr::Kind::kIf: return number(e.args[0], i, j) ? number(e.args[1], i, j) : number(e.args[2], i, j);
      default: throw std::logic_error("rasp: a numeric expression of a sym kind");
    }
  }

  const Program& p_;
  std::string_view word_;
  Trace trace_;
  std::size_t current_ = 0;
};

}  // namespace

Trace interpret(const Program& program, std::string_view word, std::size_t max_padded) {
  return Interpreter(program, word, max_padded).run();
}

std::string run_program(const Program& program, std::string_view word, std::size_t max_padded) {
  const Trace t = interpret(program, word, max_padded);
  std::string out;
  for (const std::string& s : t.symbols[static_cast<std::size_t>(program.output)]) {
    for (char c : s) {
      if (c != program.pad_symbol[0]) out += c;  // the pad symbol is one code
    }
  }
  return out;
}

bool run_acceptor(const Program& program, std::string_view word, std::size_t max_padded) {
  if (program.length_with_padding(word.size()) == 0) {
    throw std::invalid_argument("the empty word has no positions, so an acceptor program has no last position to "
                                "decide it (docs/srasp.md)");
  }
  const std::string out = run_program(program, word, max_padded);
  if (out == sym::declare("1")) return true;
  if (out == sym::declare("0")) return false;
  throw std::invalid_argument(fmt::format("{} is not an acceptor: its output is '{}', not 1 or 0", program.name, sym::encode(out)));
}

}  // namespace softhat::rasp
