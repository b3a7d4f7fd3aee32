// S-RASP -> average-hard transformer. The encodings follow the layout of
// docs/srasp.md ("The compiler"): bool one coordinate, sym one-hot over the
// program's symbols, int x as X = x/M with M = N + 1 (BOS at position 0 is
// the sentinel of every mask: the engine always shows it). Logic is exact
// ReLU units that also re-round their inputs, integer comparisons are
// "BOS duel" heads, attention statements are tie-broken heads followed by a
// merge of the default, and psum is a uniform head plus a quadratic
// retrieval over the position features j/(n+1) and (j/(n+1))^2.
#include "rasp/compile.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "rasp/layout.h"
#include "util/error.h"
#include "util/symbols.h"

namespace softhat::rasp {
namespace {

using detail::HeadSpec;
using detail::Layout;
using detail::Lin;
using detail::lin_add;
using detail::lin_scale;
using detail::Unit;

constexpr double kMultiplierRange = 8.0;   // R of the bounded multiplier: exact for |X| <= R
constexpr std::size_t kMaxAssignments = 1u << 14;  // logic units per expression

// a + b*N, a bound valid for every padded length N >= 1.
struct Aff {
  double a = 0, b = 0;
};
bool provably_le(Aff p, Aff q) { return q.a + q.b - p.a - p.b >= 0 && q.b - p.b >= 0; }

struct Range {
  std::optional<Aff> lo, hi;
};
Range range_add(const Range& x, const Range& y, double s) {  // x + s*y
  Range r;
  const auto& ylo = s >= 0 ? y.lo : y.hi;
  const auto& yhi = s >= 0 ? y.hi : y.lo;
  if (x.lo && ylo) r.lo = Aff{x.lo->a + s * ylo->a, x.lo->b + s * ylo->b};
  if (x.hi && yhi) r.hi = Aff{x.hi->a + s * yhi->a, x.hi->b + s * yhi->b};
  return r;
}
Range range_union(const Range& x, const Range& y) {
  Range r;
  if (x.lo && y.lo) r.lo = Aff{std::min(x.lo->a, y.lo->a), std::min(x.lo->b, y.lo->b)};
  if (x.hi && y.hi) r.hi = Aff{std::max(x.hi->a, y.hi->a), std::max(x.hi->b, y.hi->b)};
  return r;
}
Range exactly(double c) { return Range{Aff{c, 0}, Aff{c, 0}}; }

struct Val {
  Type type = Type::kBool;
  Lin lin;                    // bool: 0/1; int: X = x/M
  std::map<int, Lin> sym;     // sym: universe index -> indicator
  std::optional<Lin> square;  // int: X^2, when a construction gives it
  Range range;                // int
};

// The coefficients of a padding polynomial over n, constant first.
std::vector<std::int64_t> pad_coefficients(const Expr& e) {
  using K = Expr::Kind;
  auto add = [](std::vector<std::int64_t> a, const std::vector<std::int64_t>& b, std::int64_t s) {
    a.resize(std::max(a.size(), b.size()), 0);
    for (std::size_t k = 0; k < b.size(); ++k) {
      std::int64_t term = 0;
      if (__builtin_mul_overflow(b[k], s, &term) || __builtin_add_overflow(a[k], term, &a[k])) {
        throw CompileError("the padding polynomial's coefficients overflow");
      }
    }
    return a;
  };
  switch (e.kind) {
    case K::kInt: return {e.number};
    case K::kVar: return {0, 1};
    case K::kNeg: return add({}, pad_coefficients(e.args[0]), -1);
    case K::kAdd: return add(pad_coefficients(e.args[0]), pad_coefficients(e.args[1]), 1);
    case K::kSub: return add(pad_coefficients(e.args[0]), pad_coefficients(e.args[1]), -1);
    case K::kMul: {
      const auto a = pad_coefficients(e.args[0]), b = pad_coefficients(e.args[1]);
      std::vector<std::int64_t> r(a.size() + b.size() - 1, 0);
      for (std::size_t x = 0; x < a.size(); ++x) {
        for (std::size_t y = 0; y < b.size(); ++y) {
          std::int64_t t = 0;
          if (__builtin_mul_overflow(a[x], b[y], &t) || __builtin_add_overflow(r[x + y], t, &r[x + y])) {
            throw CompileError("the padding polynomial's coefficients overflow");
          }
        }
      }
      if (r.size() > 8) throw CompileError("the padding polynomial has a degree above 7");
      return r;
    }
    default: throw CompileError("the padding polynomial is not a polynomial in n");
  }
}

bool is_logic(const Expr& e) {
  using K = Expr::Kind;
  switch (e.kind) {
    case K::kNot: case K::kAnd: case K::kOr: return true;
    case K::kEq: case K::kNe: return e.args[0].type != Type::kInt;
    case K::kIf: return e.type != Type::kInt;
    case K::kBool: case K::kSym: case K::kConcat: return true;
    default: return false;
  }
}

// Which sides a score subexpression reads: 1 = [i], 2 = [j].
int sides(const Expr& e) {
  int s = 0;
  if (e.kind == Expr::Kind::kVar && e.var != Expr::kN) s = e.at == At::kHere ? 1 : 2;
  for (const Expr& a : e.args) s |= sides(a);
  return s;
}

void flatten_and(const Expr& e, std::vector<const Expr*>& out) {
  if (e.kind == Expr::Kind::kAnd) {
    for (const Expr& a : e.args) flatten_and(a, out);
  } else {
    out.push_back(&e);
  }
}

// A bool/sym function of "atoms" (subexpressions that are not logic), built
// as one ReLU unit pair per satisfying assignment.
struct LogicFn {
  const Expr* root = nullptr;
  const std::vector<const Expr*>* conjuncts = nullptr;  // root is their conjunction when set
  std::vector<const Expr*> atoms;
  std::vector<Val> values;
  std::map<const Expr*, int> index;
};

class Compiler {
 public:
  Compiler(const Program& p, std::size_t max_memory) : p_(p), max_memory_(max_memory) {}
  CompiledProgram run();

 private:
  const Program& p_;
  std::size_t max_memory_;
  Layout lay_;
  // The values a sym vector can take: single symbols (codes), and the bounded
  // strings concat builds, each one atomic symbol of the product alphabet.
  std::vector<std::string> universe_;
  int one_ = 0, g_ = 0, g2_ = 0, h_ = 0, bos_ = 0, e_ = 0, e2_ = -1;
  int bos_rest_ = -1, bos_half_ = -1;  // (1 - e) * isBOS and (e/2) * isBOS
  std::map<int, int> tok_;  // universe index -> coordinate
  std::vector<Val> vals_;
  std::vector<RangeFlag> flags_;
  const Statement* st_ = nullptr;

