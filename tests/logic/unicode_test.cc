// Symbols are code points: alphabets declared from UTF-8 and validated per
// symbol, quoted non-ASCII symbols in formulas, the printer writing them back
// (print -> parse round trips), errors at byte offsets of the formula text;
// and a formula over "aáb" behaves exactly like the same formula over "acb"
// with c in place of á (evaluator, minimal DFA, compiled transformer).
#include <catch2/catch.hpp>
#include <string>

#include "automata/dfa.h"
#include "compile/compiler.h"
#include "logic/eval.h"
#include "logic/parse.h"
#include "logic/print.h"
#include "logic/random_formula.h"
#include "model/forward.h"
#include "util/error.h"
#include "util/random.h"
#include "util/symbols.h"
#include "words/words.h"

using namespace softhat;

namespace {
std::string error_of(const std::string& text, const std::string& alphabet, std::size_t* offset = nullptr) {
  try {
    logic::parse(text, alphabet);
  } catch (const logic::ParseError& e) {
    if (offset) *offset = e.offset();
    return e.what();
  }
  return "(no error)";
}

std::string alphabet_error(const std::string& utf8) {
  try {
    logic::validate_alphabet(logic::declare_alphabet(utf8));
  } catch (const std::invalid_argument& e) {
    return e.what();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// `text` with every character c replaced by `by`.
std::string replace_all(std::string text, char c, const std::string& by) {
  std::string out;
  for (char x : text) out += x == c ? by : std::string(1, x);
  return out;
}
}  // namespace

TEST_CASE("unicode: alphabets are declared from UTF-8 and validated per symbol", "[unicode][logic]") {
  const std::string abc = logic::declare_alphabet("a\u00e1b");
  REQUIRE(abc.size() == 3);
  CHECK(abc[0] == 'a');
  CHECK(abc[2] == 'b');
  CHECK(sym::encode(abc) == "a\u00e1b");
  CHECK_NOTHROW(logic::validate_alphabet(abc));
  CHECK(logic::alphabet_set(abc) == "{a,\u00e1,b}");
  CHECK(logic::declare_alphabet("ab") == "ab");  // ASCII: the bytes themselves

  CHECK(alphabet_error("\u00e1\u00e0\u01ce\u00e9\u00e8\u011b\u00f3\u00f2\u01d2\u00fa\u00f9\u01d4") == "(no error)");
  CHECK(alphabet_error("\U0001D49C\u4e2d") == "(no error)");
  // ASCII messages are the ones they always were.
  CHECK(alphabet_error("aab") == "alphabet repeats 'a' at 1");
  CHECK(alphabet_error("a b") == "alphabet character byte 0x20 at 1 is not printable ASCII other than space");
  CHECK(alphabet_error("") == "the alphabet is empty");
  // Non-ASCII symbols: named with their index (in symbols, from 0).
  CHECK(alphabet_error("a\u00e1b\u00e1") == "alphabet repeats '\u00e1' at 3");
  CHECK(alphabet_error("\u00e1\u00e9a\u00e1") == "alphabet repeats '\u00e1' at 3");
  CHECK(alphabet_error("a\u0301") ==
        "alphabet symbol U+0301 at 1 is a combining mark, not a printable symbol (softhat does not normalize: write "
        "the precomposed letter, e.g. U+00E1 for a + U+0301)");
  CHECK(alphabet_error("ab\u00a0") == "alphabet symbol U+00A0 at 2 is a space, not a printable symbol");
  CHECK(alphabet_error("a\u0085") == "alphabet symbol U+0085 at 1 is a control character, not a printable symbol");
  CHECK(alphabet_error("a\u200b") == "alphabet symbol U+200B at 1 is an invisible format character, not a printable symbol");
  CHECK(alphabet_error("a\xff") == "alphabet has invalid UTF-8 at byte 1 (0xff)");
  CHECK(alphabet_error("a\u00e1\xc3") == "alphabet has invalid UTF-8 at byte 3 (0xc3)");
}

TEST_CASE("unicode: quoted non-ASCII symbols parse to their codes and print back as UTF-8", "[unicode][logic]") {
  const std::string alphabet = logic::declare_alphabet("a\u00e1b\u01ce\U0001D49C");
  const char aacute = alphabet[1];
  const logic::Formula f = logic::parse("'\u00e1' S b", alphabet);
  CHECK(f == logic::since(logic::letter(aacute), logic::letter('b')));
  CHECK(logic::dump(f) == "(S '\u00e1' 'b')");
  CHECK(logic::to_string(f) == "'\u00e1' S b");
  // Round trips, including 4-byte symbols and counting.
  for (const std::string text : {"'\u00e1' S b", "#'\u01ce' > 2*#'\U0001D49C' + 1", "!'\u00e1' & Y ('\u01ce' | a)",
                                 "H ('\u00e1' -> X '\U0001D49C')", "'\u00e1' U ('\u01ce' S '\U0001D49C')"}) {
    INFO(text);
    const logic::Formula g = logic::parse(text, alphabet);
    const std::string printed = logic::to_string(g);
    CHECK(sym::valid_utf8(printed));
    CHECK(logic::parse(printed, alphabet) == g);
  }
  // Without an alphabet (syntax alone) any printable symbol is a letter.
  logic::ParseOptions syntax;
  const logic::Formula h = logic::parse("'\u0436' & b", syntax);  // ж
  CHECK(logic::to_string(h) == "b & '\u0436'");  // canonical order: by symbol code, b first
}

TEST_CASE("unicode: formula errors name byte offsets of the formula text", "[unicode][logic]") {
  const std::string alphabet = logic::declare_alphabet("a\u00e1b");
  std::size_t at = 0;
  CHECK(error_of("'\u00e1' S c", alphabet, &at) == "symbol 'c' at 7 is not in the alphabet {a,\u00e1,b}");
  CHECK(at == 7);
  CHECK(error_of("a & '\u01d6'", alphabet, &at) == "symbol '\u01d6' at 4 is not in the alphabet {a,\u00e1,b}");
  CHECK(at == 4);
  const std::string other = logic::declare_alphabet("\u00e9b");  // declared, but not in this alphabet
  CHECK(error_of("a | '\u00e9'", alphabet) == "symbol '\u00e9' at 4 is not in the alphabet {a,\u00e1,b}");
  CHECK(error_of("\u00e1 S b", alphabet, &at) ==
        "unexpected '\u00e1' at 0: symbols other than lowercase ASCII letters and digits are written quoted, as "
        "'\u00e1'");
  CHECK(at == 0);
  CHECK(error_of("b & a\u00e1", alphabet) ==
        "unexpected '\u00e1' at 5: symbols other than lowercase ASCII letters and digits are written quoted, as "
        "'\u00e1'");
  CHECK(error_of("a\u00a0& b", alphabet) == "unexpected U+00A0 at 1 (a space), expected a formula");
  CHECK(error_of("a & \xff", alphabet, &at) == "invalid UTF-8 at 4 (byte 0xff)");
  CHECK(at == 4);
  CHECK(error_of("a & '\xc3'", alphabet) == "invalid UTF-8 at 5 (byte 0xc3) in the quoted symbol at 4");
  CHECK(error_of("'\u0301'", alphabet) == "quoted symbol at 0 is U+0301, a combining mark, not a printable symbol");
  CHECK(error_of("'\u00e1", alphabet) == "unterminated quoted symbol at 0, expected a closing quote");
  CHECK(error_of("'\u00e1b'", alphabet) == "unterminated quoted symbol at 0, expected a closing quote");
  CHECK(error_of("'\u00e1' &", alphabet, &at) == "unexpected end of input at 6, expected a formula");
  CHECK(at == 6);
  (void)other;
}

TEST_CASE("unicode: a formula over aáb equals the same formula over acb, on every word to length 6",
          "[unicode][logic][compile]") {
  const std::string ascii = "acb";
  const std::string uni = logic::declare_alphabet("a\u00e1b");
  const char aacute = uni[1];
  const std::vector<std::string> words = words::all_words(ascii, 6);
  std::mt19937_64 rng = derived_rng(61, "unicode-formulas");
  logic::RandomFormulaOptions o;
  o.alphabet = ascii;
  o.max_depth = 4;
  o.modular = true;
  for (int k = 0; k < 48; ++k) {
    o.counting = k % 4 == 3;
    const logic::Formula f = logic::random_formula(rng, o);
    // The same formula with 'á' written where c was (no keyword holds a c).
    const std::string text = replace_all(logic::to_string(f), 'c', "'\u00e1'");
    INFO(logic::to_string(f) << "  vs  " << text);
    const logic::Formula g = logic::parse(text, uni);
    CHECK(logic::to_string(g) == text);
    const bool regular = !(f->bits & logic::kCountBit);
    std::optional<automata::Dfa> dfa_f, dfa_g;
    if (regular) {
      dfa_f = automata::dfa_from_formula(f, ascii);
      dfa_g = automata::dfa_from_formula(g, uni);
      CHECK(dfa_f->states() == dfa_g->states());
    }
    const compile::PeMode pe = k % 2 ? compile::PeMode::kUnbounded : compile::PeMode::kBounded;
    const compile::Compiled cf = compile::compile_formula(f, ascii, {pe, compile::kDefaultC});
    const compile::Compiled cg = compile::compile_formula(g, uni, {pe, compile::kDefaultC});
    // The same weights: token k is the k-th symbol in both.
    std::vector<std::vector<double>> wf, wg;
    model::for_each_tensor(cf.model, [&](const model::TensorView<const double>& t) {
      wf.emplace_back(t.data, t.data + t.size());
    });
    model::for_each_tensor(cg.model, [&](const model::TensorView<const double>& t) {
      wg.emplace_back(t.data, t.data + t.size());
    });
    CHECK(wf == wg);
    const model::Engine ef(cf.model), eg(cg.model);
    model::RunOptions hard;
    hard.mode = model::AttentionMode::kHard;
    for (const std::string& w : words) {
      std::string v = w;
      for (char& x : v) x = x == 'c' ? aacute : x;
      const bool expected = logic::accepts(f, w);
      INFO("on \"" << w << "\"");
      REQUIRE(logic::accepts(g, v) == expected);
      if (regular) REQUIRE(dfa_g->accepts(v) == expected);
      const model::RunResult r = eg.run(v);
      REQUIRE(r.accepted == expected);
      REQUIRE(r.output_margin == 0.5);
      REQUIRE(ef.run(w).accepted == expected);
      if (k % 6 == 0) REQUIRE(eg.run(v, hard).accepted == expected);
    }
  }
}
