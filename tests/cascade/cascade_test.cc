// DFA -> formula DAG (cascade/derive.h): differential tests against the
// transition-monoid analysis (star-free or not), the reference evaluator
// (every word to a length) and the DFA itself, on random automata, the
// catalogue and the MLRegTest sample; witnesses of non-star-free languages
// checked by running the DFA.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <unordered_set>
#include <sstream>

#include "automata/dfa.h"
#include "automata/monoid.h"
#include "cascade/derive.h"
#include "lang/catalog.h"
#include "logic/eval.h"
#include "cascade/mlregtest_files.h"
#include "util/symbols.h"

using namespace softhat;

namespace {

std::string power(const std::string& w, std::size_t k) {
  std::string out;
  for (std::size_t i = 0; i < k; ++i) out += w;
  return out;
}

// Every word over the alphabet up to max_len.
void each_word(const std::string& alphabet, std::size_t max_len, const std::function<void(const std::string&)>& f) {
  std::vector<std::string> frontier{""};
  f("");
  for (std::size_t len = 1; len <= max_len; ++len) {
    std::vector<std::string> next;
    for (const auto& w : frontier) {
      for (char c : alphabet) {
        next.push_back(w + c);
        f(next.back());
      }
    }
    frontier = std::move(next);
  }
}

automata::Dfa random_dfa(std::mt19937_64& rng, std::size_t n, const std::string& alphabet, bool forward) {
  automata::Dfa d;
  d.alphabet = alphabet;
  d.start = 0;
  std::uniform_int_distribution<int> state(0, static_cast<int>(n) - 1);
  // Bias towards self-loops and forward arcs, so that many are aperiodic.
  std::uniform_int_distribution<int> kind(0, 9);
  for (std::size_t q = 0; q < n; ++q) {
    d.accepting.push_back(kind(rng) < 4);
    for (std::size_t a = 0; a < alphabet.size(); ++a) {
      const int k = kind(rng);
      int t = state(rng);
      if (k < 3) t = static_cast<int>(q);
      else if (forward && k < 8) t = std::max(t, static_cast<int>(q));
      d.transitions.push_back(t);
    }
  }
  return automata::minimize(d);
}

// Checks a refusal's witness on the DFA: x u^k y and x u^(k+1) y differ, and
// membership of x u^m y is periodic in m with the witness's period.
void check_witness(const automata::Dfa& dfa, const cascade::StarFreeWitness& w) {
  INFO("x=" << sym::encode(w.x) << " u=" << sym::encode(w.u) << " y=" << sym::encode(w.y) << " k=" << w.k
            << " period=" << w.period);
  REQUIRE(w.period > 1);
  REQUIRE(!w.u.empty());
  auto in = [&](std::size_t m) { return dfa.accepts(w.x + power(w.u, m) + w.y); };
  CHECK(in(w.k) != in(w.k + 1));
  for (std::size_t m = w.k; m < w.k + 3 * w.period; ++m) CHECK(in(m) == in(m + w.period));
}

// The derived formula, by the reference evaluator, against the DFA.
// The formula against the DFA, and the derivation's exclusivity facts (the
// compiler trusts them) against the evaluator: at most one member of each
// group holds at every position of every word.
void check_formula(const automata::Dfa& dfa, const cascade::Derived& d, std::size_t max_len) {
  std::size_t words = 0, wrong = 0, broken = 0;
  std::string first, first_broken;
  const std::vector<logic::Formula> sub = logic::subformulas(d.formula);
  const std::unordered_set<logic::Formula> in_dag(sub.begin(), sub.end());
  each_word(dfa.alphabet, max_len, [&](const std::string& w) {
    ++words;
    if (logic::accepts(d.formula, w) != dfa.accepts(w)) {
      if (!wrong++) first = w;
    }
    if (w.empty()) return;
    const logic::Evaluation e(d.formula, w);
    for (const std::vector<logic::Formula>& group : d.exclusive) {
      for (std::size_t i = 0; i < w.size(); ++i) {
        int holding = 0;
        for (logic::Formula f : group) holding += in_dag.count(f) && e.values(f)[i];
        if (holding > 1 && !broken++) first_broken = w;
      }
    }
  });
  INFO("first wrong word: \"" << sym::encode(first) << "\" of " << words);
  CHECK(wrong == 0);
  INFO("first word breaking an exclusivity group: \"" << sym::encode(first_broken) << "\"");
  CHECK(broken == 0);
  if (d.cascade.levels.size() > 0) CHECK_FALSE(d.exclusive.empty());
}

// An independent reading of an MLRegTest .att file: arcs, finals, the
// first arc's source as start, missing arcs to a sink; alphabet sorted.
automata::Dfa read_att(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::vector<std::tuple<int, int, std::string>> arcs;
  std::vector<int> finals;
  std::vector<std::string> symbols;
  int start = -1, top = 0;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::vector<std::string> f;
    for (std::string x; ss >> x;) f.push_back(x);
    if (f.size() >= 4) {
      const int s = std::stoi(f[0]), t = std::stoi(f[1]);
      if (start < 0) start = s;
      arcs.emplace_back(s, t, f[2]);
      top = std::max({top, s, t});
      if (std::find(symbols.begin(), symbols.end(), f[2]) == symbols.end()) symbols.push_back(f[2]);
    } else if (!f.empty()) {
      finals.push_back(std::stoi(f[0]));
      top = std::max(top, finals.back());
    }
  }
  std::sort(symbols.begin(), symbols.end());
  automata::Dfa d;
  for (const auto& s : symbols) d.alphabet += sym::declare(s);
  const int n = top + 2, sink = n - 1;
  d.start = start;
  d.accepting.assign(n, 0);
  d.transitions.assign(static_cast<std::size_t>(n) * d.alphabet.size(), sink);
  for (int f : finals) d.accepting[f] = 1;
  for (const auto& [s, t, l] : arcs) d.transitions[s * d.alphabet.size() + d.alphabet.find(sym::declare(l))] = t;
  return automata::minimize(d);
}

}  // namespace

