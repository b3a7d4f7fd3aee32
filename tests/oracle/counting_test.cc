// ClassCounter: exact counts of both classes against brute-force
// enumeration with Checker::accepts, samples in their class, uniformity on
// small lengths, exact big counts, and the limits.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "oracle/checker.h"
#include "oracle/counting.h"
#include "util/error.h"
#include "util/interrupt.h"

using namespace softhat;
using namespace softhat::oracle;

namespace {

struct Case {
  const char* kind;
  const char* symbols;
  const char* alphabet;  // the words' alphabet ("" for the checker's symbols)
};

const std::vector<Case> kCases = {
    {"dyck", "()", ""},
    {"dyck", "()[]", ""},
    {"dyck", "()[]{}", ""},
    {"anbn", "ab", ""},
    {"anbn", "abc", ""},
    {"majority", "ab", ""},
    {"prefix-majority", "ab", ""},
    {"twice", "ab", ""},
    {"dyck-prefix", "()", ""},
    {"parity", "1", ""},
    // Alphabets with symbols the checker does not name, as in parity.toml.
    {"parity", "1", "01"},
    {"majority", "ab", "abc"},
    {"twice", "ab", "zab"},
    {"prefix-majority", "ab", "abx"},
    {"dyck-prefix", "()", "()x"},
    {"dyck", "()[]", "[x)(]"},
    {"anbn", "ab", "abc"},
    {"anbn", "abc", "cab"},
};

std::string alphabet_of(const Case& c) { return *c.alphabet ? c.alphabet : c.symbols; }

// Every word of length n over the alphabet, in odometer order.
template <class Visit>
void for_each_word(const std::string& sigma, std::size_t n, Visit visit) {
  std::vector<std::size_t> digit(n, 0);
  std::string w(n, sigma[0]);
  while (true) {
    visit(w);
    std::size_t i = 0;
    for (; i < n && ++digit[i] == sigma.size(); ++i) {
      digit[i] = 0;
      w[i] = sigma[0];
    }
    if (i == n) return;
    w[i] = sigma[digit[i]];
  }
}

// The largest length <= 10 with |alphabet|^n <= 2e6.
std::size_t brute_length(std::size_t k) {
  std::size_t n = 0;
  for (double total = k; n < 10 && total <= 2e6; total *= static_cast<double>(k)) ++n;
  return n;
}

}  // namespace

TEST_CASE("class counter: counts agree with brute-force enumeration", "[oracle][counting]") {
  for (const Case& c : kCases) {
    const Checker checker(c.kind, c.symbols);
    const std::string sigma = alphabet_of(c);
    const std::size_t top = brute_length(sigma.size());
    const ClassCounter counter(checker, sigma, top);
    CHECK(counter.alphabet() == sigma);
    for (std::size_t n = 0; n <= top; ++n) {
      std::uint64_t in = 0, out = 0;
      for_each_word(sigma, n, [&](const std::string& w) { ++(checker.accepts(w) ? in : out); });
      INFO(checker.describe() << " over " << sigma << " at length " << n);
      CHECK(counter.count(n, true) == std::to_string(in));
      CHECK(counter.count(n, false) == std::to_string(out));
      CHECK(counter.approx_count(n, true) == static_cast<double>(in));
      CHECK(counter.empty(n, true) == (in == 0));
      CHECK(counter.empty(n, false) == (out == 0));
    }
    CHECK_THROWS_AS(counter.count(top + 1, true), std::out_of_range);
  }
}

TEST_CASE("class counter: samples are in their class, of their length", "[oracle][counting]") {
  std::mt19937_64 rng(7);
  for (const Case& c : kCases) {
    const Checker checker(c.kind, c.symbols);
    const std::string sigma = alphabet_of(c);
    const ClassCounter counter(checker, sigma, 60);
    for (std::size_t n = 0; n <= 60; ++n) {
      for (bool positive : {true, false}) {
        INFO(checker.describe() << " over " << sigma << " at length " << n
                                << (positive ? " accepted" : " rejected"));
        for (int i = 0; i < (n <= 12 ? 40 : 5); ++i) {
          const std::optional<std::string> w = counter.sample(rng, n, positive);
          REQUIRE(w.has_value() == !counter.empty(n, positive));
          if (!w) break;
          CHECK(w->size() == n);
          CHECK(w->find_first_not_of(sigma) == std::string::npos);
          CHECK(checker.accepts(*w) == positive);
        }
      }
    }
  }
  // The edges: anbn holds the empty word, prefix-majority does not.
  const ClassCounter anbn(Checker("anbn", "ab"), 3), pm(Checker("prefix-majority", "ab"), 3);
  CHECK(anbn.sample(rng, 0, true) == std::optional<std::string>(""));
  CHECK_FALSE(anbn.sample(rng, 0, false));
  CHECK_FALSE(pm.sample(rng, 0, true));
  CHECK(pm.sample(rng, 0, false) == std::optional<std::string>(""));
  CHECK_FALSE(anbn.sample(rng, 3, true));
}

