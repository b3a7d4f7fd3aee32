// Star-free certificates: aperiodic transition monoids for the star-free
// catalogue, witnesses for the rest, and the witnesses checked.
#include <catch2/catch.hpp>

#include "automata/monoid.h"
#include "lang/catalog.h"
#include "logic/parse.h"

using namespace softhat;

namespace {
// The transformation of a word: state -> state.
std::vector<std::int32_t> transform(const automata::Dfa& d, const std::string& w) {
  std::vector<std::int32_t> out(d.states());
  for (std::size_t q = 0; q < d.states(); ++q) {
    std::int32_t s = static_cast<std::int32_t>(q);
    for (char c : w) s = d.next(s, d.alphabet.find(c));
    out[q] = s;
  }
  return out;
}
std::string power(const std::string& w, std::size_t k) {
  std::string out;
  for (std::size_t i = 0; i < k; ++i) out += w;
  return out;
}
}  // namespace

TEST_CASE("monoid: star-free catalogue languages are certified, the others refused", "[automata]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  int certified = 0, refused = 0;
  for (const lang::Language& l : catalog.languages()) {
    const auto dfa = lang::regular_dfa(l);
    if (!dfa) continue;
    const automata::MonoidReport m = automata::analyze_monoid(*dfa);
    INFO(l.name() << " (" << l.spec.language_class << "), monoid " << m.size);
    CHECK(m.aperiodic == (l.spec.language_class == "star-free"));
    if (m.aperiodic) {
      ++certified;
      continue;
    }
    ++refused;
    REQUIRE(m.witness);
    const auto& w = *m.witness;
    CHECK(w.period > 1);
    // w^k != w^(k+1) for k up to a few periods past the index.
    for (std::size_t k = 1; k < w.index + 3 * w.period; ++k) {
      CHECK(transform(*dfa, power(w.word, k)) != transform(*dfa, power(w.word, k + 1)));
    }
    CHECK(transform(*dfa, power(w.word, w.index)) == transform(*dfa, power(w.word, w.index + w.period)));
  }
  CHECK(certified >= 18);
  CHECK(refused >= 4);  // parity, even-length, mod3-last-a, a-at-odd
  const auto parity = automata::analyze_monoid(*lang::regular_dfa(catalog.find("parity")));
  CHECK_FALSE(parity.aperiodic);
  CHECK(parity.witness->word == "1");
  const auto even = automata::analyze_monoid(*lang::regular_dfa(catalog.find("even-length")));
  CHECK_FALSE(even.aperiodic);
  CHECK(even.witness->word == "a");
  CHECK(even.witness->period == 2);
}

TEST_CASE("monoid: sizes worked by hand, the limit is a clear error", "[automata]") {
  // a*b*: states A (in a*), B (in b+), D (dead). Transformations: id;
  // a = (A->A, B->D); b = (A->B, B->B); ab = (A->B, B->D); ba = everything -> D.
  // aa = a, bb = b, and every longer word equals one of these: 5 elements.
  const automata::Dfa d = automata::dfa_from_formula(logic::parse("!((a & O b) | O(a & O b))", "ab"), "ab");
  CHECK(automata::analyze_monoid(d).size == 5);
  const automata::Dfa big = automata::dfa_from_formula(logic::parse("Y Y Y a", "ab"), "ab");
  CHECK_THROWS_WITH(automata::analyze_monoid(big, 5),
                    "the transition monoid exceeds 5 elements; star-freeness not decided");
}
