// The exact average-hard reference: it agrees with the engine's double hard
// mode where there are no near-ties, detects exact ties (average over the
// tie set) and tiny non-ties (a gap of 2^-52) without a tolerance, gives the
// analytic gaps of compiled heads, and the theorem's beta(n) really bounds
// the softmax error (measured distance <= proven bound on every word).
#include <catch2/catch.hpp>
#include <cmath>

#include "compile/acceptor.h"
#include "lang/catalog.h"
#include "model/exact_ahat.h"
#include "model/prefix_runner.h"
#include "model/random_model.h"
#include "model/temperature_bound.h"
#include "simulate/simulate.h"
#include "util/random.h"
#include "words/words.h"

using namespace softhat;
using namespace softhat::model;

namespace {
// Residual [one, frac, isB, out]; PE one, j/(n+1); symbol b sets isB.
// One unmasked head: q = one * query_scale, k = isB * key_scale, value = frac.
Transformer tie_probe(double key_scale_b, double key_scale_a) {
  ModelConfig c;
  c.alphabet = "ab";
  c.d_model = 5;
  c.residual_labels = {"one", "frac", "isB", "isA", "out"};
  c.position_features = {parse_position_feature("one"), parse_position_feature("j/(n+1)")};
  c.layers = {LayerConfig{.heads = {HeadConfig{.d_head = 1, .d_value = 1, .mask = Mask::kNone, .hard = HardKind::kAverage, .label = "probe"}}, .ffn_hidden = 0, .label = ""}};
  c.readout = {4, 0.5};
  Transformer t = Transformer::zeros(c);
  t.pos_proj(0, 0) = 1;
  t.pos_proj(1, 1) = 1;
  t.embed(2, 2) = 1;  // b
  t.embed(1, 3) = 1;  // a
  t.layers[0].heads[0].q(0, 0) = 1;
  t.layers[0].heads[0].k(0, 2) = key_scale_b;
  t.layers[0].heads[0].k(0, 3) = key_scale_a;
  t.layers[0].heads[0].v(0, 1) = 1;
  t.layers[0].heads[0].o(4, 0) = 1;
  return t;
}
}  // namespace

TEST_CASE("exact AHAT: an exact tie set is averaged and its gap is exact", "[model][ahat]") {
  // paper-digest §5.5: scores [w_j = b] on abbabaab; M = {2,3,5,8}, gap 1.
  const Transformer t = tie_probe(1.0, 0.0);
  const ExactRun r = ExactAhat(t).run("abbabaab");
  REQUIRE(r.heads.size() == 1);
  CHECK(r.heads[0].gap == 1.0);
  CHECK(r.heads[0].tied_rows == 9);  // every row: four tied keys, not all
  CHECK(r.heads[0].uniform_rows == 0);
  // Mean of j/9 over j in {2,3,5,8}: 18/36 = 0.5 exactly, at every position.
  for (Eigen::Index i = 0; i < r.states.rows(); ++i) CHECK(r.states(i, 4) == 0.5);
  // All a: every score is 0 (BOS too): uniform rows, no gap.
  const ExactRun u = ExactAhat(t).run("aaaa");
  CHECK(u.heads[0].gap == kNoGap);
  CHECK(u.heads[0].uniform_rows == 5);
}

TEST_CASE("exact AHAT: a difference of one ulp is a gap, not a tie", "[model][ahat]") {
  // a scores 1 + 2^-52, b scores 1: a double tolerance would call this a tie.
  const double eps = std::ldexp(1.0, -52);
  const Transformer t = tie_probe(1.0, 1.0 + eps);
  const ExactRun r = ExactAhat(t).run("ab");
  CHECK(r.heads[0].gap == eps);
  CHECK(r.heads[0].tied_rows == 0);
  CHECK(r.states(0, 4) == Approx(1.0 / 3.0).epsilon(1e-15));  // all weight on the a at j = 1
}

TEST_CASE("exact AHAT: equals the engine's average-hard mode on random models", "[model][ahat]") {
  for (int k = 0; k < 30; ++k) {
    std::mt19937_64 rng = derived_rng(7, "exact-ahat", static_cast<std::uint64_t>(k));
    const Transformer t = random_model(rng, {k % 2 ? "ab" : "abc", 3, 3, 8});
    const ExactAhat exact(t);
    const Engine engine(t);
    RunOptions o;
    o.mode = AttentionMode::kHard;
    o.force_average = true;
    o.keep_all_states = true;
    for (const std::string& w : words::all_words(t.config.alphabet, 4)) {
      const ExactRun e = exact.run(w);
      const RunResult d = engine.run(w, o);
      const double scale = 1.0 + e.states.cwiseAbs().maxCoeff();
      INFO("model " << k << " word '" << w << "'");
      CHECK((e.states - d.states).cwiseAbs().maxCoeff() <= 1e-9 * scale);
      CHECK(e.accepted == d.accepted);
      CHECK(e.min_gap() > 0);
    }
  }
}

TEST_CASE("exact AHAT: compiled since heads have gap exactly 1/(n+1) (bounded PE)", "[model][ahat]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  const Transformer t = compile::build_acceptor(catalog.find("a-since-b"), {}).model;
  const ExactAhat exact(t);
  for (std::size_t n = 2; n <= 7; ++n) {
    double gap = kNoGap;
    words::for_each_word("abc", n, [&](const std::string& w) {
      if (w.size() == n) gap = std::min(gap, exact.run(w).min_gap());
      return true;
    });
    INFO("n = " << n);
    CHECK(gap == Approx(1.0 / static_cast<double>(n + 1)).epsilon(1e-15));
  }
}