  [[noreturn]] void refuse(const std::string& why) const {
    throw CompileError(fmt::format("{}:{}: statement '{}' cannot be compiled: {}", p_.name, st_ ? st_->line : 0,
                                   st_ ? st_->name : std::string("output"), why));
  }
  int sym_index(const std::string& value) {  // interns a new string (a concat's product symbol)
    const auto it = std::find(universe_.begin(), universe_.end(), value);
    if (it != universe_.end()) return static_cast<int>(it - universe_.begin());
    universe_.push_back(value);
    return static_cast<int>(universe_.size()) - 1;
  }
  std::string shown(int index) const { return sym::encode(universe_.at(static_cast<std::size_t>(index))); }
  Lin one() const { return {{one_, 1.0}}; }
  Lin real() const { return {{one_, 1.0}, {bos_, -1.0}}; }
  Lin negate(const Lin& l) const { return lin_add(one(), l, -1.0); }
  Lin constant(double x) const { return {{e_, x}}; }  // the int x
  Lin affine(Aff v) const { return lin_add({{e_, v.a - v.b}}, {{one_, v.b}}); }  // a + b*N = a*e + b*(1 - e)
  std::string label(const std::string& what) const { return fmt::format("{}:{}", st_ ? st_->name : "out", what); }

  void setup();
  int ready(const std::vector<Lin>& lins) const {
    int r = 0;
    for (const Lin& l : lins) r = std::max(r, lay_.ready(l));
    return r;
  }
  int add_head(HeadSpec spec, const std::vector<std::string>& out_labels, int min_layer = 0);
  void rho_units(int layer, const Lin& in, double bias, int out, double w);
  void and_units(int layer, const std::vector<Lin>& literals, int out, double w = 1.0);
  void mult_units(int layer, const Lin& x, const std::vector<Lin>& literals, int out, double w = 1.0);
  int duel(const Lin& u, const std::string& what, double coefficient = 0.5, int power = 1);
  int less(const Lin& x, const Lin& y, const std::string& what) {
    return duel(lin_add(lin_add(x, y, -1.0), constant(0.5)), what);
  }
  void check_range(const Val& v, Aff lo, Aff hi, const std::string& what);
  int e_squared();

