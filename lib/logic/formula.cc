#include "logic/formula.h"

#include <algorithm>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <vector>

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

}  // namespace

// Hash-consing table. It holds no references: a node is in the table exactly
// while some handle to it exists, and the table owns nothing else.
//
// Thread safety. A node's count changes in three places:
//  - a copy of a handle increments it (Formula's copy constructor, no lock);
//  - a lookup that finds the node increments it, under mu_;
//  - dropping a handle decrements it: without the lock while the count stays
//    at least 1 (~Formula's fast path, a compare-exchange that never goes
//    below 1), and otherwise here, under mu_.
// So the count goes from 1 to 0 only under mu_, and release_last erases the
// node from the table in the same critical section. Hence a node found in the
// table always has a count of at least 1, and a lookup can take a reference
// to it safely; a lookup that revives the node before the releasing thread
// gets mu_ makes that thread's decrement end at 1, not 0 (the re-check is
// the decrement itself, done under the lock), and the node stays. Once the
// count is 0 under mu_ no handle exists and none can be made (copies need a
// handle, lookups need mu_, and the node is no longer in the table), so the
// releasing thread owns the node and may free it after unlocking. Exactly one
// thread sees the 0. The fast path decrements with release order and the
// final decrement is acquire-release, so the freeing thread happens after
// every other thread's last use of the node (all the decrements are
// read-modify-writes of one release sequence).
//
// Freeing a node drops its operands' handles, which may free them in turn:
// this is done with a work list rather than by recursive destructors, so a
// deep formula cannot overflow the stack, and without holding mu_ (the
// operands' releases take it again).
//
// The Interner itself is never destroyed: handles in static objects are
// released during exit, after function-local statics may be gone.
class Interner {
 public:
  Formula intern(Node node) {
    std::size_t h = mix(static_cast<std::size_t>(node.op), static_cast<unsigned char>(node.letter));
    h = mix(h, static_cast<std::size_t>(node.m));
    h = mix(h, static_cast<std::size_t>(node.r));
    h = mix(h, static_cast<std::size_t>(node.cmp));
    // Ids of live nodes are unique and the operands are alive (node holds
    // them), so hashing ids is sound even though ids are reused.
    for (const Formula& k : node.kids) h = mix(h, k->id);
    h = hash_term(hash_term(h, node.lhs), node.rhs);
    node.hash = h;
    std::unique_lock<std::mutex> lock(mu_);
    auto [lo, hi] = table_.equal_range(h);
    for (auto it = lo; it != hi; ++it) {
      if (same_shallow(*it->second, node)) {
        // Its count is at least 1 (see above): take a reference.
        it->second->refs.count.fetch_add(1, std::memory_order_relaxed);
        Formula found(it->second, Formula::Adopt{});
        lock.unlock();
        return found;  // `node` (a duplicate of the found one) is destroyed unlocked
      }
    }
    if (free_ids_.empty()) {
      node.id = next_id_++;
    } else {
      node.id = free_ids_.back();
      free_ids_.pop_back();
    }
    Node* stored = new Node(std::move(node));
    stored->refs.count.store(1, std::memory_order_relaxed);  // the handle returned
    table_.emplace(h, stored);
    return Formula(stored, Formula::Adopt{});
  }

  // The slow path of ~Formula: the handle's count was 1 when last read.
  void release_last(const Node* node) {
    std::vector<const Node*> dead;
    if (drop(node)) dead.push_back(node);
    while (!dead.empty()) {
      const Node* d = dead.back();
      dead.pop_back();
      // Take the operands' handles out, so that deleting the node does not
      // release them recursively.
      std::vector<Formula> operands = std::move(const_cast<Node*>(d)->kids);
      for (Term* t : {&const_cast<Node*>(d)->lhs, &const_cast<Node*>(d)->rhs}) {
        for (auto& p : t->counts) operands.push_back(std::move(p.second));
      }
      delete d;
      for (Formula& k : operands) {
        const Node* kn = k.detach();
        if (drop_one(kn)) dead.push_back(kn);
      }
    }
  }

  std::size_t live() {
    std::lock_guard<std::mutex> lock(mu_);
    return table_.size();
  }

 private:
  // Drops one reference to `node`: the fast path of ~Formula, then drop().
  // True if that was the last and the node is now the caller's to delete.
  bool drop_one(const Node* node) {
    std::uint32_t n = node->refs.count.load(std::memory_order_relaxed);
    while (n > 1) {
      if (node->refs.count.compare_exchange_weak(n, n - 1, std::memory_order_release,
                                                 std::memory_order_relaxed)) {
        return false;
      }
    }
    return drop(node);
  }

