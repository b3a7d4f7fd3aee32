// The engine's fast paths (sparse and fused products, narrow layers, linear
// scans) against its exact dense reference (RunOptions::reference): on
// sparsified random models and on every model the catalogue and a spread of
// the MLRegTest sample compile to, the same verdicts, and residual values
// and margins equal up to rounding.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "cascade/holonomy.h"
#include "compile/acceptor.h"
#include "lang/catalog.h"
#include "model/forward.h"
#include "model/random_model.h"
#include "util/random.h"
#include "words/words.h"

using namespace softhat;

namespace {

// The largest relative difference of two residual streams.
double worst_difference(const model::Matrix& a, const model::Matrix& b) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  double worst = 0;
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    for (Eigen::Index j = 0; j < a.cols(); ++j) {
      worst = std::max(worst, std::abs(a(i, j) - b(i, j)) / std::max(1.0, std::abs(b(i, j))));
    }
  }
  return worst;
}

struct Comparison {
  double worst = 0;   // residual values
  std::size_t runs = 0;
  std::size_t split_ties = 0;  // softmax runs whose margins were not compared
};

// One word both ways, in one mode: verdicts equal, margins equal up to rounding.
void compare(const model::Engine& engine, const std::string& word, model::AttentionMode mode, Comparison& c) {
  model::RunOptions fast, ref;
  fast.mode = ref.mode = mode;
  fast.keep_all_states = ref.keep_all_states = true;
  fast.trace = ref.trace = true;
  ref.reference = true;
  const model::RunResult a = engine.run(word, fast), b = engine.run(word, ref);
  INFO("word '" << word << "'");
  CHECK(a.accepted == b.accepted);
  CHECK(a.output == b.output);
  // Untraced, the scans skip their margin bookkeeping: the values are the
  // traced run's, bit for bit.
  model::RunOptions plain = fast;
  plain.trace = false;
  const model::RunResult p = engine.run(word, plain);
  CHECK(p.output == a.output);
  CHECK(p.states == a.states);
  c.worst = std::max(c.worst, worst_difference(a.states, b.states));
  if (mode == model::AttentionMode::kSoftmax) {
    REQUIRE(a.margins);
    REQUIRE(b.margins);
    CHECK(a.margins->rows == b.margins->rows);
    // The argmax set is an exact-equality set: where two scores are equal in
    // one summation order and an ulp apart in the other (random real weights),
    // the margins measure different sets. Compiled weights sum small integers
    // exactly, so there the margins must be equal.
    if (std::min(a.margins->min_gap, b.margins->min_gap) > 1e-9) {
      CHECK(a.margins->min_target_mass == Approx(b.margins->min_target_mass).epsilon(1e-9));
      CHECK(a.margins->min_gap == Approx(b.margins->min_gap).epsilon(1e-9));
    } else {
      ++c.split_ties;
    }
  }
  ++c.runs;
}

// Every word up to `max_len` and `random` words of lengths 20-50.
std::vector<std::string> test_words(const std::string& alphabet, std::size_t max_len, int random, std::uint64_t seed) {
  std::vector<std::string> out = words::all_words(alphabet, max_len);
  std::mt19937_64 rng = derived_rng(seed, "fast-paths");
  for (int k = 0; k < random; ++k) {
    out.push_back(words::random_word(rng, alphabet, static_cast<std::size_t>(uniform_int(rng, 20, 50)),
                                     static_cast<std::uint64_t>(k)));
  }
  return out;
}

// Every test word (see test_words) in softmax and in hard attention.
void compare_both_modes(const model::Engine& engine, const std::string& alphabet, std::size_t max_len, int random,
                        std::uint64_t seed, Comparison& c) {
  for (const std::string& w : test_words(alphabet, max_len, random, seed)) {
    compare(engine, w, model::AttentionMode::kSoftmax, c);
    compare(engine, w, model::AttentionMode::kHard, c);
  }
}

// False if the language has no transformer (not star-free).
bool check_language(const lang::Language& language, std::size_t max_len, int random) {
  std::optional<model::Engine> engine;
  try {
    engine.emplace(compile::build_acceptor(language, {}).model);
  } catch (const cascade::NotStarFree&) {
    return false;
  }
  Comparison c;
  compare_both_modes(*engine, language.alphabet(), max_len, random, 41, c);
  INFO(language.name() << ": worst relative difference " << c.worst << " over " << c.runs << " runs");
  CHECK(c.worst <= 1e-9);
  CHECK(c.split_ties == 0);
  return true;
}

