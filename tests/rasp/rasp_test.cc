// The S-RASP front end and reference interpreter: the eleven example
// programs of examples/srasp/ against direct oracles on every word up to
// length 6 (5 for the larger alphabets) and on 200 random words of lengths
// 20 to 100; fragments; positioned errors for malformed programs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "rasp/oracles.h"
#include "rasp/program.h"
#include "util/symbols.h"
#include "words/words.h"

using namespace softhat;

namespace {

const std::string kDir = SOFTHAT_SOURCE_DIR "/examples/srasp/";

bool dyck2(const std::string& w) { return (*rasp::direct_oracle("dyck2"))(w) == "1"; }

std::string plain(const std::string& codes) { return sym::encode(codes); }

}  // namespace

TEST_CASE("every S-RASP example agrees with its oracle on all short words and 200 random long ones", "[rasp]") {
  REQUIRE(rasp::oracle_names().size() == 11);
  for (const std::string& name : rasp::oracle_names()) {
    const rasp::ProgramOracle& oracle = *rasp::direct_oracle(name);
    const rasp::Program p = rasp::load_program(kDir + name + ".srasp");
    const std::size_t short_len = p.alphabet.size() <= 4 ? 6 : 5;
    const bool padded = p.pad.has_value();  // square, msquare: N = n^2, so long words stay shorter
    std::size_t checked = 0;
    words::for_each_word(p.alphabet, short_len, [&](const std::string& w) {
      INFO(name << " on '" << plain(w) << "'");
      REQUIRE(plain(rasp::run_program(p, w, 1'000'000)) == oracle(plain(w)));
      ++checked;
      return true;
    });
    CHECK(checked == words::count_words(p.alphabet.size(), short_len));
    std::mt19937_64 rng(20261202);
    for (int k = 0; k < 200; ++k) {
      const std::size_t n = padded ? 20 + rng() % 21 : 20 + rng() % 81;
      const std::string w = words::random_word(rng, p.alphabet, n, static_cast<std::uint64_t>(k));
      INFO(name << " on '" << plain(w) << "'");
      REQUIRE(plain(rasp::run_program(p, w, 1'000'000)) == oracle(plain(w)));
    }
  }
}

TEST_CASE("dyck2 as an acceptor: its verdicts are the stack's, and balanced random words are accepted", "[rasp]") {
  const rasp::Program p = rasp::load_program(kDir + "dyck2.srasp");
  words::for_each_word(p.alphabet, 8, [&](const std::string& w) {
    if (w.empty()) {
      CHECK_THROWS_AS(rasp::run_acceptor(p, w, 1000), std::invalid_argument);
    } else {
      INFO(plain(w));
      CHECK(rasp::run_acceptor(p, w, 1000) == dyck2(plain(w)));
    }
    return true;
  });
  // Uniform words are almost never balanced: build balanced ones.
  std::mt19937_64 rng(7);
  for (int k = 0; k < 50; ++k) {
    std::string w, stack;
    const std::size_t n = 2 * (10 + rng() % 40);
    while (w.size() + stack.size() < n) {
      if (!stack.empty() && rng() % 2) {
        w += stack.back() == '(' ? ')' : ']';
        stack.pop_back();
      } else {
        stack += rng() % 2 ? '(' : '[';
        w += stack.back();
      }
    }
    while (!stack.empty()) w += stack.back() == '(' ? ')' : ']', stack.pop_back();
    CHECK(rasp::run_acceptor(p, sym::declare(w), 100000));
    w[rng() % w.size()] = w[0] == '(' ? '[' : '(';  // one symbol changed: unbalanced or re-typed
    CHECK(rasp::run_acceptor(p, sym::declare(w), 100000) == dyck2(w));
  }
}

