// Formula nodes: freed with their last handle (no process-wide state outlives
// its use), canonical operand order of the commutative operators, and
// thread-safe sharing.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <vector>

#include "logic/formula.h"
#include "logic/parse.h"
#include "logic/print.h"

using namespace softhat::logic;

namespace {
// Moduli no other test uses, so these nodes are new when a test starts.
Formula fresh(std::int64_t k) { return mod(1'000'003 + k, 1); }
}  // namespace

TEST_CASE("formula nodes: freed when the last handle goes", "[logic][formula]") {
  const std::size_t before = live_nodes();
  {
    Formula a = fresh(0);
    CHECK(live_nodes() == before + 1);
    Formula copy = a;  // a second handle to the same node
    CHECK(live_nodes() == before + 1);
    a = Formula();
    CHECK(live_nodes() == before + 1);  // `copy` keeps it
  }
  CHECK(live_nodes() == before);

  // A parent holds its operands: they are freed with it, not before.
  Formula operand = fresh(1);
  {
    Formula parent = and_(operand, once(fresh(2)));  // & , O, and two mods
    CHECK(live_nodes() == before + 4);
    operand = Formula();
    CHECK(live_nodes() == before + 4);
    CHECK(parent->kids.size() == 2);
    CHECK(to_string(parent) == "mod(1000004,1) & O mod(1000005,1)");
  }
  CHECK(live_nodes() == before);

  // Counted formulas in a comparison are operands too.
  {
    Formula c = compare(Term{{{1, fresh(3)}}, 0}, Cmp::kGt, Term{{}, 2});
    CHECK(live_nodes() == before + 2);
  }
  CHECK(live_nodes() == before);
}

TEST_CASE("formula nodes: re-created after freeing, a node equals a fresh one", "[logic][formula]") {
  const std::size_t before = live_nodes();
  std::string printed, dumped;
  std::uint8_t bits = 0;
  std::uint32_t depth = 0;
  {
    const Formula f = since(fresh(4), and_(letter('a'), yesterday(fresh(5))));
    printed = to_string(f);
    dumped = dump(f);
    bits = f->bits;
    depth = f->depth;
  }
  CHECK(live_nodes() <= before + 1);  // at most the letter, if no one else held it
  const Formula again = since(fresh(4), and_(letter('a'), yesterday(fresh(5))));
  REQUIRE(again.valid());
  CHECK(to_string(again) == printed);
  CHECK(dump(again) == dumped);
  CHECK(again->bits == bits);
  CHECK(again->depth == depth);
  CHECK(again == since(fresh(4), and_(letter('a'), yesterday(fresh(5)))));
  CHECK(again == parse(printed, "ab"));
  // Live nodes have distinct ids (ids of freed nodes are reused).
  std::vector<std::uint32_t> ids;
  for (const Formula& s : subformulas(again)) ids.push_back(s->id);
  std::sort(ids.begin(), ids.end());
  CHECK(std::adjacent_find(ids.begin(), ids.end()) == ids.end());
}

TEST_CASE("formula nodes: commutative operands in one canonical order", "[logic][formula]") {
  const Formula a = letter('a'), b = letter('b'), c = letter('c');
  CHECK(and_(a, b) == and_(b, a));
  CHECK(or_(a, b) == or_(b, a));
  CHECK(iff(a, b) == iff(b, a));
  CHECK(and_(or_(a, b), c) == and_(c, or_(b, a)));
  CHECK(or_(and_(a, once(b)), c) == or_(c, and_(once(b), a)));
  CHECK(iff(or_(a, b), yesterday(c)) == iff(yesterday(c), or_(b, a)));
  CHECK(and_({c, b, a, b}) == and_({a, b, c}));
  CHECK(and_(a, b) != or_(a, b));
  CHECK(implies(a, b) != implies(b, a));  // not commutative: kept as written
  CHECK(since(a, b) != since(b, a));
  // Through the parser, and the printed form is the canonical one either way.
  CHECK(parse("b & a", "ab") == parse("a & b", "ab"));
  CHECK(parse("c & (b | a)", "abc") == parse("(a | b) & c", "abc"));
  CHECK(parse("Y c <-> b | a", "abc") == parse("a | b <-> Y c", "abc"));
  CHECK(to_string(parse("b & a", "ab")) == "a & b");
  CHECK(to_string(parse("c & (b | a)", "abc")) == "c & (a | b)");
}

TEST_CASE("formula nodes: the canonical order is structural, not creation order", "[logic][formula]") {
  // The order is a strict total order on distinct formulas, fixed by their
  // structure: operator (in the order of enum Op), then letter, then operands.
  const Formula a = letter('a'), b = letter('b');
  CHECK(structural_compare(a, a) == 0);
  CHECK(structural_compare(a, b) < 0);
  CHECK(structural_compare(b, a) > 0);
  CHECK(structural_compare(a, first()) < 0);  // kLetter before kFirst
  CHECK(structural_compare(not_(a), once(a)) < 0);
  CHECK(structural_compare(once(a), once(b)) < 0);
  CHECK(structural_compare(since(a, b), since(a, yesterday(b))) < 0);
  CHECK(structural_compare(mod(3, 1), mod(3, 2)) < 0);
  const Formula ca = compare(Term{{{1, a}}, 0}, Cmp::kGt, Term{{}, 0});
  const Formula cb = compare(Term{{{1, b}}, 0}, Cmp::kGt, Term{{}, 0});
  CHECK(structural_compare(ca, cb) < 0);
  CHECK(structural_compare(cb, ca) > 0);
  // Built in either order, with the operands freed in between, the same operands.
  std::string printed;
  {
    const Formula f = or_(once(fresh(6)), yesterday(fresh(7)));
    printed = to_string(f);
  }
  const Formula g = or_(yesterday(fresh(7)), once(fresh(6)));
  CHECK(to_string(g) == printed);
  CHECK(printed == "Y mod(1000010,1) | O mod(1000009,1)");  // Y before O in enum Op
}

TEST_CASE("formula nodes: threads create and drop shared formulas", "[logic][formula]") {
  // Every thread builds the same formulas over and over, dropping them at
  // once, so nodes are freed and revived while other threads look them up
  // (run under TSan/ASan in the hardening pass).
  constexpr int kThreads = 4;
  constexpr int kRounds = 2000;
  std::vector<std::vector<std::string>> printed(kThreads);
  std::vector<std::thread> threads;
  const Formula shared = and_(fresh(8), letter('a'));  // held throughout: copied by every thread
  const std::size_t before = live_nodes();
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        const std::int64_t k = 20 + r % 7;
        Formula x = (t % 2) ? and_(fresh(k), or_(letter('b'), yesterday(fresh(k + 1))))
                            : and_(or_(yesterday(fresh(k + 1)), letter('b')), fresh(k));
        Formula copy = shared;
        Formula y = iff(x, copy);
        if (r % 500 == 0) printed[t].push_back(to_string(y));
        copy = y;
        y = Formula();
        x = std::move(copy);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 1; t < kThreads; ++t) CHECK(printed[t] == printed[0]);
  CHECK(live_nodes() == before);  // everything the threads built is freed
}
