// Dyck-k and k-hop: the k-hop oracle against a brute-force reading of its
// definition; both transformers against their oracles on every short word
// and on long random, balanced and near-miss words; the Dyck AHAT's exact gap
// 1/(2(n+1)); a too-small beta fails at large n (Hahn).
#include <catch2/catch.hpp>
#include <sstream>

#include "compile/acceptor.h"
#include "compile/dyck.h"
#include "compile/khop.h"
#include "lang/catalog.h"
#include "model/exact_ahat.h"
#include "model/forward.h"
#include "oracle/checker.h"
#include "simulate/simulate.h"
#include "task/khop.h"
#include "util/error.h"
#include "util/random.h"
#include "verify/sample_words.h"
#include "words/words.h"

using namespace softhat;

namespace {
// find^k straight from the definition: scan left for the previous occurrence.
std::string brute_khop(const std::string& w, int k) {
  std::string out;
  for (std::size_t i = 0; i < w.size(); ++i) {
    long p = static_cast<long>(i);
    for (int h = 0; h < k && p >= 0; ++h) {
      long prev = -1;
      for (long j = p - 1; j >= 0; --j) {
        if (w[static_cast<std::size_t>(j)] == w[static_cast<std::size_t>(p)]) {
          prev = j;
          break;
        }
      }
      p = prev < 0 ? -1 : prev + 1;
    }
    out += p < 0 ? '~' : w[static_cast<std::size_t>(p)];
  }
  return out;
}
}  // namespace

TEST_CASE("k-hop oracle: the worked examples and the definition on every short word", "[task][khop]") {
  CHECK(task::khop("abacbabc", 2) == "~~~~b~ca");
  CHECK(task::khop("abcdabdcb", 2) == "~~~~~~b~a");
  CHECK(task::khop("abcab", 1) == "~~~bc");
  CHECK(task::khop("abacbabc", 1) == "~~b~acab");
  CHECK(task::khop("", 3).empty());
  for (int k = 1; k <= 4; ++k) {
    for (const std::string& w : words::all_words("abc", 7)) {
      INFO("k = " << k << " word " << w);
      REQUIRE(task::khop(w, k) == brute_khop(w, k));
    }
  }
  std::mt19937_64 rng = derived_rng(5, "khop-gen");
  const std::string g = task::khop_word(rng, "abcd", 2000);
  CHECK(g.size() == 2000);
  for (std::size_t i = 1; i < g.size(); ++i) REQUIRE(g[i] != g[i - 1]);
}

TEST_CASE("k-hop transformer: every position of every short word, and long random words", "[task][khop]") {
  for (int k = 1; k <= 4; ++k) {
    const model::Engine engine(compile::build_khop("abc", k));
    CHECK(engine.model().layers.size() == static_cast<std::size_t>(k + 1));
    for (const std::string& w : words::all_words("abc", 6)) {
      INFO("k = " << k << " word " << w);
      REQUIRE(*engine.run(w).output == task::khop(w, k));
    }
  }
  const model::Engine engine(compile::build_khop("abcd", 4));
  std::mt19937_64 rng = derived_rng(9, "khop-long");
  for (int t = 0; t < 6; ++t) {
    const std::string w = t % 2 ? task::khop_word(rng, "abcd", 700) : words::random_word(rng, "abcd", 700, 0);
    const model::RunResult r = engine.run(w);
    CHECK(*r.output == task::khop(w, 4));
    CHECK(r.min_symbol_margin >= 0.25);
  }
  CHECK_THROWS_AS(compile::build_khop("aa", 1), InputError);
  CHECK_THROWS_AS(compile::build_khop("ab~", 1), InputError);
  CHECK_THROWS_AS(compile::build_khop("ab", 0), InputError);
}

TEST_CASE("Dyck-k transformer: every short word and long balanced/near-miss words agree with the checker",
          "[dyck]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  for (const char* name : {"dyck-2", "dyck-3"}) {
    const lang::Language& language = catalog.find(name);
    const model::Engine engine(compile::build_acceptor(language, {}).model);
    model::RunOptions hard;
    hard.mode = model::AttentionMode::kHard;
    hard.force_average = true;
    const std::size_t max_len = language.alphabet().size() == 4 ? 8 : 6;
    std::size_t positives = 0;
    words::for_each_word(language.alphabet(), max_len, [&](const std::string& w) {
      const bool truth = language.checker->accepts(w);
      positives += truth;
      INFO(name << " word " << w);
      REQUIRE(engine.run(w).accepted == truth);
      REQUIRE(engine.run(w, hard).accepted == truth);
      return true;
    });
    CHECK(positives > 100);
    for (std::size_t n : {64, 300}) {
      std::size_t pos = 0;
      for (const std::string& w : verify::balanced_words(language, n, 40, 11, 0)) {
        const bool truth = language.checker->accepts(w);
        pos += truth;
        INFO(name << " word " << w);
        CHECK(engine.run(w).accepted == truth);
      }
      CHECK(pos >= 15);
    }
  }
  CHECK_THROWS_AS(compile::build_dyck("(()"), InputError);
  CHECK_THROWS_AS(compile::build_dyck("(("), InputError);
}