TEST_CASE("the examples' fragments are the smallest that hold them", "[rasp]") {
  const std::map<std::string, rasp::Fragment> want = {
      {"rotate", rasp::Fragment::kBRasp},       {"khop", rasp::Fragment::kBRasp},
      {"firsthalf", rasp::Fragment::kBRaspPos}, {"reverse", rasp::Fragment::kBRaspPos},
      {"mapreverse", rasp::Fragment::kBRaspPos}, {"mapdup", rasp::Fragment::kBRaspPos},
      {"compact", rasp::Fragment::kSRasp},      {"sortbin", rasp::Fragment::kSRasp},
      {"square", rasp::Fragment::kSRasp},       {"msquare", rasp::Fragment::kSRasp},
      {"dyck2", rasp::Fragment::kSRasp}};
  for (const auto& [name, fragment] : want) {
    INFO(name);
    CHECK(rasp::load_program(kDir + name + ".srasp").fragment == fragment);
  }
  // Counting without positions: C-RASP.
  const rasp::Program majority = rasp::parse_program(
      "input alphabet {a, b}\nca : int := psum(tok == 'a')\ncb : int := psum(tok == 'b')\n"
      "out : sym := if ca > cb then '1' else '0'\noutput out\n", "majority");
  CHECK(majority.fragment == rasp::Fragment::kCRasp);
  CHECK(plain(rasp::run_program(majority, sym::declare("aab"), 100)) == "111");
}

TEST_CASE("the trace follows the semantics position by position", "[rasp]") {
  const rasp::Program p = rasp::load_program(kDir + "mapreverse.srasp");
  const rasp::Trace t = rasp::interpret(p, sym::declare("ab|cde|f"), 100);
  CHECK(t.padded == 8);
  // start, stop, tgt (statements 2, 3, 4) at the non-separator positions.
  const std::vector<std::int64_t> start = {0, 0, -1, 3, 3, 3, -1, 7}, stop = {1, 1, -1, 5, 5, 5, -1, 7};
  for (std::size_t i = 0; i < 8; ++i) {
    if (start[i] < 0) continue;
    CHECK(t.numbers[2][i] == start[i]);
    CHECK(t.numbers[3][i] == stop[i]);
  }
  const rasp::Program sq = rasp::load_program(kDir + "square.srasp");
  CHECK(sq.length_with_padding(3) == 9);
  CHECK(rasp::interpret(sq, sym::declare("abc"), 100).padded == 9);
  CHECK_THROWS_AS(rasp::interpret(sq, sym::declare("abcabcabcabc"), 100), LimitError);  // N = 144 > 100
}

TEST_CASE("integers that leave 64 bits are an error, never a wrong value", "[rasp]") {
  const rasp::Program p = rasp::parse_program(
      "input alphabet {a}\nx : int := 1000000000000000000 * 9\ny : int := psum(x)\n"
      "out : sym := if y > 0 then 'a' else '#'\noutput out\n", "big");
  CHECK(plain(rasp::run_program(p, sym::declare("a"), 10)) == "a");
  CHECK_THROWS_AS(rasp::run_program(p, sym::declare("aa"), 10), std::overflow_error);
}

