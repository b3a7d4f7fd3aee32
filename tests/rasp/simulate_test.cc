// simulate --program: the measured gaps of the exact AHAT against the
// compiler's gap table, and the growth of the smallest working beta (beta*)
// for dyck2 and square, fitted and printed: the theory says gamma ~ M^-3 and
// beta ~ M^3 ln M (M = N + 1, N the padded length; N = n^2 for square).
#include <catch2/catch.hpp>

#include <cmath>
#include <iostream>

#include "rasp/compile.h"
#include "rasp/program.h"
#include "rasp/simulate.h"
#include "util/symbols.h"

using namespace softhat;

namespace {

const std::string kDir = SOFTHAT_SOURCE_DIR "/examples/srasp/";

rasp::ProgramSimulation run(const std::string& name, std::vector<std::size_t> lengths, bool bisect,
                            std::optional<model::BetaSchedule> beta = std::nullopt) {
  const rasp::Program p = rasp::load_program(kDir + name + ".srasp");
  const rasp::CompiledProgram c = rasp::compile_program(p);
  rasp::ProgramSimOptions o;
  o.lengths = std::move(lengths);
  o.samples = 4;
  o.exhaustive_limit = 0;  // adversarial and random words only
  o.seed = 5;
  o.bisect = bisect;
  o.beta = beta;
  return rasp::simulate_program(p, c, o);
}

}  // namespace

TEST_CASE("simulate --program: beta* of dyck2 and square grows like M^3, the gap like M^-3", "[rasp][simulate]") {
  struct Case {
    const char* name;
    std::vector<std::size_t> lengths;
  };
  for (const Case& k : {Case{"dyck2", {8, 16, 32}}, Case{"square", {2, 3, 4, 5, 6}}}) {
    const rasp::ProgramSimulation sim = run(k.name, k.lengths, true);
    INFO(rasp::format_program_simulation(sim, false));
    CHECK(sim.ok());
    for (const rasp::ProgramLength& r : sim.lengths) {
      REQUIRE(r.words > 0);
      CHECK(r.refused == 0);
      CHECK(r.measured_gap >= r.analytic_gap * (1 - 1e-12));
      REQUIRE(r.empirical_beta.has_value());
      CHECK(*r.empirical_beta <= r.beta);  // the schedule is never below what the words need
    }
    REQUIRE(sim.empirical_beta_exponent.has_value());
    REQUIRE(sim.gap_exponent.has_value());
    std::cout << k.name << ": beta* ~ M^" << *sim.empirical_beta_exponent << ", measured gamma ~ M^"
              << *sim.gap_exponent << " (M = N + 1)\n";
    CHECK(*sim.gap_exponent == Approx(-3.0).margin(0.15));
    CHECK(*sim.empirical_beta_exponent > 2.5);
    CHECK(*sim.empirical_beta_exponent < 3.8);
  }
}

TEST_CASE("simulate --program: dyck2's analytic gap is attained, head by head, on balanced words", "[rasp][simulate]") {
  const rasp::ProgramSimulation sim = run("dyck2", {6, 12}, false);
  for (const rasp::ProgramLength& r : sim.lengths) {
    CHECK(r.measured_gap == Approx(r.analytic_gap).epsilon(1e-9));
    for (const rasp::ProgramHeadGap& h : r.heads) {
      INFO(h.label);
      CHECK(std::isinf(h.analytic) == std::isinf(h.measured));  // uniform heads exactly
    }
  }
}

TEST_CASE("simulate --program: a fixed beta loses agreement as N grows", "[rasp][simulate]") {
  const rasp::ProgramSimulation sim = run("dyck2", {4, 32}, false, model::BetaSchedule{50.0, 0.0, 0.0});
  REQUIRE(sim.lengths.size() == 2);
  const rasp::ProgramLength& big = sim.lengths[1];
  CHECK(big.ahat_agree == big.words);  // the exact AHAT is right regardless
  CHECK(big.softmax_agree < big.words);
  CHECK(big.first_disagreement.has_value());
  CHECK_FALSE(sim.ok());
}