TEST_CASE("cascade: random DFAs, star-free exactly when the monoid is aperiodic, and formulas equal the DFA",
          "[cascade]") {
  std::mt19937_64 rng(20261201);
  int derived = 0, refused = 0, ordered = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const std::string alphabet = trial % 3 == 0 ? "a" : trial % 3 == 1 ? "ab" : "abc";
    const std::size_t n = 1 + static_cast<std::size_t>(trial % 7);
    const automata::Dfa dfa = random_dfa(rng, n, alphabet, trial % 2 == 0);
    const bool aperiodic = automata::analyze_monoid(dfa).aperiodic;
    INFO("trial " << trial << ", " << dfa.states() << " states over " << alphabet);
    try {
      const cascade::Derived d = cascade::derive_formula(dfa);
      CHECK(aperiodic);
      check_formula(dfa, d, alphabet.size() == 3 ? 6 : 9);
      ++derived;
      if (d.route == "ordered") {
        ++ordered;
        // The holonomy route on the same DFA: also exact.
        const cascade::Derived h = cascade::derive_formula(dfa, {}, true, cascade::Route::kHolonomy);
        check_formula(dfa, h, alphabet.size() == 3 ? 5 : 8);
      }
    } catch (const cascade::NotStarFree& e) {
      CHECK_FALSE(aperiodic);
      check_witness(dfa, e.witness);
      ++refused;
    }
  }
  CHECK(derived > 200);
  CHECK(refused > 50);
  CHECK(ordered > 50);
  CHECK(derived - ordered >= 25);  // holonomy on DFAs that are not partially ordered (the sample has 40 more)
}

TEST_CASE("cascade: every star-free catalogue automaton gives back its language", "[cascade]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  int count = 0;
  for (const lang::Language& l : catalog.languages()) {
    const auto dfa = lang::regular_dfa(l);
    if (!dfa || l.spec.language_class != "star-free") continue;
    INFO(l.name());
    const cascade::Derived d = cascade::derive_formula(*dfa);
    check_formula(*dfa, d, l.alphabet().size() <= 2 ? 10 : 6);
    // The DAG is printed with names and every definition is used.
    const std::string text = cascade::print_definitions(d);
    CHECK(text.find("accept = ") != std::string::npos);
    ++count;
  }
  CHECK(count >= 15);
}

TEST_CASE("cascade: the MLRegTest sample: 66 star-free automata derived and proved, 6 refused with witnesses",
          "[cascade][mlregtest]") {
  const std::vector<std::filesystem::path> files = mlregtest_files();
  if (files.empty()) return;
  REQUIRE(files.size() == 72);
  int derived = 0, refused = 0;
  std::mt19937_64 rng(7);
  for (const auto& f : files) {
    const automata::Dfa dfa = read_att(f);
    const std::string name = f.filename().string();
    INFO(name << ": " << dfa.states() << " states, " << dfa.alphabet.size() << " letters");
    const bool star_free = name.find(".Zp.") == std::string::npos && name.find(".Reg.") == std::string::npos;
    try {
      const cascade::Derived d = cascade::derive_formula(dfa);
      CHECK(star_free);
      ++derived;
      // The evaluator on every word to length 5 / 2 / 1 and 200 random words of lengths 20-50.
      check_formula(dfa, d, dfa.alphabet.size() <= 4 ? 5 : dfa.alphabet.size() <= 16 ? 2 : 1);
      std::uniform_int_distribution<std::size_t> len(20, 50), sym(0, dfa.alphabet.size() - 1);
      int wrong = 0;
      for (int i = 0; i < 200; ++i) {
        std::string w;
        for (std::size_t j = len(rng); j > 0; --j) w += dfa.alphabet[sym(rng)];
        wrong += logic::accepts(d.formula, w) != dfa.accepts(w);
      }
      CHECK(wrong == 0);
    } catch (const cascade::NotStarFree& e) {
      CHECK_FALSE(star_free);
      check_witness(dfa, e.witness);
      ++refused;
    }
  }
  CHECK(derived == 66);
  CHECK(refused == 6);
}

TEST_CASE("cascade: the proof finds a wrong formula's shortest counterexample", "[cascade]") {
  // first_difference on two DFAs that differ first at "ab".
  automata::Dfa a;
  a.alphabet = "ab";
  a.start = 0;
  a.accepting = {0, 0, 1, 0};
  a.transitions = {1, 3, 3, 2, 2, 2, 3, 3};  // accepts ab(a|b)*
  automata::Dfa b = a;
  b.accepting = {0, 0, 0, 0};
  const auto w = cascade::first_difference(a, b);
  REQUIRE(w.has_value());
  CHECK(*w == "ab");
  CHECK_FALSE(cascade::first_difference(a, a).has_value());
}