  // Drops one reference under mu_; if none is left, removes the node from the
  // table (and frees its id) and returns true.
  bool drop(const Node* node) {
    std::lock_guard<std::mutex> lock(mu_);
    if (node->refs.count.fetch_sub(1, std::memory_order_acq_rel) != 1) return false;  // revived
    auto [lo, hi] = table_.equal_range(node->hash);
    for (auto it = lo; it != hi; ++it) {
      if (it->second == node) {
        table_.erase(it);
        break;
      }
    }
    free_ids_.push_back(node->id);
    return true;
  }

  std::mutex mu_;
  std::unordered_multimap<std::size_t, const Node*> table_;
  std::uint32_t next_id_ = 0;
  std::vector<std::uint32_t> free_ids_;
};

namespace {

Interner& interner() {
  static Interner* instance = new Interner();  // never destroyed: handles outlive statics
  return *instance;
}

int three_way(std::int64_t a, std::int64_t b) { return a < b ? -1 : a > b ? 1 : 0; }

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
  for (const Formula& k : n.kids) {
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
  for (Formula& f : operands) {
    if (!f.valid()) throw std::invalid_argument("invalid operand");
    if (f->op == op) {
      flat.insert(flat.end(), f->kids.begin(), f->kids.end());
    } else {
      flat.push_back(std::move(f));
    }
  }
  for (const Formula& f : flat) {
    if (is_and ? is_false(f) : is_true(f)) return make_bool(!is_and);  // absorbing constant
  }
  std::erase_if(flat, [&](const Formula& f) { return is_and ? is_true(f) : is_false(f); });  // neutral
  // Canonical order, so that a & b and b & a are one node; duplicates end up
  // adjacent. The order is structural, not by id or address, so the operands
  // (and so the printed formula) do not depend on what was built before.
  std::sort(flat.begin(), flat.end(),
            [](const Formula& a, const Formula& b) { return structural_compare(a, b) < 0; });
  flat.erase(std::unique(flat.begin(), flat.end()), flat.end());
  if (flat.empty()) return make_bool(is_and);
  if (flat.size() == 1) return flat.front();
  return make(op, std::move(flat));
}

}  // namespace

namespace detail {
void release_last(const Node* node) { interner().release_last(node); }
}  // namespace detail

std::size_t live_nodes() { return interner().live(); }

int structural_compare(const Formula& fa, const Formula& fb) {
  const Node* a = fa.get();
  const Node* b = fb.get();
  if (!a || !b) return a ? 1 : b ? -1 : 0;  // an invalid handle sorts first
  // Two distinct nodes differ in a field or in an operand (hash-consing makes
  // structurally equal formulas one node), so this walk always ends at a
  // difference. It descends into the first differing operand only, so it is
  // a loop, not a recursion, and deep formulas cannot overflow the stack.
  while (a != b) {
    if (a->op != b->op) return a->op < b->op ? -1 : 1;
    if (a->letter != b->letter) {
      // As unsigned bytes, so the order does not depend on char's signedness.
      return static_cast<unsigned char>(a->letter) < static_cast<unsigned char>(b->letter) ? -1 : 1;
    }
    if (int c = three_way(a->m, b->m)) return c;
    if (int c = three_way(a->r, b->r)) return c;
    if (a->cmp != b->cmp) return a->cmp < b->cmp ? -1 : 1;
    if (a->kids.size() != b->kids.size()) return a->kids.size() < b->kids.size() ? -1 : 1;
    const Node* next_a = nullptr;
    const Node* next_b = nullptr;
    for (std::size_t i = 0; i < a->kids.size() && !next_a; ++i) {
      if (a->kids[i] != b->kids[i]) {
        next_a = a->kids[i].get();
        next_b = b->kids[i].get();
      }
    }
    for (auto [ta, tb] : {std::pair{&a->lhs, &b->lhs}, std::pair{&a->rhs, &b->rhs}}) {
      if (next_a) break;
      if (int c = three_way(ta->constant, tb->constant)) return c;
      if (ta->counts.size() != tb->counts.size()) return ta->counts.size() < tb->counts.size() ? -1 : 1;
      for (std::size_t i = 0; i < ta->counts.size() && !next_a; ++i) {
        if (int c = three_way(ta->counts[i].first, tb->counts[i].first)) return c;
        if (ta->counts[i].second != tb->counts[i].second) {
          next_a = ta->counts[i].second.get();
          next_b = tb->counts[i].second.get();
        }
      }
    }
    if (!next_a) break;  // unreachable for interned nodes (they would be one node)
    a = next_a;
    b = next_b;
  }
  return 0;
}

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
  if (structural_compare(b, a) < 0) std::swap(a, b);  // a <-> b and b <-> a are one node
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
