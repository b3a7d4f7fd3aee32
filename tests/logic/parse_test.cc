// Parser table tests: each input against its structural dump, and each
// malformed input against its exact message and offset.
#include <catch2/catch.hpp>
#include <string>

#include "logic/parse.h"
#include "logic/print.h"

using namespace softhat::logic;

namespace {
std::string dump_of(const std::string& text, const std::string& alphabet) { return dump(parse(text, alphabet)); }

std::string error_of(const std::string& text, const std::string& alphabet, std::size_t* offset = nullptr) {
  try {
    parse(text, alphabet);
  } catch (const ParseError& e) {
    if (offset) *offset = e.offset();
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST_CASE("parser: precedence, associativity and structure", "[logic][parse]") {
  struct Row {
    const char* text;
    const char* alphabet;
    const char* dump;
  };
  // The operands of &, | and <-> are in the canonical (structural) order, not
  // as written: letters before other operators, by symbol (formula.h,
  // structural_compare); the grouping shows precedence and associativity.
  const Row rows[] = {
      {"a", "ab", "'a'"},
      {"a & b | c", "abc", "(| 'c' (& 'a' 'b'))"},
      {"a | b & c", "abc", "(| 'a' (& 'b' 'c'))"},
      {"a -> b -> c", "abc", "(-> 'a' (-> 'b' 'c'))"},
      {"a <-> b <-> c", "abc", "(<-> 'c' (<-> 'a' 'b'))"},
      {"a | b -> c", "abc", "(-> (| 'a' 'b') 'c')"},
      {"a -> b <-> c", "abc", "(<-> 'c' (-> 'a' 'b'))"},
      {"a & b S c", "abc", "(& 'a' (S 'b' 'c'))"},
      {"a S b S c", "abc", "(S 'a' (S 'b' 'c'))"},
      {"a S b U c", "abc", "(S 'a' (U 'b' 'c'))"},
      {"!a S b", "ab", "(S (! 'a') 'b')"},
      {"Y Y a", "ab", "(Y (Y 'a'))"},
      {"!Y a", "ab", "(! (Y 'a'))"},
      {"X F G a", "ab", "(X (F (G 'a')))"},
      {"O H a", "ab", "(O (H 'a'))"},
      {"YOa", "ab", "(Y (O 'a'))"},
      {"aSb", "ab", "(S 'a' 'b')"},
      {"first | last", "ab", "(| first last)"},
      {"mod( 3 , 1 )", "ab", "(mod 3 1)"},
      {"a & (b | a)", "ab", "(& 'a' (| 'a' 'b'))"},
      {"(a & b) & (a & a)", "ab", "(& 'a' 'b')"},
      {"true & a", "ab", "'a'"},
      {"a | false", "ab", "'a'"},
      {"a & false", "ab", "false"},
      {"!!a", "ab", "'a'"},
      {"a -> true", "ab", "true"},
      {"false S a", "ab", "(Y 'a')"},
      {"true S a", "ab", "(O 'a')"},
      {"((a))", "ab", "'a'"},
      {"#a > #b", "ab", "(> [1*#'a' 0] [1*#'b' 0])"},
      {"#a > #b & b", "ab", "(& 'b' (> [1*#'a' 0] [1*#'b' 0]))"},
      {"!(#a > #b)", "ab", "(! (> [1*#'a' 0] [1*#'b' 0]))"},
      {"!#a > #b", "ab", "(! (> [1*#'a' 0] [1*#'b' 0]))"},
      {"2*#a - #b >= 3", "ab", "(>= [2*#'a' -1*#'b' 0] [3])"},
      {"0 - #a < 0", "ab", "(< [-1*#'a' 0] [0])"},
      {"#a + #a = 2*#a", "ab", "true"},
      {"1 < 2", "ab", "true"},
      {"12 = 12", "ab", "true"},
      {"#(a S b) < 1", "ab", "(< [1*#(S 'a' 'b') 0] [1])"},
      {"#Y a = 2", "ab", "(= [1*#(Y 'a') 0] [2])"},
      {"a S #a > 1", "ab", "(S 'a' (> [1*#'a' 0] [1]))"},
      // Digits: letters or integers by the contract's rule.
      {"1 & Y 0", "01", "(& '1' (Y '0'))"},
      {"#1 > #0 + 1", "01", "(> [1*#'1' 0] [1*#'0' 1])"},
      {"#0 != #1", "01", "(!= [1*#'0' 0] [1*#'1' 0])"},
      {"#Y 1 = 2", "01", "(= [1*#(Y '1') 0] [2])"},
      {"1 + #0 > 2", "01", "(> [1*#'0' 1] [2])"},
      {"1 > #0", "01", "(> [1] [1*#'0' 0])"},
      {"0 -> 1", "01", "(-> '0' '1')"},
      {"#(1 > #0) = 0", "01", "(= [1*#(> [1] [1*#'0' 0]) 0] [0])"},
      // Quoted symbols.
      {"'A' & Y 'B'", "AB", "(& 'A' (Y 'B'))"},
      {"'(' | ')'", "()", "(| '(' ')')"},
      {"'\\''", "'", "'''"},
      {"'\\\\' & 'a'", "\\a", "(& '\\' 'a')"},
  };
  for (const Row& row : rows) {
    INFO(row.text);
    CHECK(dump_of(row.text, row.alphabet) == row.dump);
  }
}

TEST_CASE("parser: comparisons keep their direction", "[logic][parse]") {
  // "1 > #0" is stored as written; only the dump above would reveal a flip.
  const Formula f = parse("1 > #0", "01");
  CHECK(f->cmp == Cmp::kGt);
  CHECK(f->lhs.is_constant());
  CHECK(f->lhs.constant == 1);
}

TEST_CASE("parser: errors name the position and what was expected", "[logic][parse]") {
  struct Row {
    std::string text;
    const char* alphabet;
    std::size_t offset;
    const char* message;
  };
  const Row rows[] = {
      {"Y (a & )", "ab", 7, "unexpected ')' at 7, expected a formula"},
      {"ab", "ab", 0, "ab at 0: did you mean a & b?"},
      {"a | c", "ab", 4, "symbol 'c' at 4 is not in the alphabet {a,b}"},
      {"", "ab", 0, "empty formula, expected a formula"},
      {"   ", "ab", 3, "empty formula, expected a formula"},
      {"(a", "ab", 2, "expected ')' at 2 to close the '(' at 0, found end of input"},
      {"a b", "ab", 2, "unexpected 'b' at 2, expected an operator or end of input"},
      {"a &", "ab", 3, "unexpected end of input at 3, expected a formula"},
      {"A", "Aa", 0, "unexpected 'A' at 0: upper-case letters are operators, write the symbol quoted as 'A'"},
      {"#a & b", "ab", 3,
       "expected a comparison (<, <=, >, >=, =, !=) at 3 after the counting term at 0, found '&'"},
      {"#a > ", "ab", 5, "expected a count '#...' or an integer at 5, found end of input"},
      {"2 * a > 1", "ab", 4, "expected a count '#...' at 4 after '*', found 'a'"},
      {"mod(2,2)", "ab", 0, "mod(2,2) at 0 needs m >= 1 and 0 <= r < m"},
      {"mod(0,0)", "ab", 0, "mod(0,0) at 0 needs m >= 1 and 0 <= r < m"},
      {"mod 2", "ab", 4, "expected '(' after mod at 4, found '2'"},
      {"'", "ab", 0, "unterminated quoted symbol at 0"},
      {"''", "ab", 0, "empty quoted symbol at 0 (a quote is written '\\'')"},
      {"'ab'", "ab", 0, "unterminated quoted symbol at 0, expected a closing quote"},
      {"a & @", "ab", 4,
       "unexpected '@' at 4, expected a formula (symbols other than lowercase letters and digits are written "
       "quoted: '@')"},
      {"99999999999 > #a", "ab", 0, "integer 99999999999 at 0 is too large (the limit is 1000000000)"},
      {"12 & a", "ab", 3,
       "expected a comparison (<, <=, >, >=, =, !=) at 3 after the counting term at 0, found '&'"},
      {"#12 > 1", "12", 1, "12 at 1: did you mean 1 & 2?"},
      {"5", "ab", 0, "symbol '5' at 0 is not in the alphabet {a,b}"},
      {"a < b", "ab", 2, "unexpected '<' at 2, expected an operator or end of input"},
  };
  for (const Row& row : rows) {
    INFO(row.text);
    std::size_t offset = 999;
    CHECK(error_of(row.text, row.alphabet, &offset) == row.message);
    CHECK(offset == row.offset);
  }
}

TEST_CASE("parser: deep nesting gives a clear error, not a crash", "[logic][parse]") {
  const std::size_t n = 100000;
  const std::string parens = std::string(n, '(') + "a" + std::string(n, ')');
  const std::string ys = [&] {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += "Y ";
    return s + "a";
  }();
  const std::string implications = [&] {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += "a -> ";
    return s + "b";
  }();
  const std::string iffs = [&] {
    std::string s = "a";
    for (std::size_t i = 0; i < n; ++i) s += (i % 2 ? " <-> a" : " <-> b");
    return s;
  }();
  const std::string counts = [&] {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += "#";
    return s + "a > 0";
  }();
  for (const std::string* text : {&parens, &ys, &implications, &iffs, &counts}) {
    const std::string message = error_of(*text, "ab");
    INFO(text->substr(0, 20));
    CHECK(message.find("formula nests deeper than 1000 levels at") == 0);
  }
  // Wide is fine: a conjunction of 100,000 operands is flat.
  std::string wide = "a";
  for (std::size_t i = 0; i < n; ++i) wide += (i % 2 ? " & a" : " & Y b");
  CHECK(dump_of(wide, "ab") == "(& 'a' (Y 'b'))");
  // Just under the limit parses.
  const std::string ok = std::string(999, '(') + "a" + std::string(999, ')');
  CHECK(dump_of(ok, "ab") == "'a'");
}

TEST_CASE("parser: alphabets are validated", "[logic][parse]") {
  CHECK_THROWS_WITH(parse("a", ""), "the alphabet is empty");
  CHECK_THROWS_WITH(parse("a", "aba"), "alphabet repeats 'a' at 2");
  CHECK_THROWS_WITH(parse("a", "a b"), "alphabet character byte 0x20 at 1 is not printable ASCII other than space");
  CHECK(alphabet_set("ab(") == "{a,b,(}");
}