// Residual column 0 made the same at every position (one embedding value,
// fed only by the position features one and n), and every head reading
// only that column: the scans' constant-query path, in each layer until
// one writes column 0.
void constant_queries(model::Transformer& t) {
  using K = model::PositionFeature::Kind;
  t.embed.col(0).setConstant(t.embed(0, 0));
  Eigen::Index col = 0;
  for (const model::PositionFeature& f : t.config.position_features) {
    if (f.kind != K::kOne && f.kind != K::kLength) t.pos_proj.block(0, col, 1, f.width()).setZero();
    col += f.width();
  }
  for (model::LayerWeights& lw : t.layers) {
    for (model::HeadWeights& hw : lw.heads) {
      hw.q.rightCols(hw.q.cols() - 1).setZero();
      for (Eigen::Index r = 0; r < hw.q.rows(); ++r) hw.q(r, 0) = static_cast<double>(r + 1);
    }
  }
}

}  // namespace

TEST_CASE("fast paths: sparse, fused, narrow and scanned runs equal the dense reference on random models",
          "[model][fast]") {
  // Random weights with most entries zero take the sparse and fused products
  // and the narrow layers; 0/1 weights make queries and keys take few
  // values, so the linear scans run too.
  std::mt19937_64 rng = derived_rng(43, "fast-random");
  auto sparsify = [&](model::Matrix& m, bool binary) {
    for (Eigen::Index i = 0; i < m.size(); ++i) {
      if (uniform_int(rng, 0, 99) < 88) m.data()[i] = 0.0;
      else if (binary) m.data()[i] = 1.0;
    }
  };
  Comparison c;
  for (int k = 0; k < 60; ++k) {
    model::Transformer t = model::random_model(rng, {"abc", 4, 3, 16});
    const bool binary = k % 2 == 1;
    sparsify(t.pos_proj, false);
    for (model::LayerWeights& lw : t.layers) {
      for (model::HeadWeights& hw : lw.heads) {
        sparsify(hw.q, binary);
        sparsify(hw.k, binary);
        sparsify(hw.v, false);
        sparsify(hw.o, false);
      }
      sparsify(lw.fc1, false);
      sparsify(lw.fc2, false);
      // Heads sharing their query weights (as compiled layers' heads do):
      // the engine reuses the previous head's queries and their classes.
      for (std::size_t h = 1; h < lw.heads.size() && k % 3 != 2; ++h) {
        if (lw.heads[h].q.rows() == lw.heads[h - 1].q.rows()) lw.heads[h].q = lw.heads[h - 1].q;
      }
    }
    if (k % 4 == 0) constant_queries(t);
    const model::Engine engine(t);
    compare_both_modes(engine, "abc", 2, 6, static_cast<std::uint64_t>(k), c);
  }
  INFO("worst relative difference " << c.worst << " over " << c.runs << " runs, " << c.split_ties
                                      << " with a tie split by rounding");
  CHECK(c.worst <= 1e-9);
  CHECK(c.split_ties * 10 < c.runs);  // rare: most runs have their margins compared
}

