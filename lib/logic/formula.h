// The formula AST of softhat's formula language (docs/formula-language.md).
//
// A Formula is a counted handle to an immutable, hash-consed node: two
// formulas are structurally equal iff their handles are equal, so a
// subformula shared by several parents is one node (the compiler computes it
// once). Nodes are only built by the factories below, which normalize trivial
// cases (constants are folded, nested conjunctions/disjunctions flattened,
// duplicate operands removed, double negation cancelled, the operands of the
// commutative &, | and <-> put in a canonical order) and compute the fragment
// bits (past, future, counting, mod) at construction, as Spot's formula
// factory does. As in Spot, a node lives while a handle to it does (its
// parents hold handles to it): when the last handle goes, the node leaves the
// intern table and is freed, so no process-wide state outlives its use.
//
// Conventions fixed here: temporal operators are strict; in `since(guard,
// event)` and `until(guard, event)` the guard comes first and the event second
// (`a S b` is since(a, b)). Counting terms are integer linear combinations
// sum_k c_k * #phi_k + c_0, where #phi counts positions j <= i where phi holds.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace softhat::logic {

enum class Op : std::uint8_t {
  kTrue,
  kFalse,
  kLetter,
  kFirst,
  kLast,
  kMod,
  kNot,
  kAnd,
  kOr,
  kImplies,
  kIff,
  kYesterday,     // Y: previous position
  kOnce,          // O: some earlier position
  kHistorically,  // H: every earlier position
  kSince,         // guard S event
  kNext,          // X
  kEventually,    // F
  kGlobally,      // G
  kUntil,         // guard U event
  kCompare,       // term cmp term
};

enum class Cmp : std::uint8_t { kLt, kLe, kGt, kGe, kEq, kNe };

// Fragment bits, computed at construction.
enum FragmentBits : std::uint8_t {
  kPastBit = 1,
  kFutureBit = 2,
  kCountBit = 4,
  kModBit = 8,
};

// The smallest fragment of the contract a formula belongs to.
enum class Fragment { kBoolean, kPastLtl, kFutureLtl, kLtl, kLtlMod, kCounting };

struct Node;

namespace detail {
void release_last(const Node* node);  // formula.cc: the slow path of ~Formula
}  // namespace detail

class Formula {
 public:
  Formula() = default;
  Formula(const Formula& other) noexcept;
  Formula(Formula&& other) noexcept : node_(std::exchange(other.node_, nullptr)) {}
  Formula& operator=(const Formula& other) noexcept {
    Formula(other).swap(*this);  // copy first: self-assignment keeps the node alive
    return *this;
  }
  Formula& operator=(Formula&& other) noexcept {
    Formula(std::move(other)).swap(*this);
    return *this;
  }
  ~Formula();

  void swap(Formula& other) noexcept { std::swap(node_, other.node_); }

  const Node& operator*() const { return *node_; }
  const Node* operator->() const { return node_; }
  // The node, for reading or as an identity while this handle is alive; a
  // pointer kept beyond the handle may dangle (and its address be reused).
  const Node* get() const { return node_; }
  bool valid() const { return node_ != nullptr; }

  friend bool operator==(const Formula& a, const Formula& b) { return a.node_ == b.node_; }
  friend bool operator!=(const Formula& a, const Formula& b) { return a.node_ != b.node_; }

 private:
  friend class Interner;
  // Adopts one reference the caller already counted (the intern table).
  struct Adopt {};
  Formula(const Node* node, Adopt) : node_(node) {}
  // Gives up the node without releasing its reference (iterative freeing).
  const Node* detach() { return std::exchange(node_, nullptr); }

  const Node* node_ = nullptr;
};

// sum of coefficient * #formula, plus a constant.
struct Term {
  std::vector<std::pair<std::int64_t, Formula>> counts;
  std::int64_t constant = 0;

  bool is_constant() const { return counts.empty(); }
  friend bool operator==(const Term& a, const Term& b) {
    return a.constant == b.constant && a.counts == b.counts;
  }
};

namespace detail {
// The reference count of a node. A copy of a Node (the factories build a
// candidate node by value before interning it) is another, unreferenced
// object, so copying does not copy the count.
class RefCount {
 public:
  RefCount() = default;
  RefCount(const RefCount&) noexcept {}
  RefCount& operator=(const RefCount&) noexcept { return *this; }

