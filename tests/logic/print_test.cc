// print(parse(s)) round-trips: the printer's output parses back to the same
// interned formula, on thousands of random formulas of every fragment.
#include <catch2/catch.hpp>

#include "logic/parse.h"
#include "logic/print.h"
#include "logic/random_formula.h"
#include "util/random.h"

using namespace softhat::logic;

TEST_CASE("printer: round trip on random formulas", "[logic][print]") {
  struct Config {
    const char* alphabet;
    bool counting;
    bool modular;
  };
  const Config configs[] = {{"ab", false, false}, {"abc", false, true}, {"01", true, false},
                            {"()'\\A", true, true}, {"ab", true, true}};
  std::size_t checked = 0;
  for (const Config& c : configs) {
    std::mt19937_64 rng = softhat::derived_rng(7, c.alphabet, c.counting * 2 + c.modular);
    RandomFormulaOptions options;
    options.alphabet = c.alphabet;
    options.counting = c.counting;
    options.modular = c.modular;
    options.max_depth = 6;
    for (int k = 0; k < 1000; ++k) {
      const Formula f = random_formula(rng, options);
      const std::string text = to_string(f);
      INFO(text);
      Formula back;
      REQUIRE_NOTHROW(back = parse(text, c.alphabet));
      CHECK(back == f);
      CHECK(to_string(back) == text);
      ++checked;
    }
  }
  CHECK(checked == 5000);
}

TEST_CASE("printer: minimal parentheses and quoting", "[logic][print]") {
  // Operands of & and | print in the canonical order (letters first, by symbol).
  CHECK(to_string(parse("(a & b) | c", "abc")) == "c | a & b");
  CHECK(to_string(parse("a & (b | c)", "abc")) == "a & (b | c)");
  CHECK(to_string(parse("(a S b) S c", "abc")) == "(a S b) S c");
  CHECK(to_string(parse("a S (b S c)", "abc")) == "a S b S c");
  CHECK(to_string(parse("(a -> b) -> c", "abc")) == "(a -> b) -> c");
  CHECK(to_string(parse("a <-> (b <-> c)", "abc")) == "a <-> (b <-> c)");
  CHECK(to_string(parse("Y (a & b)", "ab")) == "Y (a & b)");
  CHECK(to_string(parse("'A' | '\\''", "A'")) == "'\\'' | 'A'");
  CHECK(to_string(parse("#1 > #0 + 1", "01")) == "#1 > #0 + 1");
  CHECK(to_string(parse("0 - 2*#a - 3 < #(a & b)", "ab")) == "0 - 2*#a - 3 < #(a & b)");
  CHECK(to_string(parse("!(#a > 1)", "ab")) == "!(#a > 1)");
}