  Val eval(const Expr& e);
  Val compare(const Expr& e);
  Val int_if(const Expr& e);
  void collect(const Expr& e, LogicFn& fn);
  int evaluate(const Expr& e, const LogicFn& fn, const std::vector<int>& assignment);
  Val logic(const Expr& e, bool key_side);
  Val build_logic(const LogicFn& fn, const std::vector<int>& free, std::vector<int> assignment,
                  std::vector<Lin> extra, Type type);
  std::vector<int> support(const Val& v) const;
  Lin literal(const Val& v, int value) const;
  std::vector<Lin> rows(const Val& v) const;
  Val outputs(const Val& shape, const std::vector<int>& coords) const;
  Val merge(const Val& raw, const Val& def, const std::vector<Lin>& literals);
  Val psum(const Statement& st);
  Val select(const Statement& st);
  Val select_finite(const Statement& st, const std::vector<const Expr*>& phi);
  Val select_equal(const Statement& st, const Expr& query, const Expr& key, const std::vector<const Expr*>& phi);
  CompiledProgram build(const Val& out);
};

void Compiler::setup() {
  for (char c : p_.alphabet) universe_.emplace_back(1, c);
  auto add = [&](const std::string& code) { sym_index(code); };
  add(p_.pad_symbol);
  std::function<void(const Expr&)> walk = [&](const Expr& e) {
    if (e.kind == Expr::Kind::kSym) add(e.symbol);
    for (const Expr& a : e.args) walk(a);
  };
  for (const Statement& s : p_.statements) walk(s.expr), walk(s.score), walk(s.value);
  one_ = lay_.fresh("one", 0);
  g_ = lay_.fresh("pos:j/(n+1)", 0);
  g2_ = lay_.fresh("pos:(j/(n+1))^2", 0);
  h_ = lay_.fresh("pos:1/(j+1)", 0);
  bos_ = lay_.fresh("isBOS", 0);
  std::string model_alphabet = p_.alphabet + p_.pad_symbol;
  for (char c : model_alphabet) tok_[sym_index(std::string(1, c))] = lay_.fresh(fmt::format("tok:{}", sym::encode(c)), 0);
  HeadSpec uniform{model::Mask::kNone, {}, {}, {{{bos_, 1.0}}}, {}, "e = 1/(N+1): uniform average of isBOS", 0, 0};
  e_ = add_head(uniform, {"e"})  ;
}

int Compiler::add_head(HeadSpec spec, const std::vector<std::string>& out_labels, int min_layer) {
  std::vector<Lin> all = spec.q;
  all.insert(all.end(), spec.k.begin(), spec.k.end());
  all.insert(all.end(), spec.v.begin(), spec.v.end());
  const int layer = std::max(min_layer, Layout::attention_layer(ready(all)));
  int first = -1;
  for (const std::string& l : out_labels) {
    const int c = lay_.attention_output(layer, l);
    if (first < 0) first = c;
    spec.out.push_back(c);
  }
  lay_.layer(layer).heads.push_back(std::move(spec));
  return first;
}

void Compiler::rho_units(int layer, const Lin& in, double bias, int out, double w) {
  // rho(x) = ReLU(2x - 1/2) - ReLU(2x - 3/2): 0 below 1/4, 1 above 3/4 (re-rounds a near-bit).
  auto& units = lay_.layer(layer).units;
  units.push_back(Unit{lin_scale(in, 2.0), 2.0 * bias - 0.5, {{out, w}}});
  units.push_back(Unit{lin_scale(in, 2.0), 2.0 * bias - 1.5, {{out, -w}}});
}

void Compiler::and_units(int layer, const std::vector<Lin>& literals, int out, double w) {
  Lin sum;
  for (const Lin& l : literals) sum = lin_add(sum, l);
  rho_units(layer, sum, -static_cast<double>(literals.size()) + 1.0, out, w);
}

void Compiler::mult_units(int layer, const Lin& x, const std::vector<Lin>& literals, int out, double w) {
  // AND(literals) (.) X = ReLU(X + R s - R) - ReLU(-X + R s - R), s = sum - (k - 1): exact for |X| <= R.
  Lin s;
  for (const Lin& l : literals) s = lin_add(s, l);
  const double bias = -kMultiplierRange * static_cast<double>(literals.size());
  auto& units = lay_.layer(layer).units;
  units.push_back(Unit{lin_add(lin_scale(s, kMultiplierRange), x), bias, {{out, w}}});
  units.push_back(Unit{lin_add(lin_scale(s, kMultiplierRange), x, -1.0), bias, {{out, -w}}});
}

int Compiler::duel(const Lin& u, const std::string& what, double coefficient, int power) {
  // Scores: BOS 0, every other position u_t; AHAT gives weight on BOS iff u_t < 0.
  HeadSpec spec{model::Mask::kNone, {u}, {real()}, {{{bos_, 1.0}}}, {}, label(what), coefficient, power};
  return add_head(spec, {label(what)});
}

void Compiler::check_range(const Val& v, Aff lo, Aff hi, const std::string& what) {
  if (!(v.range.lo && provably_le(lo, *v.range.lo))) {
    const int f = less(v.lin, affine(lo), what + " < " + fmt::format("{}+{}N", lo.a, lo.b));
    flags_.push_back({f, fmt::format("statement '{}': {} is below {} + {}N", st_->name, what, lo.a, lo.b)});
  }
  if (!(v.range.hi && provably_le(*v.range.hi, hi))) {
    const int f = less(affine(hi), v.lin, what + " > " + fmt::format("{}+{}N", hi.a, hi.b));
    flags_.push_back({f, fmt::format("statement '{}': {} is above {} + {}N", st_->name, what, hi.a, hi.b)});
  }
}

int Compiler::e_squared() {
  if (e2_ >= 0) return e2_;
  // Square lookup of the int 1: the score 2e g_s - g_s^2 peaks at s = 1, whose (j/(n+1))^2 is e^2.
  HeadSpec spec{model::Mask::kNone, {lin_scale({{e_, 1.0}}, 2.0), lin_scale(one(), -1.0)}, {{{g_, 1.0}}, {{g2_, 1.0}}},
                {{{g2_, 1.0}}}, {}, "e^2: square lookup of 1", 1.0, 2};
  e2_ = add_head(spec, {"e2"});
  return e2_;
}

std::vector<int> Compiler::support(const Val& v) const {
  std::vector<int> s;
  if (v.type == Type::kBool) return {0, 1};
  for (const auto& entry : v.sym) s.push_back(entry.first);
  return s;
}

Lin Compiler::literal(const Val& v, int value) const {
  if (v.type == Type::kBool) return value ? v.lin : negate(v.lin);
  return v.sym.at(value);
}

std::vector<Lin> Compiler::rows(const Val& v) const {
  if (v.type != Type::kSym) return {v.lin};
  std::vector<Lin> r;
  for (const auto& entry : v.sym) r.push_back(entry.second);
  return r;
}

// A Val of the same shape as `shape` whose rows are the given coordinates.
Val Compiler::outputs(const Val& shape, const std::vector<int>& coords) const {
  Val v;
  v.type = shape.type;
  v.range = shape.range;
  if (shape.type != Type::kSym) {
    v.lin = {{coords.at(0), 1.0}};
    return v;
  }
  std::size_t r = 0;
  for (const auto& entry : shape.sym) v.sym[entry.first] = {{coords.at(r++), 1.0}};
  return v;
}


Val Compiler::eval(const Expr& e) {
  using K = Expr::Kind;
  if (is_logic(e) && e.kind != K::kBool && e.kind != K::kSym) return logic(e, false);
  Val v;
  v.type = e.type;
  switch (e.kind) {
    case K::kInt: v.lin = constant(static_cast<double>(e.number)); v.range = exactly(static_cast<double>(e.number)); return v;
    case K::kBool: v.lin = e.number ? one() : Lin{}; return v;
    case K::kSym: v.sym[sym_index(e.symbol)] = one(); return v;
    case K::kVar:
      if (e.var == Expr::kTok) {
        for (const auto& entry : tok_) v.sym[entry.first] = {{entry.second, 1.0}};
        return v;
      }
      if (e.var == Expr::kPos) {
        v.lin = {{g_, 1.0}, {e_, -1.0}};
        v.range = Range{Aff{0, 0}, Aff{-1, 1}};
        return v;
      }
      if (e.var < 0) refuse("n is read only in the padding polynomial");
      return vals_[static_cast<std::size_t>(e.var)];
    case K::kNot: {
      const Val a = eval(e.args[0]);
      v.lin = negate(a.lin);
      return v;
    }
    case K::kNeg: {
      const Val a = eval(e.args[0]);
      v.lin = lin_scale(a.lin, -1.0);
      v.range = range_add(exactly(0), a.range, -1.0);
      return v;
    }
    case K::kAdd: case K::kSub: {
      const Val a = eval(e.args[0]), b = eval(e.args[1]);
      const double s = e.kind == K::kAdd ? 1.0 : -1.0;
      v.lin = lin_add(a.lin, b.lin, s);
      v.range = range_add(a.range, b.range, s);
      return v;
    }
    case K::kMul: {
      const bool left = e.args[0].kind == K::kInt;
      const double c = static_cast<double>(e.args[left ? 0 : 1].number);
      const Val a = eval(e.args[left ? 1 : 0]);
      v.lin = lin_scale(a.lin, c);
      v.range = range_add(exactly(0), a.range, c);
      return v;
    }
    case K::kEq: case K::kNe: case K::kLt: case K::kLe: case K::kGt: case K::kGe: return compare(e);
    case K::kIf: return int_if(e);
    default: refuse("an operation the compiler does not know");
  }
}

// x < y by a BOS duel on X - Y + e/2; the other comparisons from one or two duels.
Val Compiler::compare(const Expr& e) {
  using K = Expr::Kind;
  const Val a = eval(e.args[0]), b = eval(e.args[1]);
  Val v;
  v.type = Type::kBool;
  auto lt = [&](const Val& x, const Val& y) { return Lin{{less(x.lin, y.lin, "cmp"), 1.0}}; };
  switch (e.kind) {
    case K::kLt: v.lin = lt(a, b); break;
    case K::kGt: v.lin = lt(b, a); break;
    case K::kLe: v.lin = negate(lt(b, a)); break;
    case K::kGe: v.lin = negate(lt(a, b)); break;
    case K::kEq: v.lin = lin_add(negate(lt(a, b)), lt(b, a), -1.0); break;
    default: v.lin = lin_add(lt(a, b), lt(b, a)); break;
  }
  return v;
}

// An int `if` tree: one bounded multiplier per assignment of its conditions.
Val Compiler::int_if(const Expr& e) {
  std::vector<const Expr*> conds;
  std::vector<Val> cond_vals;
  std::function<void(const Expr&)> walk = [&](const Expr& x) {
    if (x.kind == Expr::Kind::kIf) {
      conds.push_back(&x.args[0]);
      cond_vals.push_back(eval(x.args[0]));
      walk(x.args[1]), walk(x.args[2]);
    } else if (x.kind == Expr::Kind::kAdd || x.kind == Expr::Kind::kSub || x.kind == Expr::Kind::kNeg ||
               x.kind == Expr::Kind::kMul) {
      for (const Expr& a : x.args) walk(a);
    }
  };
  walk(e);
  if (conds.size() > 12) refuse("an int expression with more than 12 conditions");
  std::vector<Val> branches;
  std::vector<std::vector<Lin>> literals;
  for (std::size_t mask = 0; mask < (std::size_t{1} << conds.size()); ++mask) {
    std::function<Val(const Expr&)> resolve = [&](const Expr& x) -> Val {
      if (x.kind == Expr::Kind::kIf) {
        const std::size_t c = static_cast<std::size_t>(std::find(conds.begin(), conds.end(), &x.args[0]) - conds.begin());
        return resolve(x.args[(mask >> c) & 1 ? 1 : 2]);
      }
      if (x.kind != Expr::Kind::kAdd && x.kind != Expr::Kind::kSub && x.kind != Expr::Kind::kNeg &&
          x.kind != Expr::Kind::kMul) {
        return eval(x);
      }
      Val v;
      v.type = Type::kInt;
      if (x.kind == Expr::Kind::kMul) {
        const bool left = x.args[0].kind == Expr::Kind::kInt;
        const double c = static_cast<double>(x.args[left ? 0 : 1].number);
        const Val a = resolve(x.args[left ? 1 : 0]);
        v.lin = lin_scale(a.lin, c), v.range = range_add(exactly(0), a.range, c);
      } else if (x.kind == Expr::Kind::kNeg) {
        const Val a = resolve(x.args[0]);
        v.lin = lin_scale(a.lin, -1.0), v.range = range_add(exactly(0), a.range, -1.0);
      } else {
        const Val a = resolve(x.args[0]), b = resolve(x.args[1]);
        const double s = x.kind == Expr::Kind::kAdd ? 1.0 : -1.0;
        v.lin = lin_add(a.lin, b.lin, s), v.range = range_add(a.range, b.range, s);
      }
      return v;
    };
    branches.push_back(resolve(e));
    std::vector<Lin> lits{real()};
    for (std::size_t c = 0; c < conds.size(); ++c) lits.push_back(literal(cond_vals[c], static_cast<int>((mask >> c) & 1)));
    literals.push_back(lits);
  }
  std::vector<Lin> all;
  for (std::size_t b = 0; b < branches.size(); ++b) {
    all.push_back(branches[b].lin);
    all.insert(all.end(), literals[b].begin(), literals[b].end());
  }
  for (const Val& b : branches) check_range(b, Aff{0, -kMultiplierRange / 2}, Aff{0, kMultiplierRange / 2}, "an if branch");
  const int layer = Layout::ffn_layer(ready(all));
  Val v;
  v.type = Type::kInt;
  const int out = lay_.ffn_output(layer, label("if"));
  v.lin = {{out, 1.0}};
  v.range = branches[0].range;
  for (std::size_t b = 0; b < branches.size(); ++b) {
    if (!branches[b].lin.empty()) mult_units(layer, branches[b].lin, literals[b], out);
    v.range = range_union(v.range, branches[b].range);
  }
  return v;
}

void Compiler::collect(const Expr& e, LogicFn& fn) {
  if (e.kind == Expr::Kind::kBool || e.kind == Expr::Kind::kSym) return;  // constants
  if (is_logic(e)) {
    for (const Expr& a : e.args) collect(a, fn);
    return;
  }
  fn.index[&e] = static_cast<int>(fn.atoms.size());
  fn.atoms.push_back(&e);
  fn.values.push_back(eval(e));
}

// The value (0/1, or a universe index) of a logic expression under an assignment of its atoms.
int Compiler::evaluate(const Expr& e, const LogicFn& fn, const std::vector<int>& assignment) {
  using K = Expr::Kind;
  const auto atom = fn.index.find(&e);
  if (atom != fn.index.end()) return assignment[static_cast<std::size_t>(atom->second)];
  switch (e.kind) {
    case K::kBool: return static_cast<int>(e.number);
    case K::kSym: return sym_index(e.symbol);
    case K::kNot: return 1 - evaluate(e.args[0], fn, assignment);
    case K::kAnd: return evaluate(e.args[0], fn, assignment) && evaluate(e.args[1], fn, assignment);
    case K::kOr: return evaluate(e.args[0], fn, assignment) || evaluate(e.args[1], fn, assignment);
    case K::kEq: return evaluate(e.args[0], fn, assignment) == evaluate(e.args[1], fn, assignment);
    case K::kNe: return evaluate(e.args[0], fn, assignment) != evaluate(e.args[1], fn, assignment);
    case K::kIf: return evaluate(e.args[evaluate(e.args[0], fn, assignment) ? 1 : 2], fn, assignment);
    case K::kConcat: {  // the product symbol of the two values (the interpreter's string concatenation)
      const int a = evaluate(e.args[0], fn, assignment), b = evaluate(e.args[1], fn, assignment);
      return sym_index(universe_[static_cast<std::size_t>(a)] + universe_[static_cast<std::size_t>(b)]);
    }
    default: return 0;  // not reached: every other node is an atom
  }
}

Val Compiler::logic(const Expr& e, bool key_side) {
  LogicFn fn;
  fn.root = &e;
  collect(e, fn);
  std::vector<int> free(fn.atoms.size());
  for (std::size_t a = 0; a < free.size(); ++a) free[a] = static_cast<int>(a);
  std::vector<Lin> extra;
  if (key_side) extra.push_back(real());
  return build_logic(fn, free, std::vector<int>(fn.atoms.size(), 0), extra, e.type);
}

// Units for the root over the `free` atoms (the others fixed in `assignment`),
// ANDed with the `extra` literals: exact 0/1 (or one-hot) outputs.
Val Compiler::build_logic(const LogicFn& fn, const std::vector<int>& free, std::vector<int> assignment,
                          std::vector<Lin> extra, Type type) {
  std::vector<std::vector<int>> supports;
  std::size_t count = 1;
  std::vector<Lin> all = extra;
  for (int a : free) {
    supports.push_back(support(fn.values[static_cast<std::size_t>(a)]));
    count *= supports.back().size();
    if (count > kMaxAssignments) refuse(fmt::format("a logic expression with more than {} cases", kMaxAssignments));
    for (int value : supports.back()) all.push_back(literal(fn.values[static_cast<std::size_t>(a)], value));
  }
  const int layer = Layout::ffn_layer(ready(all));
  Val v;
  v.type = type;
  int bool_out = -1;
  for (std::size_t k = 0; k < count; ++k) {
    std::size_t rest = k;
    std::vector<Lin> lits = extra;
    for (std::size_t f = 0; f < free.size(); ++f) {
      const int value = supports[f][rest % supports[f].size()];
      rest /= supports[f].size();
      assignment[static_cast<std::size_t>(free[f])] = value;
      lits.push_back(literal(fn.values[static_cast<std::size_t>(free[f])], value));
    }
    int r = 1;
    if (fn.conjuncts) {
      for (const Expr* c : *fn.conjuncts) r = r && evaluate(*c, fn, assignment);
    } else {
      r = evaluate(*fn.root, fn, assignment);
    }
    int out = -1;
    if (type == Type::kBool) {
      if (!r) continue;
      if (bool_out < 0) bool_out = lay_.ffn_output(layer, label("bool"));
      out = bool_out;
    } else {
      auto it = v.sym.find(r);
      if (it == v.sym.end()) it = v.sym.emplace(r, Lin{{lay_.ffn_output(layer, label(fmt::format("sym={}", shown(r)))), 1.0}}).first;
      out = it->second.begin()->first;
    }
    if (lits.empty()) lits.push_back(one());
    and_units(layer, lits, out);
  }
  if (type == Type::kBool && bool_out >= 0) v.lin = {{bool_out, 1.0}};
  return v;
}

// out = m ? raw : def with m = AND(literals); raw may be approximate (an attention output).
Val Compiler::merge(const Val& raw, const Val& def, const std::vector<Lin>& literals) {
  std::vector<Lin> all = rows(raw);
  for (const Lin& l : rows(def)) all.push_back(l);
  all.insert(all.end(), literals.begin(), literals.end());
  all.push_back(real());
  const int layer = Layout::ffn_layer(ready(all));
  Val v;
  v.type = raw.type;
  auto both = [&](const Lin& r, const Lin& d, int out) {
    if (!r.empty()) {
      std::vector<Lin> lits{r};
      lits.insert(lits.end(), literals.begin(), literals.end());
      and_units(layer, lits, out);
    }
    if (d.empty()) return;
    for (std::size_t k = 0; k < literals.size(); ++k) {  // d and not m: the k-th literal is the first false one
      std::vector<Lin> lits{d};
      lits.insert(lits.end(), literals.begin(), literals.begin() + static_cast<std::ptrdiff_t>(k));
      lits.push_back(negate(literals[k]));
      and_units(layer, lits, out);
    }
  };
  if (raw.type == Type::kBool) {
    const int out = lay_.ffn_output(layer, label("merge"));
    both(raw.lin, def.lin, out);
    v.lin = {{out, 1.0}};
  } else if (raw.type == Type::kSym) {
    std::set<int> symbols;
    for (const auto& entry : raw.sym) symbols.insert(entry.first);
    for (const auto& entry : def.sym) symbols.insert(entry.first);
    for (int s : symbols) {
      const int out = lay_.ffn_output(layer, label(fmt::format("sym={}", shown(s))));
      both(raw.sym.count(s) ? raw.sym.at(s) : Lin{}, def.sym.count(s) ? def.sym.at(s) : Lin{}, out);
      v.sym[s] = {{out, 1.0}};
    }
  } else {
    check_range(def, Aff{0, -kMultiplierRange / 4}, Aff{0, kMultiplierRange / 4}, "the default");
    const int out = lay_.ffn_output(layer, label("merge"));
    std::vector<Lin> lits = literals;
    lits.push_back(real());
    mult_units(layer, lin_add(raw.lin, def.lin, -1.0), lits, out);
    v.lin = lin_add(def.lin, {{out, 1.0}});
    v.range = range_union(raw.range, def.range);
  }
  return v;
}

// psum: a uniform causal head averages E_s = x_s/M over s <= t (A_t = S_t / (M(t+1))),
// then a retrieval head with score h_t (2 (S_t/M) g_s - g_s^2) returns g = S_t/M and g^2.
Val Compiler::psum(const Statement& st) {
  const Val x = eval(st.expr);
  int layer = Layout::ffn_layer(ready({x.lin, real(), {{e_, 1.0}}}));
  const int summand = lay_.ffn_output(layer, label("summand"));
  HeadSpec average{model::Mask::kFuture, {}, {}, {{{summand, 1.0}}}, {}, label("psum average"), 0, 0};
  std::vector<std::string> names{label("psum A")};
  if (x.type == Type::kBool) {  // b (.) e and isReal: ReLU(e + b + isReal - 2)
    lay_.layer(layer).units.push_back(Unit{lin_add({{e_, 1.0}}, lin_add(x.lin, real())), -2.0, {{summand, 1.0}}});
  } else {
    check_range(x, Aff{0, -kMultiplierRange / 2}, Aff{0, kMultiplierRange / 2}, "the summand");
    mult_units(layer, x.lin, {real()}, summand);
    if (bos_rest_ < 0) {  // (1 - e) isBOS and (e/2) isBOS: averaged, N/(M(t+1)) and 1/(2M(t+1))
      bos_rest_ = lay_.ffn_output(layer, "(1-e)isBOS");
      bos_half_ = lay_.ffn_output(layer, "(e/2)isBOS");
      lay_.layer(layer).units.push_back(Unit{{{bos_, 1.0}, {e_, -1.0}}, 0.0, {{bos_rest_, 1.0}}});
      lay_.layer(layer).units.push_back(Unit{{{bos_, 1.0}, {e_, 0.5}}, -1.0, {{bos_half_, 1.0}}});
    }
    average.v.push_back({{bos_rest_, 1.0}});
    average.v.push_back({{bos_half_, 1.0}});
    names.push_back(label("psum C")), names.push_back(label("psum D"));
  }
  const int a = add_head(average, names);
  HeadSpec retrieve{model::Mask::kNone,
                    {{{a, 2.0}}, {{h_, -1.0}}},
                    {{{g_, 1.0}}, {{g2_, 1.0}}},
                    {{{g_, 1.0}}, {{g2_, 1.0}}},
                    {},
                    label("psum retrieval"),
                    1.0,
                    3};
  const int sum = add_head(retrieve, {label("psum"), label("psum^2")});
  if (x.type == Type::kInt) {  // S < 0 iff A + D < 0; S > N iff C - A + D < 0 (gap 1/(2M(t+1)))
    flags_.push_back({duel({{a, 1.0}, {a + 2, 1.0}}, "psum < 0", 0.5, 2),
                      fmt::format("statement '{}': the prefix sum is negative", st.name)});
    flags_.push_back({duel({{a + 1, 1.0}, {a, -1.0}, {a + 2, 1.0}}, "psum > N", 0.5, 2),
                      fmt::format("statement '{}': the prefix sum exceeds N", st.name)});
  }
  Val v;
  v.type = Type::kInt;
  v.lin = {{sum, 1.0}};
  v.square = Lin{{sum + 1, 1.0}};
  v.range = Range{Aff{0, 0}, Aff{0, 1}};
  return v;
}

Val Compiler::select(const Statement& st) {
  std::vector<const Expr*> conj;
  flatten_and(st.score, conj);
  const Expr* equality = nullptr;
  std::vector<const Expr*> phi;
  for (const Expr* c : conj) {
    const bool cross = c->kind == Expr::Kind::kEq && c->args[0].type == Type::kInt &&
                       ((sides(c->args[0]) == 1 && sides(c->args[1]) == 2) ||
                        (sides(c->args[0]) == 2 && sides(c->args[1]) == 1));
    if (cross && !equality) equality = c;
    else phi.push_back(c);
  }
  if (!equality) return select_finite(st, phi);
  const bool query_left = sides(equality->args[0]) == 1;
  return select_equal(st, equality->args[query_left ? 0 : 1], equality->args[query_left ? 1 : 0], phi);
}

// (F): score phi(a_t, b_s) +- rho_s/2 with the BOS sentinel at 3/4 (rmost) or 1/4 (lmost); gap 1/(2M).
Val Compiler::select_finite(const Statement& st, const std::vector<const Expr*>& phi) {
  LogicFn fn;
  Expr truth;
  truth.kind = Expr::Kind::kBool, truth.type = Type::kBool, truth.number = 1;
  fn.root = &truth;
  fn.conjuncts = &phi;
  for (const Expr* c : phi) collect(*c, fn);
  std::vector<int> query, key;
  for (std::size_t a = 0; a < fn.atoms.size(); ++a) {
    const int s = sides(*fn.atoms[a]);
    if (s == 3) refuse("its score compares ints of [i] and [j] other than by one equality x[i] == y[j]");
    (s == 1 ? query : key).push_back(static_cast<int>(a));
  }
  HeadSpec spec;
  const model::Mask masks[] = {model::Mask::kNone, model::Mask::kStrictFuture, model::Mask::kFuture,
                               model::Mask::kStrictPast, model::Mask::kPast};
  spec.mask = masks[static_cast<int>(st.mask)];
  // Every assignment of the query atoms is one score row: its indicator against phi of it over the key atoms.
  std::size_t count = 1;
  for (int a : query) count *= support(fn.values[static_cast<std::size_t>(a)]).size();
  if (count > 256) refuse("its score has more than 256 cases on the [i] side");
  for (std::size_t k = 0; k < count; ++k) {
    std::vector<int> assignment(fn.atoms.size(), 0);
    std::vector<Lin> lits;
    std::size_t rest = k;
    for (int a : query) {
      const auto sup = support(fn.values[static_cast<std::size_t>(a)]);
      assignment[static_cast<std::size_t>(a)] = sup[rest % sup.size()];
      rest /= sup.size();
      lits.push_back(literal(fn.values[static_cast<std::size_t>(a)], assignment[static_cast<std::size_t>(a)]));
    }
    const Val kv = build_logic(fn, key, assignment, {real()}, Type::kBool);
    if (kv.lin.empty()) continue;  // phi is false for this row
    Lin indicator = lits.empty() ? one() : lits[0];
    if (lits.size() > 1) {
      const int layer = Layout::ffn_layer(ready(lits));
      const int c = lay_.ffn_output(layer, label("query case"));
      and_units(layer, lits, c);
      indicator = {{c, 1.0}};
    }
    spec.q.push_back(indicator);
    spec.k.push_back(kv.lin);
  }
  const bool right = st.dir == Dir::kRightmost;
  spec.q.push_back(lin_scale(one(), right ? 0.5 : -0.5));
  spec.k.push_back({{g_, 1.0}});
  spec.q.push_back(lin_scale(one(), right ? 0.75 : 0.25));
  spec.k.push_back({{bos_, 1.0}});
  const Val value = eval(st.value);
  if (value.type == Type::kInt) check_range(value, Aff{0, -kMultiplierRange / 4}, Aff{0, kMultiplierRange / 4}, "the value");
  spec.v = rows(value);
  spec.v.push_back({{bos_, 1.0}});
  spec.label = label(fmt::format("{} (finite score)", right ? "rmost" : "lmost"));
  spec.gap_coefficient = 0.5, spec.gap_power = 1;
  std::vector<std::string> names(spec.v.size(), label("value"));
  names.back() = label("sentinel");
  const int first = add_head(spec, names);
  std::vector<int> coords;
  for (std::size_t r = 0; r + 1 < spec.v.size(); ++r) coords.push_back(first + static_cast<int>(r));
  const int sentinel = first + static_cast<int>(spec.v.size()) - 1;
  return merge(outputs(value, coords), eval(st.expr), {negate({{sentinel, 1.0}})});
}

// (E): score 4 phi_s + 2 X_t Y_s - Y_s^2 (+- e^2 rho_s / 4 to break ties), which
// peaks where y = x; the value carries phi_s and Y_s, and two duels check the
// winner really matches (otherwise the default). Gap 1/M^2 for a key pos + c,
// else 1/(4M^3).
Val Compiler::select_equal(const Statement& st, const Expr& query, const Expr& key, const std::vector<const Expr*>& phi) {
  LogicFn fn;
  Expr truth;
  truth.kind = Expr::Kind::kBool, truth.type = Type::kBool, truth.number = 1;
  fn.root = &truth;
  fn.conjuncts = &phi;
  for (const Expr* c : phi) collect(*c, fn);
  std::vector<int> key_atoms;
  for (std::size_t a = 0; a < fn.atoms.size(); ++a) {
    if (sides(*fn.atoms[a]) != 2) {
      refuse("next to an equality x[i] == y[j], the rest of the score may read only [j]");
    }
    key_atoms.push_back(static_cast<int>(a));
  }
  const Lin k_phi = build_logic(fn, key_atoms, std::vector<int>(fn.atoms.size(), 0), {real()}, Type::kBool).lin;
  const Val x = eval(query), y = eval(key);
  Lin xq = x.lin, yk, ysq;
  const bool injective = y.lin.count(g_) && y.lin.at(g_) == 1.0 && y.lin.size() <= 2 &&
                         (y.lin.size() == 1 || y.lin.count(e_));
  if (injective) {  // y = pos + c: Y = g + k e, so compare X - k e with g, whose square is (j/(n+1))^2
    yk = {{g_, 1.0}}, ysq = {{g2_, 1.0}};
    if (y.lin.count(e_)) xq = lin_add(xq, {{e_, -y.lin.at(e_)}});
  } else if (y.square) {  // a prefix sum brings its square (and is 0 at BOS)
    yk = y.lin, ysq = *y.square;
  } else {
    check_range(y, Aff{0, 0}, Aff{0, 1}, "the key");
    HeadSpec lookup{model::Mask::kNone, {lin_scale(y.lin, 2.0), lin_scale(one(), -1.0)}, {{{g_, 1.0}}, {{g2_, 1.0}}},
                    {{{g2_, 1.0}}}, {}, label("square lookup"), 1.0, 2};
    const int sq = add_head(lookup, {label("key^2")});
    const int layer = Layout::ffn_layer(ready({y.lin, {{sq, 1.0}}, real()}));
    const int gy = lay_.ffn_output(layer, label("key")), gsq = lay_.ffn_output(layer, label("key^2 (real)"));
    mult_units(layer, y.lin, {real()}, gy);
    mult_units(layer, {{sq, 1.0}}, {real()}, gsq);
    yk = {{gy, 1.0}}, ysq = {{gsq, 1.0}};
  }
  HeadSpec spec;
  const model::Mask masks[] = {model::Mask::kNone, model::Mask::kStrictFuture, model::Mask::kFuture,
                               model::Mask::kStrictPast, model::Mask::kPast};
  spec.mask = masks[static_cast<int>(st.mask)];
  spec.q = {lin_scale(one(), 4.0), lin_scale(xq, 2.0), lin_scale(one(), -1.0)};
  spec.k = {k_phi, yk, ysq};
  const bool right = st.dir == Dir::kRightmost;
  if (!injective) {
    spec.q.push_back({{e_squared(), right ? 0.25 : -0.25}});
    spec.k.push_back({{g_, 1.0}});
  }
  const Val value = eval(st.value);
  if (value.type == Type::kInt) check_range(value, Aff{0, -kMultiplierRange / 4}, Aff{0, kMultiplierRange / 4}, "the value");
  spec.v = rows(value);
  spec.v.push_back(k_phi);
  spec.v.push_back(yk);
  spec.label = label(fmt::format("{} (equality score)", right ? "rmost" : "lmost"));
  spec.gap_coefficient = injective ? 1.0 : 0.25;
  spec.gap_power = injective ? 2 : 3;
  std::vector<std::string> names(spec.v.size(), label("value"));
  names[names.size() - 2] = label("phi of the winner"), names.back() = label("key of the winner");
  const int first = add_head(spec, names);
  std::vector<int> coords;
  for (std::size_t r = 0; r + 2 < spec.v.size(); ++r) coords.push_back(first + static_cast<int>(r));
  const Lin won_phi{{first + static_cast<int>(spec.v.size()) - 2, 1.0}};
  const Lin won_key{{first + static_cast<int>(spec.v.size()) - 1, 1.0}};
  const int below = less(won_key, xq, "winner < query"), above = less(xq, won_key, "winner > query");
  const Lin equal = lin_add(negate({{below, 1.0}}), {{above, 1.0}}, -1.0);
  return merge(outputs(value, coords), eval(st.expr), {won_phi, equal});
}

CompiledProgram Compiler::run() {
  setup();
  for (const Statement& st : p_.statements) {
    st_ = &st;
    switch (st.kind) {
      case Statement::Kind::kMap: vals_.push_back(eval(st.expr)); break;
      case Statement::Kind::kPsum: vals_.push_back(psum(st)); break;
      case Statement::Kind::kSelect: vals_.push_back(select(st)); break;
    }
    vals_.back().type = st.type;
  }
  st_ = nullptr;
  // The output, re-rounded into coordinates of its own (the transducer reads them).
  const Val& out = vals_[static_cast<std::size_t>(p_.output)];
  std::vector<Lin> all = rows(out);
  const int layer = Layout::ffn_layer(ready(all));
  Val copy;
  copy.type = Type::kSym;
  for (const auto& entry : out.sym) {
    const int c = lay_.ffn_output(layer, fmt::format("output:{}", shown(entry.first)));
    and_units(layer, {entry.second}, c);
    copy.sym[entry.first] = {{c, 1.0}};
  }
  return build(copy);
}

CompiledProgram Compiler::build(const Val& out) {
  CompiledProgram result;
  model::ModelConfig& cfg = result.model.config;
  cfg.alphabet = p_.alphabet + p_.pad_symbol;
  cfg.d_model = lay_.size();
  cfg.residual_labels = lay_.labels();
  using PF = model::PositionFeature;
  cfg.position_features = {PF{PF::Kind::kOne, 0}, PF{PF::Kind::kFraction, 0}, PF{PF::Kind::kFractionSquared, 0},
                           PF{PF::Kind::kInverse, 0}};
  model::TransducerReadout tr;
  bool strings = false;  // an output longer than one symbol: the readout lists strings
  for (const auto& entry : out.sym) strings = strings || universe_[static_cast<std::size_t>(entry.first)].size() != 1;
  for (const auto& entry : out.sym) {
    tr.coordinates.push_back(entry.second.begin()->first);
    if (strings) tr.strings.push_back(universe_[static_cast<std::size_t>(entry.first)]);
    else tr.symbols += universe_[static_cast<std::size_t>(entry.first)];
  }
  tr.default_symbol = p_.pad_symbol[0];
  cfg.readout.coordinate = tr.coordinates.at(0);
  cfg.transducer = tr;
  cfg.notes["program"] = p_.name;
  cfg.notes["construction"] = "S-RASP -> average-hard transformer (docs/srasp.md, The compiler)";
  for (const auto& spec : lay_.layers()) {
    model::LayerConfig lc;
    for (const HeadSpec& h : spec.heads) {
      lc.heads.push_back(model::HeadConfig{static_cast<int>(h.q.size()), static_cast<int>(h.v.size()), h.mask,
                                           model::HardKind::kAverage, h.label});
    }
    lc.ffn_hidden = static_cast<int>(spec.units.size());
    cfg.layers.push_back(lc);
  }
  model::Transformer::check_memory(cfg, max_memory_, fmt::format("program {}: the compiled transformer", p_.name));
  result.model = model::Transformer::zeros(cfg);
  model::Transformer& m = result.model;
  m.embed(0, bos_) = 1.0;
  for (std::size_t t = 0; t < cfg.alphabet.size(); ++t) m.embed(static_cast<int>(t) + 1, tok_.at(sym_index(std::string(1, cfg.alphabet[t])))) = 1.0;
  m.pos_proj(one_, 0) = 1.0, m.pos_proj(g_, 1) = 1.0, m.pos_proj(g2_, 2) = 1.0, m.pos_proj(h_, 3) = 1.0;
  for (std::size_t l = 0; l < lay_.layers().size(); ++l) {
    const auto& spec = lay_.layers()[l];
    auto& w = m.layers[l];
    for (std::size_t hi = 0; hi < spec.heads.size(); ++hi) {
      const HeadSpec& h = spec.heads[hi];
      auto fill = [](model::Matrix& mat, const std::vector<Lin>& rows) {
        for (std::size_t r = 0; r < rows.size(); ++r) {
          for (const auto& entry : rows[r]) mat(static_cast<int>(r), entry.first) += entry.second;
        }
      };
      fill(w.heads[hi].q, h.q), fill(w.heads[hi].k, h.k), fill(w.heads[hi].v, h.v);
      for (std::size_t r = 0; r < h.out.size(); ++r) w.heads[hi].o(h.out[r], static_cast<int>(r)) = 1.0;
      result.gaps.push_back(HeadGap{static_cast<int>(l), static_cast<int>(hi), h.label, h.gap_coefficient, h.gap_power});
    }
    for (std::size_t u = 0; u < spec.units.size(); ++u) {
      for (const auto& entry : spec.units[u].in) w.fc1(static_cast<int>(u), entry.first) += entry.second;
      w.b1(static_cast<int>(u)) = spec.units[u].bias;
      for (const auto& [c, weight] : spec.units[u].out) w.fc2(c, static_cast<int>(u)) += weight;
    }
  }
  result.flags = flags_;
  result.pad_symbol = p_.pad_symbol;
  model::ProgramIo io;
  if (p_.pad) io.pad = pad_coefficients(*p_.pad);
  io.pad_symbol = p_.pad_symbol[0];
  for (const RangeFlag& f : flags_) io.range_flags.push_back({f.coordinate, f.what});
  result.model.config.program = io;
  result.model.config.beta = scheduled_beta(result);
  m.config.validate();
  return result;
}

}  // namespace

double HeadGap::at(std::int64_t padded) const {
  if (coefficient == 0) return std::numeric_limits<double>::infinity();
  return coefficient / std::pow(static_cast<double>(padded + 1), power);
}

double CompiledProgram::min_gap(std::int64_t padded) const {
  double g = std::numeric_limits<double>::infinity();
  for (const HeadGap& h : gaps) g = std::min(g, h.at(padded));
  return g;
}

model::BetaSchedule scheduled_beta(const CompiledProgram& compiled) {
  // gamma(N) >= c_min / M^p_max for every N (each head's c/M^p is at least that), so
  // beta = 8 ln(M) / gamma covers ln(2(M-1) V / eps) with V = 1, eps = 1/4 (§4.5, step 3).
  double c_min = std::numeric_limits<double>::infinity();
  int p_max = 0;
  for (const HeadGap& h : compiled.gaps) {
    if (h.coefficient == 0) continue;
    c_min = std::min(c_min, h.coefficient);
    p_max = std::max(p_max, h.power);
  }
  if (!std::isfinite(c_min)) return model::BetaSchedule{1.0, 0.0, 0.0};
  return model::BetaSchedule{8.0 / c_min, static_cast<double>(p_max), 1.0};
}

CompiledProgram compile_program(const Program& program, std::size_t max_memory) {
  return Compiler(program, max_memory).run();
}

std::string describe_plan(const Program& program, const CompiledProgram& compiled) {
  const model::ModelConfig& cfg = compiled.model.config;
  std::size_t heads = 0, uniform = 0, units = 0;
  for (const auto& l : cfg.layers) heads += l.heads.size(), units += static_cast<std::size_t>(l.ffn_hidden);
  for (const HeadGap& g : compiled.gaps) uniform += g.coefficient == 0;
  std::string out = fmt::format(
      "{}: {} -> average-hard transformer: {} layers, {} heads ({} uniform), width {}, {} FFN units, {} parameters\n",
      program.name, fragment_name(program.fragment), cfg.layers.size(), heads, uniform, cfg.d_model, units,
      model::Transformer::parameter_count(cfg));
  if (program.pad) {
    std::vector<std::string> terms;
    for (std::size_t k = 0; k < cfg.program->pad.size(); ++k) {
      if (cfg.program->pad[k] != 0) terms.push_back(fmt::format("{}*n^{}", cfg.program->pad[k], k));
    }
    out += fmt::format("  input: w followed by pad(n) = {} copies of '{}'\n", fmt::join(terms, " + "),
                       sym::encode(compiled.pad_symbol));
  }
  const bool strings = cfg.transducer && !cfg.transducer->strings.empty();
  out += fmt::format("  output: one {} per position, '{}' dropped; {} range flags\n",
                     strings ? fmt::format("of {} strings (concat's product symbols)", cfg.transducer->strings.size())
                             : "symbol",
                     sym::encode(compiled.pad_symbol), compiled.flags.size());
  const model::BetaSchedule beta = cfg.beta;
  out += fmt::format("  beta(N) = {} (8 ln M / gamma(N), M = N + 1); gamma(N) at N = 10, 100, 1000: {:.3g}, {:.3g}, {:.3g}\n",
                     beta.describe(), compiled.min_gap(10), compiled.min_gap(100), compiled.min_gap(1000));
  out += "  layer head  mask           gap            label\n";
  for (std::size_t l = 0; l < cfg.layers.size(); ++l) {
    for (std::size_t h = 0; h < cfg.layers[l].heads.size(); ++h) {
      const auto& hc = cfg.layers[l].heads[h];
      const auto it = std::find_if(compiled.gaps.begin(), compiled.gaps.end(), [&](const HeadGap& g) {
        return g.layer == static_cast<int>(l) && g.head == static_cast<int>(h);
      });
      const std::string gap = it->coefficient == 0 ? "uniform" : fmt::format("{:g}/M^{}", it->coefficient, it->power);
      out += fmt::format("  {:>5} {:>4}  {:<14} {:<14} {}\n", l, h, model::mask_name(hc.mask), gap, hc.label);
    }
    if (cfg.layers[l].ffn_hidden > 0) out += fmt::format("  {:>5}  ffn  {} units\n", l, cfg.layers[l].ffn_hidden);
  }
  for (const RangeFlag& f : compiled.flags) out += fmt::format("  range flag: {}\n", f.what);
  return out;
}

std::string exact_transduction(const model::ExactAhat& ahat, const model::ModelConfig& config, std::string_view word,
                               model::ExactRun* run) {
  model::ExactRun r = ahat.run(model::program_input(config, word));
  model::RunResult result;
  result.output = model::read_transduction(*config.transducer, r.states);
  model::program_output(config, r.states, result);
  if (run) *run = std::move(r);
  return *result.output;
}

}  // namespace softhat::rasp