TEST_CASE("malformed programs give the line, the column and what was expected", "[rasp]") {
  const std::string head = "input alphabet {a, b}\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {head + "x : int := tok\noutput x\n", "p:2:12: 'x' is declared int, but its definition is sym"},
      {head + "x : bool := pos + true\n", "p:2:19: the right side of + must be int, found bool"},
      {head + "x : sym := if tok == 'a' then 1 else 'b'\n", "p:2:38: the branches of an if differ: int and sym"},
      {head + "x : sym := y\n", "p:2:12: unknown name 'y' (expected tok, pos or a vector defined above)"},
      {head + "x : sym := rmost j [all] (tok == 'a') -> tok else '#'\n",
       "p:2:27: in a score every variable is read at [i] or [j]: write tok[i] or tok[j]"},
      {head + "x : int := pos * pos\n",
       "p:2:16: a multiplication needs an integer literal as one factor (x * y of two vectors is not position-wise "
       "linear; write 2 * x)"},
      {head + "x : int := y + 1\ny : int := x\n",
       "p:2:12: 'y' is defined later, at line 3 (no recursion: each vector uses only those above it)"},
      {head + "x : int := x + 1\n", "p:2:12: 'x' is used in its own definition (no recursion: each vector uses only those above it)"},
      {head + "x : sym := tok\n", "p:3:1: no `output NAME` line (expected the sym vector the program outputs)"},
      {head + "x : bool := tok == 'c'\n", "p:2:20: 'c' is not in the input alphabet {a, b} (tok never equals it)"},
      {head + "x : int := pos\noutput x\n", "p:3:8: the output must be a sym vector; 'x' is int"},
      {head + "x : sym := rmost j [j<k] (true) -> tok else '#'\n",
       "p:2:20: expected a mask: [all], [j<i], [j<=i], [j>i] or [j>=i]"},
      {head + "x : sym := rmost j [all] (true) -> tok[i] else '#'\n",
       "p:2:36: a value is read at the selected j: write tok or tok[j]"},
      {head + "x : sym := rmost j [all] (true) -> tok else tok[j]\n",
       "p:2:45: tok[j] outside a score or value: here vectors are read at i (write tok)"},
      {head + "x : int := psum(tok)\n", "p:2:17: psum sums an int or a bool (true counts 1), not a sym"},
      {head + "x : sym := tok\nx : sym := tok\n", "p:3:1: 'x' is already defined (programs are straight-line: no redefinition)"},
      {head + "pos : int := 1\n", "p:2:1: 'pos' is predefined and cannot be redefined"},
      {head + "x : real := 1\n", "p:2:5: expected a type (bool, int or sym), found 'real'"},
      {head + "x : int = 1\n", "p:2:9: expected ':=', found '='"},
      {head + "x : sym := 'ab'\n", "p:2:12: a symbol literal holds exactly one character, as in 'a' (expected a closing ')"},
      {head + "x : int := (1 + 2\n", "p:2:18: expected ')', found the end of the line"},
      {head + "x : int := 1 +\n", "p:2:15: expected a value (a number, 'x', true, false or a name), found the end of the line"},
      {"x : sym := tok\n", "p:1:1: expected `input alphabet {...}` before the first statement"},
      {"input alphabet {a, #}\n", "p:1:20: '#' is the padding symbol: it cannot be an input symbol"},
      {"input alphabet {a, a}\n", "p:1:20: 'a' is listed twice"},
      {head + "pad n * m\n", "p:2:9: the padding polynomial is over n alone, found 'm'"},
      {head + "x : sym := rmost j [all] (pos[i] < pos[j]) -> tok else '#' extra\n",
       "p:2:60: expected the end of the line, found 'extra'"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    try {
      rasp::parse_program(text, "p");
      FAIL("accepted");
    } catch (const rasp::ProgramError& e) {
      CHECK(std::string(e.what()) == message);
    }
  }
}

TEST_CASE("deep nesting and long chains are refused at a position, not by a stack overflow", "[rasp]") {
  std::string chain = "input alphabet {a}\nx : int := 1";
  for (int k = 0; k < 1500; ++k) chain += "+1";
  chain += "\nout : sym := tok\noutput out\n";
  CHECK_THROWS_WITH(rasp::parse_program(chain, "p"), Catch::Matchers::StartsWith("p:2:") &&
                                                         Catch::Matchers::EndsWith("an expression deeper than 1000 operations (split it into statements)"));
  const std::string parens = "input alphabet {a}\nx : int := " + std::string(300, '(') + "1" + std::string(300, ')') + "\n";
  CHECK_THROWS_WITH(rasp::parse_program(parens, "p"), Catch::Matchers::EndsWith("expressions nest deeper than 100 levels"));
  // Within the bounds, a long chain parses and runs.
  std::string ok = "input alphabet {a}\nx : int := 0";
  for (int k = 0; k < 900; ++k) ok += "+1";
  ok += "\nout : sym := if x == 900 then 'a' else '#'\noutput out\n";
  CHECK(rasp::run_program(rasp::parse_program(ok, "p"), sym::declare("aa"), 10) == sym::declare("aa"));
}
