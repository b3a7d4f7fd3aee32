// The reference evaluator against hand-worked cases for every operator, and
// algebraic identities on random formulas and words.
#include <catch2/catch.hpp>
#include <string>

#include "logic/eval.h"
#include "logic/parse.h"
#include "logic/print.h"
#include "logic/random_formula.h"
#include "util/random.h"
#include "words/words.h"

using namespace softhat::logic;

namespace {
// Truth values at positions 1..n as a string of 0/1.
std::string bits(const std::string& formula, const std::string& alphabet, const std::string& word) {
  std::string out;
  for (auto v : truth_values(parse(formula, alphabet), word)) out += v ? '1' : '0';
  return out;
}
bool empty(const std::string& formula, const std::string& alphabet) {
  return accepts(parse(formula, alphabet), "");
}
}  // namespace

TEST_CASE("evaluator: every operator, worked by hand", "[logic][eval]") {
  struct Row {
    const char* formula;
    const char* alphabet;
    const char* word;
    const char* expected;
  };
  const Row rows[] = {
      {"a", "ab", "abba", "1001"},
      {"!a", "ab", "abba", "0110"},
      {"a | b", "abc", "abc", "110"},
      {"a -> b", "abc", "abc", "011"},
      {"a <-> b", "abc", "abc", "001"},
      {"true", "ab", "ab", "11"},
      {"false", "ab", "ab", "00"},
      {"first", "ab", "abb", "100"},
      {"last", "ab", "abb", "001"},
      {"mod(2,0)", "ab", "aaaa", "0101"},
      {"mod(3,1)", "ab", "aaaa", "1001"},
      // Strict past operators: position 1 sees nothing.
      {"Y a", "ab", "aab", "011"},
      {"Y true", "ab", "aaa", "011"},
      {"O a", "ab", "bab", "001"},
      {"O a", "ab", "a", "0"},
      {"H a", "ab", "aab", "111"},
      {"H a", "ab", "aba", "110"},
      {"H false", "ab", "aa", "10"},
      {"a S b", "abc", "babcaaab", "01110000"},  // paper-digest.md §3.7
      {"a S b", "abc", "bb", "01"},
      // Strict future operators: position n sees nothing.
      {"X a", "ab", "aba", "010"},
      {"F a", "ab", "abb", "000"},
      {"F a", "ab", "bba", "110"},
      {"G b", "ab", "abb", "111"},
      {"G b", "ab", "bab", "011"},
      {"a U b", "abc", "cab", "110"},
      {"a U b", "abc", "acb", "010"},
      {"a U b", "abc", "bbb", "110"},
      // Counting terms are inclusive of the current position.
      {"#a = 2", "ab", "abab", "0011"},
      {"#a > #b", "ab", "abba", "1000"},
      {"2*#a - #b >= 1", "ab", "abba", "1101"},
      {"#(Y a) = 1", "ab", "aab", "010"},
      {"#first = 1", "ab", "bb", "11"},
      // Quoted symbols and digits as letters.
      {"'(' & Y ')'", "()", ")(", "01"},
      {"'A' & Y 'B'", "AB", "BA", "01"},
      {"1 & Y 0", "01", "01", "01"},
      {"#1 > #0 + 1", "01", "1101", "0101"},
      {"#0 != #1", "01", "0101", "1010"},
  };
  for (const Row& row : rows) {
    INFO(row.formula << " on " << row.word);
    CHECK(bits(row.formula, row.alphabet, row.word) == row.expected);
  }
}

TEST_CASE("evaluator: the empty word is evaluated at point 0", "[logic][eval]") {
  CHECK_FALSE(empty("b", "ab"));
  CHECK(empty("!O a & !a", "ab"));
  CHECK(empty("H a", "ab"));
  CHECK(empty("G a", "ab"));
  CHECK(empty("first", "ab"));
  CHECK(empty("last", "ab"));
  CHECK(empty("mod(2,0)", "ab"));
  CHECK_FALSE(empty("mod(2,1)", "ab"));
  CHECK(empty("#a = #b", "ab"));
  CHECK_FALSE(empty("#a > #b", "ab"));
  CHECK(empty("#a < 1", "ab"));
  for (const char* f : {"Y true", "O true", "a S b", "X true", "F true", "a U b", "true S true"}) {
    INFO(f);
    CHECK_FALSE(empty(f, "ab"));
  }
}

TEST_CASE("evaluator: algebraic identities on random formulas and words", "[logic][eval]") {
  std::mt19937_64 rng = softhat::derived_rng(11, "identities");
  RandomFormulaOptions options;
  options.alphabet = "ab";
  options.max_depth = 3;
  options.counting = true;
  options.modular = true;
  std::vector<std::string> words = softhat::words::all_words("ab", 6);
  for (int k = 0; k < 20; ++k) words.push_back(softhat::words::random_word(rng, "ab", 40, k));

  auto same = [&](Formula x, Formula y, bool with_empty_word = true) {
    for (const std::string& w : words) {
      if (w.empty() && !with_empty_word) continue;
      INFO(to_string(x) << "  vs  " << to_string(y) << "  on \"" << w << "\"");
      REQUIRE(truth_values(x, w) == truth_values(y, w));
      REQUIRE(accepts(x, w) == accepts(y, w));
    }
  };
  for (int k = 0; k < 150; ++k) {
    const Formula p = random_formula(rng, options);
    const Formula q = random_formula(rng, options);
    const Formula taut = or_(p, not_(p));    // not folded: a genuine operand
    const Formula contra = and_(p, not_(p));
    // !phi flips every position and the empty word.
    for (const std::string& w : words) {
      const auto a = truth_values(p, w), b = truth_values(not_(p), w);
      for (std::size_t i = 0; i < a.size(); ++i) REQUIRE(a[i] != b[i]);
      REQUIRE(accepts(p, w) != accepts(not_(p), w));
    }
    // Since and until equal their unrolled recursions.
    same(since(p, q), or_(yesterday(q), and_(yesterday(p), yesterday(since(p, q)))));
    same(until(p, q), or_(next(q), and_(next(p), next(until(p, q)))));
    // The derived operators.
    same(once(p), since(taut, p));
    same(yesterday(p), since(contra, p));
    same(historically(p), not_(once(not_(p))));
    same(eventually(p), until(taut, p));
    same(next(p), until(contra, p));
    same(globally(p), not_(eventually(not_(p))));
    same(first(), not_(yesterday(make_true())));
    same(last(), not_(next(make_true())));
    // Counting: #p >= 1 is "p now or before" at positions 1..n (at point 0
    // of the empty word every count is 0 while H/G hold); counts split over q.
    Term count_p{{{1, p}}, 0};
    same(compare(count_p, Cmp::kGe, Term{{}, 1}), or_(p, once(p)), false);
    same(compare(count_p, Cmp::kEq, Term{{{1, and_(p, q)}, {1, and_(p, not_(q))}}, 0}),
         or_(taut, make_true()));
    // De Morgan.
    same(not_(and_(p, q)), or_(not_(p), not_(q)));
  }
}
