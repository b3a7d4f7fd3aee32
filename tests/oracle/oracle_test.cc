// The RE2 oracle and the hand-written checkers, on exhaustive small cases
// against independent definitions.
#include <catch2/catch.hpp>
#include <string>

#include "oracle/checker.h"
#include "oracle/regex_oracle.h"
#include "util/error.h"
#include "words/words.h"

using namespace softhat;
using namespace softhat::oracle;

TEST_CASE("regex oracle: full match over bytes, invalid patterns name the language", "[oracle]") {
  const RegexOracle re("[ab]*ab[ab]*", "contains-ab");
  CHECK(re.accepts("ab"));
  CHECK(re.accepts("bbabb"));
  CHECK_FALSE(re.accepts("ba"));
  CHECK_FALSE(re.accepts(""));
  CHECK_FALSE(re.accepts("abx"));  // full match, not partial
  const RegexOracle dot("a.b", "dot");
  CHECK(dot.accepts(std::string("a\nb")));
  CHECK_THROWS_WITH(RegexOracle("a(b", "mine"), "language 'mine': invalid regex 'a(b': missing ): a(b");
  CHECK_THROWS_AS(RegexOracle("a**", "stars"), InputError);
  // A pattern whose DFA needs far more than RE2's default 8 MiB still answers.
  const RegexOracle big("[ab]*a[ab]{20}", "big");
  std::string w(5000, 'b');
  w[5000 - 21] = 'a';
  CHECK(big.accepts(w));
  w[5000 - 21] = 'b';
  CHECK_FALSE(big.accepts(w));
}

TEST_CASE("checkers: exhaustive agreement with their definitions", "[oracle]") {
  const Checker dyck("dyck", "()");
  const Checker anbn("anbn", "ab");
  const Checker majority("majority", "ab");
  const Checker parity("parity", "1");
  softhat::words::for_each_word("()", 10, [&](const std::string& w) {
    long depth = 0, min_depth = 0;
    for (char c : w) min_depth = std::min(min_depth, depth += c == '(' ? 1 : -1);
    CHECK(dyck.accepts(w) == (depth == 0 && min_depth == 0));
    return true;
  });
  softhat::words::for_each_word("ab", 10, [&](const std::string& w) {
    const auto as = std::count(w.begin(), w.end(), 'a');
    const auto bs = std::count(w.begin(), w.end(), 'b');
    CHECK(anbn.accepts(w) == (w == std::string(as, 'a') + std::string(bs, 'b') && as == bs));
    CHECK(majority.accepts(w) == (as > bs));
    return true;
  });
  softhat::words::for_each_word("01", 10, [&](const std::string& w) {
    CHECK(parity.accepts(w) == (std::count(w.begin(), w.end(), '1') % 2 == 1));
    return true;
  });
  const Checker dyck2("dyck", "()[]");
  CHECK(dyck2.accepts("([])[]"));
  CHECK_FALSE(dyck2.accepts("([)]"));
  const Checker abc("anbn", "abc");
  CHECK(abc.accepts("aabbcc"));
  CHECK(abc.accepts(""));
  CHECK_FALSE(abc.accepts("aabbc"));
  CHECK_FALSE(abc.accepts("abcabc"));
  CHECK_THROWS_WITH(Checker("dyck", "(()"), "checker 'dyck': symbols \"(()\" repeat a symbol");
  CHECK_THROWS_WITH(Checker("dyck", "(]["), "checker 'dyck': symbols \"(][\" must be pairs of open and close brackets");
}