  mutable std::atomic<std::uint32_t> count{0};
};
}  // namespace detail

struct Node {
  Op op = Op::kTrue;
  char letter = 0;            // kLetter
  std::int64_t m = 0, r = 0;  // kMod
  Cmp cmp = Cmp::kEq;         // kCompare
  std::vector<Formula> kids;  // operands; for kSince/kUntil: {guard, event}
  Term lhs, rhs;              // kCompare
  // Unique among live nodes; the id of a freed node is given to a later one,
  // so whatever keys on ids must hold a Formula alongside. Not an order: the
  // canonical operand order is structural (formula.cc, structural_compare).
  std::uint32_t id = 0;
  std::size_t hash = 0;
  std::uint32_t depth = 1;  // nesting depth (a leaf has depth 1)
  std::uint8_t bits = 0;    // FragmentBits
  detail::RefCount refs;    // handles to this node (Formula and the nodes above it)
};

inline Formula::Formula(const Formula& other) noexcept : node_(other.node_) {
  // Relaxed suffices, as for shared_ptr: `other` holds a reference, so the
  // count cannot reach zero meanwhile, and nothing is published by the increment.
  if (node_) node_->refs.count.fetch_add(1, std::memory_order_relaxed);
}

inline Formula::~Formula() {
  if (!node_) return;
  // Fast path: while other handles remain, drop ours without the table's
  // mutex. The count never reaches zero here: the last reference is released
  // under the mutex (formula.cc, Interner::release_last explains why).
  std::uint32_t n = node_->refs.count.load(std::memory_order_relaxed);
  while (n > 1) {
    if (node_->refs.count.compare_exchange_weak(n, n - 1, std::memory_order_release,
                                                std::memory_order_relaxed)) {
      return;
    }
  }
  detail::release_last(node_);
}

// Factories. All return canonical (interned) formulas; thread-safe.
Formula make_true();
Formula make_false();
Formula make_bool(bool value);
Formula letter(char symbol);
Formula first();
Formula last();
Formula mod(std::int64_t m, std::int64_t r);  // requires m >= 1, 0 <= r < m
Formula not_(Formula f);
Formula and_(std::vector<Formula> operands);
Formula or_(std::vector<Formula> operands);
Formula and_(Formula a, Formula b);
Formula or_(Formula a, Formula b);
Formula implies(Formula a, Formula b);
Formula iff(Formula a, Formula b);
Formula yesterday(Formula f);
Formula once(Formula f);
Formula historically(Formula f);
Formula since(Formula guard, Formula event);
Formula next(Formula f);
Formula eventually(Formula f);
Formula globally(Formula f);
Formula until(Formula guard, Formula event);
Formula compare(Term lhs, Cmp cmp, Term rhs);

// Normalizes a term: merges equal counted formulas, drops zero coefficients.
Term normalize(Term t);

// The number of nodes alive in the intern table (for tests: a node is freed
// when its last handle goes).
std::size_t live_nodes();

// The canonical order of operands of &, | and <->: negative, zero or positive
// as `a` sorts before, equal to or after `b`. Structural (by operator, then
// letter, mod, comparison and operands from the left), so it does not depend
// on which formulas were built first; zero iff a == b.
int structural_compare(const Formula& a, const Formula& b);

// Every distinct subformula (counted formulas included), children before
// parents; the root is last.
std::vector<Formula> subformulas(Formula root);

// The integer comparison `a cmp b` (int64 in the factories, 128-bit in the evaluator).
template <typename Int>
bool compare_ints(Int a, Cmp cmp, Int b) {
  switch (cmp) {
    case Cmp::kLt: return a < b;
    case Cmp::kLe: return a <= b;
    case Cmp::kGt: return a > b;
    case Cmp::kGe: return a >= b;
    case Cmp::kEq: return a == b;
    case Cmp::kNe: return a != b;
  }
  return false;
}

Fragment fragment(Formula f);
const char* fragment_name(Fragment f);
const char* cmp_symbol(Cmp c);
bool is_temporal(Op op);
bool is_past(Op op);    // Y O H S
bool is_future(Op op);  // X F G U

}  // namespace softhat::logic

template <>
struct std::hash<softhat::logic::Formula> {
  std::size_t operator()(const softhat::logic::Formula& f) const noexcept {
    return std::hash<const void*>()(f.get());
  }
};