TEST_CASE("Dyck-k AHAT: the exact gap is 1/(2(n+1)), set by the depth-sign head", "[dyck][ahat]") {
  const model::ExactAhat exact(compile::build_dyck("()[]"));
  for (std::size_t n = 1; n <= 6; ++n) {
    double gap = model::kNoGap;
    int layer = -1;
    words::for_each_word("()[]", n, [&](const std::string& w) {
      if (w.size() != n) return true;
      for (const model::HeadGap& h : exact.run(w).heads) {
        if (h.gap < gap) {
          gap = h.gap;
          layer = h.layer;
        }
      }
      return true;
    });
    INFO("n = " << n);
    CHECK(gap == Approx(1.0 / (2.0 * static_cast<double>(n + 1))).epsilon(1e-15));
    CHECK(layer == 1);
  }
}

TEST_CASE("simulate: Dyck-2 at the theorem's beta agrees with the AHAT and the checker, beta = 1 does not",
          "[dyck][simulate]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  const lang::Language& language = catalog.find("dyck-2");
  const model::Transformer t = compile::build_acceptor(language, {}).model;
  const simulate::Oracle oracle = [&](const std::string& w) { return Verdict::accept(language.checker->accepts(w)); };
  const auto source = [&](std::size_t n) {
    words::WordSource set = simulate::model_words("()[]", n, 10, 5000, kDefaultSeed);
    if (!set.complete) {
      std::vector<std::string> list = set.all();
      for (std::string& w : verify::balanced_words(language, n, 30, kDefaultSeed, 0)) {
        if (w.size() == n) list.push_back(std::move(w));
      }
      set = words::WordSource::list(set.label, std::move(list));
    }
    return set;
  };
  simulate::SimulateOptions options;
  options.lengths = {0, 1, 2, 3, 4, 5, 6, 40, 200};
  const simulate::SimulateReport ok = simulate::simulate(t, source, &oracle, options);
  CHECK(ok.ok());
  for (const simulate::LengthReport& r : ok.lengths) {
    INFO("n = " << r.n);
    CHECK(r.exhaustive == (r.n <= 6));
    CHECK(r.ahat_oracle == static_cast<std::int64_t>(r.words));
    CHECK(r.softmax_oracle == static_cast<std::int64_t>(r.words));
  }
  options.beta = model::BetaSchedule{.c = 1, .a = 0, .b = 0};
  options.lengths = {200};
  const simulate::SimulateReport bad = simulate::simulate(t, source, &oracle, options);
  CHECK(!bad.ok());
  CHECK(bad.lengths[0].agree_ahat < bad.lengths[0].words);
}

TEST_CASE("engine: the query-class linear path equals the blocked path on k-hop and Dyck models", "[model][khop][dyck]") {
  // k-hop heads have |alphabet| + 1 distinct queries and position-carrying
  // keys: the per-query-class online softmax. Dyck mixes every path.
  std::mt19937_64 rng = derived_rng(13, "query-classes");
  for (const model::Transformer& t : {compile::build_khop("abcd", 3), compile::build_dyck("()[]")}) {
    const model::Engine engine(t);
    double worst = 0;
    for (int k = 0; k < 12; ++k) {
      const std::size_t n = 1 + static_cast<std::size_t>(k) * 37;
      const std::string w = words::random_word(rng, t.config.alphabet, n, static_cast<std::uint64_t>(k));
      for (model::AttentionMode mode : {model::AttentionMode::kSoftmax, model::AttentionMode::kHard}) {
        model::RunOptions scan, blocked;
        scan.mode = blocked.mode = mode;
        scan.keep_all_states = blocked.keep_all_states = true;
        scan.trace = blocked.trace = true;
        blocked.linear_scan = false;
        blocked.query_block = 13;
        blocked.key_block = 31;
        const model::RunResult a = engine.run(w, scan), b = engine.run(w, blocked);
        const double scale = 1.0 + b.states.cwiseAbs().maxCoeff();
        worst = std::max(worst, (a.states - b.states).cwiseAbs().maxCoeff() / scale);
        CHECK(a.output == b.output);
        CHECK(a.accepted == b.accepted);
        if (mode == model::AttentionMode::kSoftmax) {
          CHECK(a.margins->min_target_mass == Approx(b.margins->min_target_mass).epsilon(1e-12));
          CHECK(a.margins->min_gap == b.margins->min_gap);
          CHECK(a.margins->rows == b.margins->rows);
        }
      }
    }
    CHECK(worst <= 1e-12);
  }
}
