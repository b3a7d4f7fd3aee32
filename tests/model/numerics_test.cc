// Numerical robustness: no NaN or inf anywhere (outputs, margins) for beta
// from 1e-12 to 1e12 and n up to 10^6, in double and float; at beta = 1e12
// softmax is hard attention, so the verdict is the formula's.
#include <catch2/catch.hpp>
#include <cmath>

#include "compile/compiler.h"
#include "lang/catalog.h"
#include "logic/eval.h"
#include "model/forward.h"
#include "util/random.h"
#include "words/words.h"

using namespace softhat;

TEST_CASE("numerics: no NaN or inf for beta up to 1e12 and n up to 10^6", "[model][numerics]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  int checked = 0;
  for (const char* name : {"a-since-b", "c-flanked", "majority", "third-last-a", "start-a-until-b"}) {
    const lang::Language& l = catalog.find(name);
    const model::Transformer t = compile::compile_formula(*l.formula, l.alphabet()).model;
    for (const model::Precision precision : {model::Precision::kDouble, model::Precision::kFloat}) {
      const model::Engine engine(t, precision);
      std::mt19937_64 rng = derived_rng(7, name);
      for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{1000000}}) {
        // The longest words only for the first model (they take a second each).
        if (n == 1000000 && std::string(name) != "a-since-b") continue;
        const std::string w = words::random_word(rng, l.alphabet(), n, 0);
        const bool expected = logic::accepts(*l.formula, w);
        for (const double beta : {1e-12, 1.0, 1e6, 1e12}) {
          INFO(name << " n = " << n << " beta = " << beta << (precision == model::Precision::kFloat ? " float" : ""));
          model::RunOptions o;
          o.beta = model::BetaSchedule{.c = beta, .a = 0.0, .b = 0.0};
          o.trace = true;
          const model::RunResult r = engine.run(w, o);
          CHECK(std::isfinite(r.y));
          CHECK(std::isfinite(r.output_margin));
          REQUIRE(r.margins);
          CHECK(std::isfinite(r.margins->min_target_mass));
          CHECK(r.margins->min_target_mass >= 0.0);
          CHECK(r.margins->min_target_mass <= 1.0 + 1e-12);
          CHECK(!std::isnan(r.margins->min_gap));
          CHECK(!std::isnan(r.margins->min_scaled_gap));
          if (beta == 1e12) CHECK(r.accepted == expected);
          ++checked;
        }
      }
    }
  }
  CHECK(checked == 5 * 2 * 3 * 4 + 2 * 4);
}
