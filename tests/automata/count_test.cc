// Counting and uniform sampling; the border automaton.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>

#include "automata/border.h"
#include "automata/count.h"
#include "corpus/generate.h"
#include "logic/eval.h"
#include "logic/parse.h"
#include "util/random.h"
#include "words/words.h"

using namespace softhat;

TEST_CASE("count: exact counts equal brute force, long lengths work", "[automata]") {
  for (const char* f : {"(b & Y a) | O(b & Y a)", "!((a & O b) | O(a & O b))", "a & mod(3,0)", "Y Y a", "first"}) {
    const logic::Formula formula = logic::parse(f, "ab");
    const automata::WordCounter c(automata::dfa_from_formula(formula, "ab"), 12);
    std::vector<std::int64_t> brute(13, 0);
    words::for_each_word("ab", 12, [&](const std::string& w) {
      brute[w.size()] += logic::accepts(formula, w);
      return true;
    });
    for (std::size_t n = 0; n <= 12; ++n) {
      INFO(f << " at length " << n);
      CHECK(c.exact_count(n) == brute[n]);
      CHECK(c.enumerate(n, 100000).size() == static_cast<std::size_t>(brute[n]));
    }
  }
  const automata::WordCounter even(automata::dfa_from_formula(logic::parse("mod(2,0)", "ab"), "ab"), 10000);
  CHECK(even.log2_count(10000) == Approx(10000.0).epsilon(1e-12));
  CHECK(even.log2_count(9999) == -std::numeric_limits<double>::infinity());
  CHECK(even.exact_count(10000) == -1);  // beyond 2^53
  std::mt19937_64 rng = derived_rng(1, "long");
  const automata::WordCounter ab(automata::dfa_from_formula(logic::parse("(b & Y a) | O(b & Y a)", "ab"), "ab"), 10000);
  const std::string w = ab.sample(rng, 10000);
  CHECK(w.size() == 10000);
  CHECK(w.find("ab") != std::string::npos);
}

TEST_CASE("count: sampling is uniform (chi-square over fixed seeds)", "[automata]") {
  // contains-ab at length 6: 57 positive words, each equally likely.
  const automata::WordCounter c(automata::dfa_from_formula(logic::parse("(b & Y a) | O(b & Y a)", "ab"), "ab"), 6);
  const std::vector<std::string> all = c.enumerate(6, 1000);
  REQUIRE(all.size() == 57);
  for (std::uint64_t seed : {1, 2, 3}) {
    std::mt19937_64 rng = derived_rng(seed, "chi");
    std::map<std::string, int> hits;
    const int draws = 57 * 300;
    for (int k = 0; k < draws; ++k) hits[c.sample(rng, 6)]++;
    CHECK(hits.size() == 57);
    double chi2 = 0;
    const double expected = draws / 57.0;
    for (const std::string& w : all) chi2 += (hits[w] - expected) * (hits[w] - expected) / expected;
    // 56 degrees of freedom: mean 56, sd sqrt(112) ~ 10.6; five sd either way.
    INFO("seed " << seed << ": chi2 = " << chi2);
    CHECK(chi2 > 56 - 5 * std::sqrt(112.0));
    CHECK(chi2 < 56 + 5 * std::sqrt(112.0));
  }
}

TEST_CASE("border: exactly the positives with a negative at edit distance 1", "[automata]") {
  for (const char* f : {"(b & Y a) | O(b & Y a)", "!((a & O b) | O(a & O b))", "mod(2,0)", "a S b"}) {
    const std::string alphabet = std::string(f) == "a S b" ? "abc" : "ab";
    const logic::Formula formula = logic::parse(f, alphabet);
    const automata::Dfa dfa = automata::dfa_from_formula(formula, alphabet);
    const automata::Dfa border = automata::border_positives(dfa);
    words::for_each_word(alphabet, alphabet.size() == 2 ? 9 : 6, [&](const std::string& w) {
      bool expected = false;
      if (dfa.accepts(w)) {
        for (const std::string& v : corpus::edit_neighbours(w, alphabet)) expected = expected || !dfa.accepts(v);
      }
      INFO(f << " \"" << w << "\"");
      REQUIRE(border.accepts(w) == expected);
      return true;
    });
  }
  // Neighbours: substitutions, insertions, deletions, distinct, never the word itself.
  const auto n = corpus::edit_neighbours("ab", "ab");
  CHECK(n == std::vector<std::string>{"a", "aa", "aab", "aba", "abb", "b", "bab", "bb"});
}
