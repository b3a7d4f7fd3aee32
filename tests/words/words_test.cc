// Word enumeration and seeded random words.
#include <catch2/catch.hpp>
#include <set>

#include "util/random.h"
#include "words/words.h"

using namespace softhat;
using namespace softhat::words;

TEST_CASE("words: every word once, in length-lexicographic order", "[verify]") {
  std::vector<std::string> seen;
  for_each_word("ba", 3, [&](const std::string& w) {
    seen.push_back(w);
    return true;
  });
  const std::vector<std::string> expected = {"",    "b",   "a",   "bb",  "ba",  "ab",  "aa",  "bbb",
                                             "bba", "bab", "baa", "abb", "aba", "aab", "aaa"};
  CHECK(seen == expected);
  std::set<std::string> distinct;
  std::size_t count = 0;
  for_each_word("abc", 6, [&](const std::string& w) {
    distinct.insert(w);
    ++count;
    return true;
  });
  CHECK(count == count_words(3, 6));
  CHECK(distinct.size() == 1093);
  std::size_t stopped = 0;
  for_each_word("ab", 10, [&](const std::string&) { return ++stopped < 5; });
  CHECK(stopped == 5);
  CHECK(count_words(2, 10) == 2047);
  CHECK(count_words(2, 200) == UINT64_MAX);
  CHECK(default_max_len(2) == 10);
  CHECK(default_max_len(3) == 7);
  CHECK(default_max_len(5) == 4);
}

TEST_CASE("words: random words are reproducible and well formed", "[verify]") {
  auto draw = [](std::uint64_t seed) {
    std::mt19937_64 rng = derived_rng(seed, "lang", 100);
    std::vector<std::string> out;
    for (int k = 0; k < 50; ++k) out.push_back(random_word(rng, "xyz", 100, k));
    return out;
  };
  const auto a = draw(1), b = draw(1), c = draw(2);
  CHECK(a == b);
  CHECK(a != c);
  std::size_t blocky_runs_max = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    CHECK(a[k].size() == 100);
    CHECK(a[k].find_first_not_of("xyz") == std::string::npos);
    std::size_t runs = 1;
    for (std::size_t i = 1; i < a[k].size(); ++i) runs += a[k][i] != a[k][i - 1];
    if (k % 2) blocky_runs_max = std::max(blocky_runs_max, runs);
  }
  CHECK(blocky_runs_max <= 6);
  std::mt19937_64 rng = derived_rng(3, "u");
  for (int k = 0; k < 1000; ++k) {
    const auto x = uniform_int(rng, 5, 7);
    CHECK((x >= 5 && x <= 7));
  }
}