TEST_CASE("fast paths: constant-query heads of 3 key and 1-5 value columns equal the general scan and the reference",
          "[model][fast]") {
  // The shapes compiled heads have: one query class, d_head 3, d_value 1 to
  // 4 (the scan with compile-time widths and its state in locals) and 5 (the
  // general per-class scan). compare checks the untraced runs, which take
  // that scan, against the traced ones (the general scan with its margin
  // bookkeeping) bit for bit, and both against the dense reference.
  std::mt19937_64 rng = derived_rng(47, "fast-one-class");
  Comparison c;
  int value_width = 0;
  for (int k = 0; k < 40; ++k) {
    model::ModelConfig config = model::random_model(rng, {"abc", 3, 3, 12}).config;
    for (model::LayerConfig& lc : config.layers) {
      for (model::HeadConfig& hc : lc.heads) {
        hc.d_head = 3;
        hc.d_value = 1 + value_width++ % 5;
      }
    }
    model::Transformer t = model::Transformer::zeros(config);
    auto weight = [&] { return -1.0 + 2.0 * static_cast<double>(rng() >> 11) * 0x1.0p-53; };
    model::for_each_tensor(t, [&](const model::TensorView<double>& v) {
      for (std::int64_t e = 0; e < v.size(); ++e) v.data[e] = uniform_int(rng, 0, 99) < 80 ? 0.0 : weight();
    });
    // Bounded position features only (one, j/(n+1), ...): unbounded ones with
    // undamped weights would overflow the softmax on long words.
    Eigen::Index col = 0;
    for (const model::PositionFeature& f : config.position_features) {
      using K = model::PositionFeature::Kind;
      if (f.kind == K::kIndex || f.kind == K::kLength || f.kind == K::kIndexSquared) {
        t.pos_proj.middleCols(col, f.width()).setZero();
      }
      col += f.width();
    }
    constant_queries(t);
    const model::Engine engine(t);
    for (const std::string& w : test_words("abc", 2, 6, static_cast<std::uint64_t>(k))) {
      compare(engine, w, model::AttentionMode::kSoftmax, c);
    }
  }
  INFO("worst relative difference " << c.worst << " over " << c.runs << " runs, " << c.split_ties
                                      << " with a tie split by rounding");
  CHECK(value_width >= 40);
  CHECK(c.worst <= 1e-9);
  CHECK(c.split_ties * 10 < c.runs);
}