TEST_CASE("verify --program: the check is the same for any thread count, failures included", "[rasp][simulate]") {
  // Words in contiguous blocks, one per thread, each counted apart and
  // merged: the rows (counts, betas, gap ratios and the shortlex-least
  // failing word) must not depend on the split. With another program's
  // oracle every set of length >= 1 fails, so the first failure is merged too.
  for (const char* oracle : {"khop", "reverse"}) {
    const rasp::Program khop = rasp::load_program(kDir + "khop.srasp");
    const rasp::CompiledProgram compiled = rasp::compile_program(khop);
    rasp::ProgramCheckOptions o;
    o.max_len = 3;
    o.samples = 13;
    o.random_lengths = {5, 9, 14};
    o.threads = 1;
    const nlohmann::ordered_json one = rasp::program_check_json(rasp::verify_program(khop, compiled, oracle, o));
    for (const int threads : {2, 3, 7, 40}) {
      o.threads = threads;
      const rasp::ProgramCheck check = rasp::verify_program(khop, compiled, oracle, o);
      INFO(oracle << ", " << threads << " threads");
      CHECK(rasp::program_check_json(check) == one);
    }
    CHECK(one["ok"] == (std::string(oracle) == "khop"));
    if (std::string(oracle) == "reverse") CHECK(one["rows"][3]["first_failure"] != nullptr);
  }
}

TEST_CASE("verify --program: each compiled example agrees with its oracle four ways, and a wrong oracle is caught", "[rasp][simulate]") {
  for (const char* name : {"rotate", "firsthalf", "reverse", "mapreverse", "mapdup", "compact", "sortbin", "square",
                           "msquare", "khop", "dyck2"}) {
    const rasp::Program p = rasp::load_program(kDir + name + ".srasp");
    const rasp::CompiledProgram c = rasp::compile_program(p);
    rasp::ProgramCheckOptions o;
    o.max_len = 3;
    o.samples = 8;
    o.random_lengths = p.pad ? std::vector<std::size_t>{6, 7, 8} : std::vector<std::size_t>{20, 25, 30};
    const rasp::ProgramCheck check = rasp::verify_program(p, c, name, o);
    INFO(rasp::format_program_check(check));
    CHECK(check.ok());
    REQUIRE(check.rows.size() == 5);  // lengths 0..3, then the random words
    std::uint64_t expected = 1;
    for (std::size_t n = 0; n <= 3; ++n, expected *= p.alphabet.size()) {
      CHECK(check.rows[n].words == expected);
      CHECK(check.rows[n].oracle_agree == expected);
      CHECK(check.rows[n].ahat_agree + check.rows[n].refused == expected);
      CHECK(check.rows[n].softmax_agree + check.rows[n].refused == expected);
      CHECK(check.rows[n].gap_short == 0);
      CHECK_FALSE(check.rows[n].first_failure);
    }
    CHECK(check.rows[4].words == 8);
    CHECK(check.rows[4].min_gap_ratio >= 1 - 1e-12);
  }
  const rasp::Program khop = rasp::load_program(kDir + "khop.srasp");
  const rasp::CompiledProgram compiled = rasp::compile_program(khop);
  rasp::ProgramCheckOptions o;
  o.max_len = 2;
  o.samples = 0;
  SECTION("the interpreter as the reference, with no oracle") {
    const rasp::ProgramCheck check = rasp::verify_program(khop, compiled, "", o);
    CHECK(check.ok());
    CHECK(check.rows[2].oracle_agree == 0);
    CHECK(check.rows[2].ahat_agree == 16);
  }
  SECTION("another program's oracle: every mode fails, the first failure is a shortest word") {
    const rasp::ProgramCheck check = rasp::verify_program(khop, compiled, "reverse", o);
    CHECK_FALSE(check.ok());
    CHECK_FALSE(check.rows[0].first_failure);  // the empty word: both give the empty output
    REQUIRE(check.rows[1].first_failure);
    CHECK(sym::encode(*check.rows[1].first_failure) == "a");  // khop gives '~', reverse 'a'
    CHECK(check.rows[1].failure == "interpreter, AHAT, softmax");
    CHECK(check.rows[2].oracle_agree < 16);
  }
  SECTION("an unknown oracle is an input error naming the known ones") {
    CHECK_THROWS_WITH(rasp::verify_program(khop, compiled, "nope", o),
                      Catch::Matchers::Contains("no direct oracle named 'nope'") && Catch::Matchers::Contains("rotate"));
  }
}
