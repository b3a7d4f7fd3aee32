// Counting formulas compiled: random formulas with counting terms (nested in
// temporal operators and around them) against the evaluator on every word to
// length 8; long near-boundary words; the fixed-temperature ablation.
#include <catch2/catch.hpp>

#include "compile/compiler.h"
#include "lang/catalog.h"
#include "logic/eval.h"
#include "logic/parse.h"
#include "logic/print.h"
#include "logic/random_formula.h"
#include "model/forward.h"
#include "util/random.h"
#include "verify/sample_words.h"
#include "words/words.h"

using namespace softhat;

TEST_CASE("counting: 300+ random counting formulas agree with the evaluator to length 8", "[compile][counting]") {
  const std::vector<std::string> words = words::all_words("ab", 8);
  std::mt19937_64 rng = derived_rng(43, "counting-random");
  logic::RandomFormulaOptions o;
  o.alphabet = "ab";
  o.max_depth = 4;
  o.counting = true;
  int with_counts = 0;
  for (int k = 0; k < 2000 && with_counts < 320; ++k) {
    const logic::Formula f = logic::random_formula(rng, o);
    if (!(f->bits & logic::kCountBit)) continue;
    ++with_counts;
    const compile::PeMode pe = k % 2 ? compile::PeMode::kUnbounded : compile::PeMode::kBounded;
    const compile::Compiled c = compile::compile_formula(f, "ab", {pe, compile::kDefaultC});
    CHECK(c.model.config.beta.describe() == "4*(n+1)*ln(n+1)");
    const model::Engine engine(c.model);
    model::RunOptions hard;
    hard.mode = model::AttentionMode::kHard;
    for (const std::string& w : words) {
      INFO(logic::to_string(f) << " (" << compile::pe_name(pe) << ") on \"" << w << "\"");
      const bool expected = logic::accepts(f, w);
      const model::RunResult r = engine.run(w);
      REQUIRE(r.accepted == expected);
      REQUIRE(r.output_margin == 0.5);
      if (k % 4 == 0) REQUIRE(engine.run(w, hard).accepted == expected);
    }
  }
  CHECK(with_counts >= 300);
}

TEST_CASE("counting: catalogue languages at length 10,000 on near-boundary words", "[compile][counting]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  for (const char* name : {"majority", "dyck-1", "anbn", "anbncn", "prefix-majority", "twice-as-many-a",
                           "dyck-1-prefix"}) {
    const lang::Language& l = catalog.find(name);
    const model::Engine engine(compile::compile_formula(*l.formula, l.alphabet()).model);
    int positives = 0;
    const std::string nm = name;
    const std::size_t n = nm == "anbncn" || nm == "twice-as-many-a" ? 9999 : 10000;  // multiples of 3
    for (const std::string& w : verify::balanced_words(l, n, 6, 11, 0)) {
      const bool expected = l.checker->accepts(w);
      positives += expected;
      INFO(name << " word of length " << w.size());
      REQUIRE(engine.run(w).accepted == expected);
    }
    CHECK(positives >= (std::string(name).rfind("anbn", 0) == 0 ? 1 : 3));  // a^n b^n (c^n): one word
  }
}

TEST_CASE("counting: a fixed temperature fails at large n, the schedule does not", "[compile][counting]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  const lang::Language& l = catalog.find("majority");
  const model::Engine engine(compile::compile_formula(*l.formula, l.alphabet()).model);
  model::RunOptions fixed;
  fixed.beta = compile::parse_beta("100");
  std::size_t first_failure = 0;
  for (std::size_t n = 2; n <= 2000 && !first_failure; n += 7) {
    // The hardest words: #a - #b in {0, 1} (one symbol decides).
    for (const std::string& w : {std::string(n / 2 + n % 2, 'a') + std::string(n / 2, 'b'),
                                 std::string(n / 2, 'b') + std::string(n - n / 2, 'a'),
                                 std::string(n - n / 2, 'b') + std::string(n / 2, 'a')}) {
      const bool expected = l.checker->accepts(w);
      REQUIRE(engine.run(w).accepted == expected);
      if (engine.run(w, fixed).accepted != expected && !first_failure) first_failure = n;
    }
  }
  INFO("beta = 100 first fails at n = " << first_failure);
  CHECK(first_failure > 2);
  CHECK(first_failure <= 2000);
}

TEST_CASE("counting: counts nest in temporal operators and the reverse", "[compile][counting]") {
  for (const char* f : {"O(#a > #b)", "#(a & Y b) = 2", "(#a = #b) S b", "H(#b <= #a + 1) & F(#a > 3)",
                        "#(#a > #b) > 2", "X(#a = 2*#b) | mod(2,0) & #b != 1"}) {
    const logic::Formula formula = logic::parse(f, "ab");
    const model::Engine engine(compile::compile_formula(formula, "ab").model);
    words::for_each_word("ab", 10, [&](const std::string& w) {
      INFO(f << " \"" << w << "\"");
      REQUIRE(engine.run(w).accepted == logic::accepts(formula, w));
      return true;
    });
  }
}
