#include "logic/formula.h"

#include <algorithm>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace softhat::logic {
namespace {

std::size_t mix(std::size_t seed, std::size_t v) {
  return seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

std::size_t hash_term(std::size_t h, const Term& t) {
  h = mix(h, static_cast<std::size_t>(t.constant));
  for (const auto& [c, f] : t.counts) {
    h = mix(h, static_cast<std::size_t>(c));
    h = mix(h, f->id);
  }
  return mix(h, t.counts.size());
}

bool same_shallow(const Node& a, const Node& b) {
  return a.op == b.op && a.letter == b.letter && a.m == b.m && a.r == b.r && a.cmp == b.cmp &&
         a.kids == b.kids && a.lhs == b.lhs && a.rhs == b.rhs;
}

// Hash-consing table. Nodes live as long as the process (formulas are small
// and shared; a deque keeps their addresses stable).
class Interner {
 public:
  Formula intern(Node node) {
    std::size_t h = mix(static_cast<std::size_t>(node.op), static_cast<unsigned char>(node.letter));
    h = mix(h, static_cast<std::size_t>(node.m));
    h = mix(h, static_cast<std::size_t>(node.r));
    h = mix(h, static_cast<std::size_t>(node.cmp));
    for (Formula k : node.kids) h = mix(h, k->id);
    h = hash_term(hash_term(h, node.lhs), node.rhs);
    node.hash = h;
    std::lock_guard<std::mutex> lock(mu_);
    auto [lo, hi] = table_.equal_range(h);
    for (auto it = lo; it != hi; ++it) {
      if (same_shallow(*it->second, node)) return Formula(it->second);
    }
    node.id = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back(std::move(node));
    const Node* stored = &nodes_.back();
    table_.emplace(h, stored);
    return Formula(stored);
  }

 private:
  std::mutex mu_;
  std::deque<Node> nodes_;
  std::unordered_multimap<std::size_t, const Node*> table_;
};

Interner& interner() {
  static Interner* instance = new Interner();  // never destroyed: handles outlive statics
  return *instance;
}

std::uint8_t op_bits(Op op) {
  if (is_past(op) || op == Op::kFirst) return kPastBit;
  if (is_future(op) || op == Op::kLast) return kFutureBit;
  if (op == Op::kMod) return kModBit;
  if (op == Op::kCompare) return kCountBit;
  return 0;
}

Formula make(Op op, std::vector<Formula> kids) {
  Node n;
  n.op = op;
  n.kids = std::move(kids);
  n.bits = op_bits(op);
  n.depth = 1;
  for (Formula k : n.kids) {
    n.bits |= k->bits;
    n.depth = std::max(n.depth, k->depth + 1);
  }
  return interner().intern(std::move(n));
}

bool is_true(Formula f) { return f->op == Op::kTrue; }
bool is_false(Formula f) { return f->op == Op::kFalse; }

Formula make_nary(Op op, std::vector<Formula> operands) {
  const bool is_and = op == Op::kAnd;
  std::vector<Formula> flat;
  std::unordered_set<Formula> seen;
  auto add = [&](Formula f) {
    if (seen.insert(f).second) flat.push_back(f);
  };
  for (Formula f : operands) {
    if (!f.valid()) throw std::invalid_argument("invalid operand");
    if (f->op == op) {
      for (Formula k : f->kids) add(k);
    } else {
      add(f);
    }
  }
  std::vector<Formula> kept;
  for (Formula f : flat) {
    if (is_and ? is_false(f) : is_true(f)) return make_bool(!is_and);  // absorbing constant
    if (is_and ? is_true(f) : is_false(f)) continue;                   // neutral constant
    kept.push_back(f);
  }
  if (kept.empty()) return make_bool(is_and);
  if (kept.size() == 1) return kept.front();
  return make(op, std::move(kept));
}

}  // namespace

bool is_past(Op op) {
  return op == Op::kYesterday || op == Op::kOnce || op == Op::kHistorically || op == Op::kSince;
}
bool is_future(Op op) {
  return op == Op::kNext || op == Op::kEventually || op == Op::kGlobally || op == Op::kUntil;
}
bool is_temporal(Op op) { return is_past(op) || is_future(op); }

Formula make_true() { return make(Op::kTrue, {}); }
Formula make_false() { return make(Op::kFalse, {}); }
Formula make_bool(bool value) { return value ? make_true() : make_false(); }
Formula first() { return make(Op::kFirst, {}); }
Formula last() { return make(Op::kLast, {}); }

Formula letter(char symbol) {
  Node n;
  n.op = Op::kLetter;
  n.letter = symbol;
  return interner().intern(std::move(n));
}

Formula mod(std::int64_t m, std::int64_t r) {
  if (m < 1 || r < 0 || r >= m) throw std::invalid_argument("mod(m,r) needs m >= 1 and 0 <= r < m");
  if (m == 1) return make_true();  // every i satisfies i mod 1 = 0
  Node n;
  n.op = Op::kMod;
  n.m = m;
  n.r = r;
  n.bits = kModBit;
  return interner().intern(std::move(n));
}

Formula not_(Formula f) {
  if (is_true(f)) return make_false();
  if (is_false(f)) return make_true();
  if (f->op == Op::kNot) return f->kids[0];
  return make(Op::kNot, {f});
}

Formula and_(std::vector<Formula> operands) { return make_nary(Op::kAnd, std::move(operands)); }
Formula or_(std::vector<Formula> operands) { return make_nary(Op::kOr, std::move(operands)); }
Formula and_(Formula a, Formula b) { return and_(std::vector<Formula>{a, b}); }
Formula or_(Formula a, Formula b) { return or_(std::vector<Formula>{a, b}); }

Formula implies(Formula a, Formula b) {
  if (is_true(a)) return b;
  if (is_false(a) || is_true(b)) return make_true();
  if (is_false(b)) return not_(a);
  if (a == b) return make_true();
  return make(Op::kImplies, {a, b});
}

Formula iff(Formula a, Formula b) {
  if (is_true(a)) return b;
  if (is_true(b)) return a;
  if (is_false(a)) return not_(b);
  if (is_false(b)) return not_(a);
  if (a == b) return make_true();
  return make(Op::kIff, {a, b});
}

// Folding below is valid at every position and at the point 0 of the empty
// word: Y/O/S/X/F/U of false is false everywhere; H/G of true is true.
Formula yesterday(Formula f) { return is_false(f) ? f : make(Op::kYesterday, {f}); }
Formula once(Formula f) { return is_false(f) ? f : make(Op::kOnce, {f}); }
Formula historically(Formula f) { return is_true(f) ? f : make(Op::kHistorically, {f}); }
Formula since(Formula guard, Formula event) {
  if (is_false(event)) return event;
  if (is_false(guard)) return yesterday(event);  // false S psi == Y psi
  if (is_true(guard)) return once(event);        // true S psi == O psi
  return make(Op::kSince, {guard, event});
}
Formula next(Formula f) { return is_false(f) ? f : make(Op::kNext, {f}); }
Formula eventually(Formula f) { return is_false(f) ? f : make(Op::kEventually, {f}); }
Formula globally(Formula f) { return is_true(f) ? f : make(Op::kGlobally, {f}); }
Formula until(Formula guard, Formula event) {
  if (is_false(event)) return event;
  if (is_false(guard)) return next(event);
  if (is_true(guard)) return eventually(event);
  return make(Op::kUntil, {guard, event});
}

Term normalize(Term t) {
  Term out;
  out.constant = t.constant;
  for (const auto& [c, f] : t.counts) {
    if (is_false(f)) continue;  // #false == 0
    const Formula g = f;  // (clang 14 lambdas cannot capture structured bindings)
    auto it = std::find_if(out.counts.begin(), out.counts.end(),
                           [&](const auto& p) { return p.second == g; });
    if (it == out.counts.end()) {
      out.counts.emplace_back(c, f);
    } else {
      it->first += c;
    }
  }
  std::erase_if(out.counts, [](const auto& p) { return p.first == 0; });
  return out;
}


Formula compare(Term lhs, Cmp cmp, Term rhs) {
  lhs = normalize(std::move(lhs));
  rhs = normalize(std::move(rhs));
  if (lhs.is_constant() && rhs.is_constant()) {
    return make_bool(compare_ints<std::int64_t>(lhs.constant, cmp, rhs.constant));
  }
  if (lhs == rhs) return make_bool(compare_ints<std::int64_t>(0, cmp, 0));
  Node n;
  n.op = Op::kCompare;
  n.cmp = cmp;
  n.bits = kCountBit;
  n.depth = 1;
  for (const Term* t : {&lhs, &rhs}) {
    for (const auto& [c, f] : t->counts) {
      n.bits |= f->bits;
      n.depth = std::max(n.depth, f->depth + 1);
    }
  }
  n.lhs = std::move(lhs);
  n.rhs = std::move(rhs);
  return interner().intern(std::move(n));
}

std::vector<Formula> subformulas(Formula root) {
  // Iterative post-order so that deep formulas cannot overflow the stack.
  std::vector<Formula> order;
  std::unordered_set<Formula> done;
  std::vector<std::pair<Formula, bool>> stack{{root, false}};
  while (!stack.empty()) {
    auto [f, expanded] = stack.back();
    stack.pop_back();
    if (done.count(f)) continue;
    if (expanded) {
      done.insert(f);
      order.push_back(f);
      continue;
    }
    stack.emplace_back(f, true);
    std::vector<Formula> children = f->kids;
    for (const Term* t : {&f->lhs, &f->rhs}) {
      for (const auto& p : t->counts) children.push_back(p.second);
    }
    for (auto it = children.rbegin(); it != children.rend(); ++it) {
      if (!done.count(*it)) stack.emplace_back(*it, false);
    }
  }
  return order;
}

Fragment fragment(Formula f) {
  const std::uint8_t b = f->bits;
  if (b & kCountBit) return Fragment::kCounting;
  if (b & kModBit) return Fragment::kLtlMod;
  if ((b & kPastBit) && (b & kFutureBit)) return Fragment::kLtl;
  if (b & kPastBit) return Fragment::kPastLtl;
  if (b & kFutureBit) return Fragment::kFutureLtl;
  return Fragment::kBoolean;
}

const char* fragment_name(Fragment f) {
  switch (f) {
    case Fragment::kBoolean: return "boolean";
    case Fragment::kPastLtl: return "past LTL";
    case Fragment::kFutureLtl: return "future LTL";
    case Fragment::kLtl: return "LTL";
    case Fragment::kLtlMod: return "LTL+mod";
    case Fragment::kCounting: return "counting";
  }
  return "?";
}

const char* cmp_symbol(Cmp c) {
  switch (c) {
    case Cmp::kLt: return "<";
    case Cmp::kLe: return "<=";
    case Cmp::kGt: return ">";
    case Cmp::kGe: return ">=";
    case Cmp::kEq: return "=";
    case Cmp::kNe: return "!=";
  }
  return "?";
}

}  // namespace softhat::logic