TEST_CASE("class counter: samples are uniform over each class", "[oracle][counting]") {
  const struct {
    const char* kind;
    const char* symbols;
    const char* alphabet;
    std::size_t n;
  } cases[] = {{"majority", "ab", "ab", 6},        {"dyck", "()[]", "()[]", 4},
               {"dyck", "()[]{}", "()[]{}", 4},    {"twice", "ab", "ab", 6},
               {"prefix-majority", "ab", "ab", 7}, {"dyck-prefix", "()", "()", 6},
               {"parity", "1", "01", 5},           {"anbn", "abc", "abc", 3}};
  std::mt19937_64 rng(11);
  for (const auto& c : cases) {
    const Checker checker(c.kind, c.symbols);
    const ClassCounter counter(checker, c.alphabet, c.n);
    for (bool positive : {true, false}) {
      std::map<std::string, int> seen;
      for_each_word(c.alphabet, c.n, [&](const std::string& w) {
        if (checker.accepts(w) == positive) seen[w] = 0;
      });
      REQUIRE(std::to_string(seen.size()) == counter.count(c.n, positive));
      // 20,000 draws, or 500 per word for the big classes (the bound stays
      // many standard deviations wide, so only a real bias fails it).
      const int draws = std::max<int>(20'000, 500 * static_cast<int>(seen.size()));
      for (int i = 0; i < draws; ++i) {
        const std::string w = *counter.sample(rng, c.n, positive);
        REQUIRE(seen.count(w) == 1);
        ++seen[w];
      }
      const double mean = static_cast<double>(draws) / static_cast<double>(seen.size());
      for (const auto& [w, k] : seen) {
        INFO(checker.describe() << (positive ? " accepted " : " rejected ") << w << ": " << k
                                << " of mean " << mean);
        CHECK(k > 0);
        CHECK(std::abs(k - mean) <= 0.4 * mean);
      }
    }
  }
}

TEST_CASE("class counter: exact big counts, fast deterministic samples at length 50",
          "[oracle][counting]") {
  const ClassCounter dyck3(Checker("dyck", "()[]{}"), 50);
  // 3^25 Catalan(25) balanced words; 6^50 words in all.
  CHECK(dyck3.count(50, true) == "4119471805672662916111236");
  CHECK(dyck3.count(50, false) == "808281277464759941171333927793620182140");
  CHECK(dyck3.approx_count(50, false) == Approx(8.0828127746476e38));
  const ClassCounter majority(Checker("majority", "ab"), 50);
  CHECK(majority.count(50, true) == "499744650202436");
  CHECK(majority.count(50, false) == "626155256640188");
  // Doubles saturate: 6^500 is past their range.
  CHECK(ClassCounter(Checker("dyck", "()[]{}"), 500).approx_count(500, false) ==
        std::numeric_limits<double>::max());

  for (const char* kind :
       {"dyck", "anbn", "majority", "prefix-majority", "twice", "dyck-prefix", "parity"}) {
    const std::string symbols = std::string(kind) == "dyck"     ? "()[]{}"
                                : std::string(kind) == "parity" ? "1"
                                                                : "ab";
    const ClassCounter counter(Checker(kind, symbols), 50);
    std::mt19937_64 a(2026), b(2026);
    const auto started = std::chrono::steady_clock::now();
    for (int i = 0; i < 100; ++i) {
      for (bool positive : {true, false}) {
        const auto x = counter.sample(a, 50, positive), y = counter.sample(b, 50, positive);
        CHECK(x == y);
      }
    }
    // A few ms in fact; only a runaway (rejection-like) sampler fails this.
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
  }
  // The same seed gives the same words in another counter too.
  std::mt19937_64 a(5), b(5);
  const ClassCounter other(Checker("dyck", "()[]{}"), 80);
  CHECK(dyck3.sample(a, 50, true) == other.sample(b, 50, true));
}

TEST_CASE("class counter: limits, bad alphabets and interrupts", "[oracle][counting]") {
  const Checker abc("anbn", "abc");
  auto limit_of = [](auto make) {
    try {
      make();
    } catch (const LimitError& e) {
      return e.limit();
    }
    return Limit::kFixed;  // not thrown: fails the checks below
  };
  // Thrown before anything is allocated, even for absurd lengths.
  const auto started = std::chrono::steady_clock::now();
  CHECK(limit_of([&] { ClassCounter(Checker("dyck", "()"), std::size_t{1} << 60); }) ==
        Limit::kMemory);
  CHECK(limit_of([&] { ClassCounter(Checker("majority", "ab"), 49'999'999); }) == Limit::kMemory);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
  CHECK(limit_of([&] { ClassCounter(abc, 300, 100'000); }) == Limit::kMemory);
  CHECK_NOTHROW(ClassCounter(abc, 60, 100'000));
  CHECK_THROWS_WITH(ClassCounter(abc, 300, 100'000),
                    Catch::Contains("anbn(abc)") && Catch::Contains("more than 100000 entries"));
  CHECK_THROWS_AS(ClassCounter(Checker("dyck", "()[]"), "()[", 4), InputError);
  CHECK_THROWS_AS(ClassCounter(Checker("majority", "ab"), "aba", 4), InputError);
  set_interrupted(true);
  CHECK_THROWS_AS(ClassCounter(Checker("majority", "ab"), 20), Interrupted);
  set_interrupted(false);
}