TEST_CASE("theorem beta: the measured softmax error never exceeds the proven bound", "[model][ahat][simulate]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  for (const char* name : {"a-since-b", "c-flanked", "majority", "dyck-2", "khop-2"}) {
    const lang::Language& language = catalog.find(name);
    const Transformer t = compile::build_acceptor(language, {}).model;
    simulate::SimulateOptions options;
    options.lengths = {0, 1, 2, 3, 4, 5, 24, 100};
    const auto source = [&](std::size_t n) {
      return simulate::model_words(t.config.alphabet, n, 12, 1100, kDefaultSeed);
    };
    const simulate::SimulateReport rep = simulate::simulate(t, source, nullptr, options);
    for (const simulate::LengthReport& r : rep.lengths) {
      INFO(name << " n = " << r.n);
      REQUIRE(r.theorem_found);
      CHECK(r.max_state_diff <= r.bound);
      CHECK(r.bound <= r.epsilon * (1 + 1e-12));
      CHECK(r.agree_ahat == r.words);
    }
  }
}

TEST_CASE("theorem beta: the error bound falls as beta grows and fails its side conditions at beta = 1",
          "[model][ahat]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  const Transformer t = compile::build_acceptor(catalog.find("c-flanked"), {}).model;
  const std::vector<LayerNorms> norms = weight_norms(t);
  const ExactAhat exact(t);
  GapProfile p;
  p.keys = 41;
  p.input_norm.assign(t.layers.size(), 0.0);
  for (const auto& l : t.layers) {
    p.gap.emplace_back(l.heads.size(), kNoGap);
    p.value_norm.emplace_back(l.heads.size(), 0.0);
  }
  std::mt19937_64 rng = derived_rng(3, "bound");
  for (int k = 0; k < 10; ++k) {
    const ExactRun r = exact.run(words::random_word(rng, "abc", 40, static_cast<std::uint64_t>(k)));
    std::size_t h = 0;
    for (std::size_t l = 0; l < t.layers.size(); ++l) {
      p.input_norm[l] = std::max(p.input_norm[l], r.input_norms[l]);
      for (std::size_t j = 0; j < t.layers[l].heads.size(); ++j, ++h) {
        p.gap[l][j] = std::min(p.gap[l][j], r.heads[h].gap);
        p.value_norm[l][j] = std::max(p.value_norm[l][j], r.heads[h].max_value_norm);
      }
    }
  }
  const TheoremBeta tb = theorem_beta(norms, p, 0.25);
  REQUIRE(tb.found);
  CHECK(tb.bound.final_error <= 0.25);
  CHECK(!softmax_error_bound(norms, p, 1.0).side_conditions);
  double last = kNoGap;
  for (double beta = tb.beta; beta < 100 * tb.beta; beta *= 2) {
    const ErrorBound eb = softmax_error_bound(norms, p, beta);
    CHECK(eb.side_conditions);
    CHECK(eb.final_error < last);
    last = eb.final_error;
  }
}

TEST_CASE("prefix runner: equals the engine on every word, reusing prefixes in lexicographic order", "[model][prefix]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  std::vector<Transformer> models;
  for (const char* name : {"a-since-b", "majority", "dyck-2", "contains-ab", "dyck-1"}) {
    models.push_back(compile::build_acceptor(catalog.find(name), {}).model);
  }
  for (int k = 0; k < 20; ++k) {  // random causal models
    std::mt19937_64 rng = derived_rng(17, "prefix-random", static_cast<std::uint64_t>(k));
    Transformer t = random_model(rng, {k % 2 ? "ab" : "abc", 3, 3, 8});
    for (auto& l : t.config.layers) {
      for (auto& h : l.heads) h.mask = k % 3 ? Mask::kFuture : Mask::kStrictFuture;
    }
    models.push_back(std::move(t));
  }
  for (const Transformer& t : models) {
    REQUIRE(PrefixRunner::applies(t));
    const Engine engine(t);
    RunOptions o;
    o.trace = true;
    const std::size_t max_len = t.config.alphabet.size() == 2 ? 9 : 5;
    for (std::size_t n = 0; n <= max_len; ++n) {
      PrefixRunner runner(t, n);
      words::for_each_word(t.config.alphabet, n, [&](const std::string& w) {
        if (w.size() != n) return true;
        const RunResult a = runner.run(w), b = engine.run(w, o);
        INFO("word '" << w << "'");
        REQUIRE(a.y == Approx(b.y).epsilon(1e-12).margin(1e-12));
        REQUIRE(a.accepted == b.accepted);
        // Scores are dot products summed in another order: equal to rounding
        // (an absolute 1e-12 on gaps, which are differences of such scores).
        REQUIRE(a.margins->min_target_mass == Approx(b.margins->min_target_mass).epsilon(1e-12).margin(1e-12));
        REQUIRE(a.margins->min_gap == Approx(b.margins->min_gap).epsilon(1e-12).margin(1e-12));
        REQUIRE(a.margins->rows == b.margins->rows);
        return true;
      });
    }
  }
  const Transformer until = compile::build_acceptor(catalog.find("start-a-until-b"), {}).model;
  CHECK(!PrefixRunner::applies(until));
}