TEST_CASE("fast paths: wide FFNs on mostly-zero streams, summed through their nonzero inputs, equal the reference",
          "[model][fast]") {
  // The shape of a wide compiled FFN: many hidden units, each reading a few
  // of the residual columns, on a stream that is mostly 0. Such a layer (at
  // least 8 nonzeros per column it reads) sums a row's forms through its
  // nonzero inputs alone when they reach few enough of its nonzeros, and by
  // form otherwise: both kinds of row occur here (the density of 1s varies
  // by model), and both must equal the dense reference. The heads score
  // with 0/1 weights on columns 0-7, which hold 0/1 embeddings and which no
  // layer writes: their scores are small integers in any summation order,
  // so the margins compare exactly.
  std::mt19937_64 rng = derived_rng(53, "fast-by-input");
  auto weight = [&] { return -1.0 + 2.0 * static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  constexpr Eigen::Index kScored = 8;
  Comparison c;
  for (int k = 0; k < 24; ++k) {
    model::ModelConfig config = model::random_model(rng, {"abc", 3, 2, 16}).config;
    config.d_model = 48;  // fc1 at most a quarter dense: the fused FFN
    for (int i = static_cast<int>(config.residual_labels.size()); i < config.d_model; ++i) {
      config.residual_labels.push_back("r" + std::to_string(i));
    }
    config.readout.coordinate = 40;
    for (model::LayerConfig& lc : config.layers) lc.ffn_hidden = 48 + 16 * (k % 4);
    model::Transformer t = model::Transformer::zeros(config);
    model::for_each_tensor(t, [&](const model::TensorView<double>& v) {
      for (std::int64_t e = 0; e < v.size(); ++e) v.data[e] = uniform_int(rng, 0, 99) < 85 ? 0.0 : weight();
    });
    const std::uint64_t ones = static_cast<std::uint64_t>(10 + 10 * (k % 5));  // percent of 1s in the embedding
    for (Eigen::Index i = 0; i < t.embed.size(); ++i) t.embed.data()[i] = uniform_int(rng, 0, 99) < ones ? 1.0 : 0.0;
    t.pos_proj.setZero();
    const Eigen::Index d = config.d_model;
    for (model::LayerWeights& lw : t.layers) {
      for (model::HeadWeights& hw : lw.heads) {
        for (model::Matrix* m : {&hw.q, &hw.k}) {
          m->rightCols(d - kScored).setZero();
          *m = (m->array() != 0.0).cast<double>().matrix();
        }
        hw.o.topRows(kScored).setZero();
      }
      lw.fc2.topRows(kScored).setZero();
      lw.b2.head(kScored).setZero();
      // Each unit reads 3 to 6 of 12 columns: about 4.5 * hidden / 12
      // nonzeros per column read.
      lw.fc1.setZero();
      for (Eigen::Index u = 0; u < lw.fc1.rows(); ++u) {
        const std::uint64_t reads = uniform_int(rng, 3, 6);
        for (std::uint64_t r = 0; r < reads; ++r) {
          lw.fc1(u, static_cast<Eigen::Index>(uniform_int(rng, 0, 11) * static_cast<std::uint64_t>(d) / 12)) = weight();
        }
      }
    }
    const model::Engine engine(t);
    compare_both_modes(engine, "abc", 2, 6, static_cast<std::uint64_t>(k), c);
  }
  INFO("worst relative difference " << c.worst << " over " << c.runs << " runs, " << c.split_ties
                                      << " with tied scores");
  CHECK(c.worst <= 1e-9);
  CHECK(c.split_ties * 2 < c.runs);  // most runs have their margins compared
}

TEST_CASE("fast paths: every catalogue model equals its dense reference", "[model][fast][slow]") {
  const lang::Catalog catalog = lang::Catalog::builtin();
  std::size_t checked = 0;
  for (const lang::Language& language : catalog.languages()) {
    if (language.is_task() || !compile::has_acceptor(language)) continue;
    const std::size_t max_len = language.alphabet().size() <= 2 ? 6 : language.alphabet().size() <= 3 ? 4 : 3;
    checked += check_language(language, max_len, 12);
  }
  CHECK(checked >= 20);
}

TEST_CASE("fast paths: float runs, whose scores read only the columns cast to double, equal the float reference",
          "[model][fast][slow]") {
  // Float runs cast to double only the columns the sparse query and key
  // weights read; the other columns of the cast keep an earlier layer's or
  // word's values. One Runner per model, its fast and reference runs
  // interleaved, so a score that read such a column would see stale values.
  double worst = 0;
  std::size_t runs = 0;
  auto check = [&](const lang::Language& language) {
    std::optional<model::Engine> engine;
    try {
      engine.emplace(compile::build_acceptor(language, {}).model, model::Precision::kFloat);
    } catch (const cascade::NotStarFree&) {
      return;
    }
    model::Runner runner(*engine);
    const std::size_t max_len = language.alphabet().size() <= 2 ? 5 : 3;
    for (const std::string& w : test_words(language.alphabet(), max_len, 6, 59)) {
      for (const model::AttentionMode mode : {model::AttentionMode::kSoftmax, model::AttentionMode::kHard}) {
        model::RunOptions fast, ref;
        fast.mode = ref.mode = mode;
        fast.keep_all_states = ref.keep_all_states = true;
        ref.reference = true;
        const model::RunResult a = runner.run(w, fast), b = runner.run(w, ref);
        INFO(language.name() << " word '" << w << "'");
        CHECK(a.accepted == b.accepted);
        CHECK(a.output == b.output);
        worst = std::max(worst, worst_difference(a.states, b.states));
        ++runs;
      }
    }
  };
  const lang::Catalog catalog = lang::Catalog::builtin();
  for (const lang::Language& language : catalog.languages()) {
    if (!language.is_task() && compile::has_acceptor(language)) check(language);
  }
  for (const char* name : {"04.04.SF.0.0.3", "16.04.TLTT.6.2.6"}) {
    lang::LanguageSpec spec;
    spec.name = name;
    spec.automaton_file = std::string(SOFTHAT_MLREGTEST_DIR) + "/" + name + ".att";
    spec.automaton = lang::read_text_file(spec.automaton_file);
    spec.source = spec.automaton_file;
    check(lang::build_language(std::move(spec)));
  }
  INFO("worst relative difference " << worst << " over " << runs << " runs");
  CHECK(runs > 1000);
  CHECK(worst <= 1e-6);
}

TEST_CASE("fast paths: MLRegTest automata, smallest to largest, equal their dense reference", "[model][fast][slow]") {
  // Every eleventh sample file (by name), plus the largest model of the sample.
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(SOFTHAT_MLREGTEST_DIR)) {
    if (e.path().extension() == ".att") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 20);
  std::vector<std::string> chosen;
  for (std::size_t i = 0; i < files.size(); i += 11) chosen.push_back(files[i]);
  chosen.push_back(std::string(SOFTHAT_MLREGTEST_DIR) + "/16.04.TLTT.2.5.4.att");
  std::size_t checked = 0;
  for (const std::string& file : chosen) {
    lang::LanguageSpec spec;
    spec.name = std::filesystem::path(file).stem().string();
    spec.automaton = lang::read_text_file(file);
    spec.automaton_file = file;
    spec.source = file;
    const lang::Language language = lang::build_language(std::move(spec));
    checked += check_language(language, 2, 8);
  }
  CHECK(checked >= 5);
}
