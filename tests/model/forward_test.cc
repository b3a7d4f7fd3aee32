// The forward pass on tiny hand-built models whose outputs are worked out by
// hand (every mask, every hard kind with ties, the beta schedule, BOS, the
// empty word, the FFN), and the blocked online attention against the plain
// reference on random models.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <vector>

#include "model/forward.h"
#include "model/random_model.h"
#include "model/reference_forward.h"
#include "util/random.h"

using namespace softhat;
using namespace softhat::model;

namespace {
// Residual [one, j, key, out]; position features one, j; symbol a sets key=1.
// One head: query = one, key = `key` coordinate, value = j, output -> out.
Transformer probe(Mask mask, HardKind hard, double query_scale = 0.0) {
  ModelConfig c;
  c.alphabet = "ab";
  c.d_model = 4;
  c.residual_labels = {"one", "j", "key", "out"};
  c.position_features = {parse_position_feature("one"), parse_position_feature("j")};
  c.beta = BetaSchedule{.c = 1, .a = 0, .b = 0};
  c.layers = {LayerConfig{.heads = {HeadConfig{.d_head = 1, .d_value = 1, .mask = mask, .hard = hard, .label = "probe"}}, .ffn_hidden = 0, .label = ""}};
  c.readout = {3, 0.5};
  Transformer t = Transformer::zeros(c);
  t.pos_proj(0, 0) = 1;  // one
  t.pos_proj(1, 1) = 1;  // j
  t.embed(1, 2) = 1;     // symbol a: key = 1
  t.layers[0].heads[0].q(0, 0) = query_scale;  // q = scale * one
  t.layers[0].heads[0].k(0, 2) = 1;            // k = key
  t.layers[0].heads[0].v(0, 1) = 1;            // v = j
  t.layers[0].heads[0].o(3, 0) = 1;            // out += attention
  return t;
}

std::vector<double> outs(const Transformer& t, const std::string& word, AttentionMode mode) {
  RunOptions o;
  o.mode = mode;
  o.keep_all_states = true;
  const RunResult r = Engine(t).run(word, o);
  std::vector<double> v;
  for (Eigen::Index i = 0; i < r.states.rows(); ++i) v.push_back(r.states(i, 3));
  return v;
}

double mean(std::initializer_list<double> xs) {
  double s = 0;
  for (double x : xs) s += x;
  return s / static_cast<double>(xs.size());
}
}  // namespace

TEST_CASE("forward: each mask averages exactly its visible keys (BOS always visible)", "[model]") {
  // q = 0: uniform attention, so position i gets the mean of the visible j.
  const std::string w = "abba";  // positions 0 (BOS) .. 4
  using V = std::vector<double>;
  CHECK(outs(probe(Mask::kNone, HardKind::kAverage), w, AttentionMode::kSoftmax) == V(5, 2.0));
  CHECK(outs(probe(Mask::kStrictFuture, HardKind::kAverage), w, AttentionMode::kSoftmax) ==
        V{0, 0, mean({0, 1}), mean({0, 1, 2}), mean({0, 1, 2, 3})});
  CHECK(outs(probe(Mask::kFuture, HardKind::kAverage), w, AttentionMode::kSoftmax) ==
        V{0, mean({0, 1}), mean({0, 1, 2}), mean({0, 1, 2, 3}), 2});
  CHECK(outs(probe(Mask::kStrictPast, HardKind::kAverage), w, AttentionMode::kSoftmax) ==
        V{mean({0, 1, 2, 3, 4}), mean({0, 2, 3, 4}), mean({0, 3, 4}), mean({0, 4}), 0});
  CHECK(outs(probe(Mask::kPast, HardKind::kAverage), w, AttentionMode::kSoftmax) ==
        V{2, mean({0, 1, 2, 3, 4}), mean({0, 2, 3, 4}), mean({0, 3, 4}), mean({0, 4})});
}

TEST_CASE("forward: hard kinds break ties as declared", "[model]") {
  // q = 1: score 1 on a, 0 on b and BOS. "abab": a at 1 and 3.
  auto last = [](HardKind k, const std::string& w, Mask m = Mask::kFuture) {
    return outs(probe(m, k, 1.0), w, AttentionMode::kHard).back();
  };
  CHECK(last(HardKind::kRightmost, "abab") == 3);
  CHECK(last(HardKind::kLeftmost, "abab") == 1);
  CHECK(last(HardKind::kAverage, "abab") == 2);
  // No a: BOS and every b tie at 0.
  CHECK(last(HardKind::kRightmost, "bbb") == 3);
  CHECK(last(HardKind::kLeftmost, "bbb") == 0);
  CHECK(last(HardKind::kAverage, "bbb") == 1.5);
  // Strict future at the last position excludes it.
  CHECK(last(HardKind::kRightmost, "abba", Mask::kStrictFuture) == 1);
  CHECK(last(HardKind::kAverage, "aaaa", Mask::kStrictFuture) == 2);
  // Per-position rightmost under the strict future mask (the "since" pattern).
  CHECK(outs(probe(Mask::kStrictFuture, HardKind::kRightmost, 1.0), "abab", AttentionMode::kHard) ==
        std::vector<double>{0, 0, 1, 1, 3});
  // Strict past, leftmost: the next a to the right, else BOS (score 0 ties: leftmost is BOS).
  CHECK(outs(probe(Mask::kStrictPast, HardKind::kLeftmost, 1.0), "baab", AttentionMode::kHard) ==
        std::vector<double>{2, 2, 3, 0, 0});
}

TEST_CASE("forward: the beta schedule scales the logits", "[model]") {
  // Word "a" (n = 1), future mask: BOS scores 0 and position 1 scores 1, so
  // out = e^beta / (1 + e^beta) with beta = c (n+1)^a ln(n+1)^b.
  for (const BetaSchedule& b : {BetaSchedule{.c = 2, .a = 0, .b = 0}, BetaSchedule{.c = 2, .a = 1, .b = 0}, BetaSchedule{.c = 0.5, .a = 2, .b = 1}}) {
    Transformer t = probe(Mask::kFuture, HardKind::kRightmost, 1.0);
    t.config.beta = b;
    const double beta = b.c * std::pow(2.0, b.a) * std::pow(std::log(2.0), b.b);
    const double expected = std::exp(beta) / (1 + std::exp(beta));
    CHECK(outs(t, "a", AttentionMode::kSoftmax).back() == Approx(expected).epsilon(1e-15));
    RunOptions o;
    o.beta = BetaSchedule{.c = 1, .a = 0, .b = 0};  // --beta override
    o.keep_all_states = true;
    CHECK(Engine(t).run("a", o).states(1, 3) == Approx(std::exp(1.0) / (1 + std::exp(1.0))).epsilon(1e-15));
  }
  CHECK(BetaSchedule{.c = 3, .a = 1, .b = 0}.at(9) == 30);
  CHECK(BetaSchedule{.c = 1, .a = 0, .b = 1}.at(0) == 0);  // ln(1) = 0
  CHECK(BetaSchedule{.c = 3, .a = 1, .b = 0}.describe() == "3*(n+1)");
  CHECK(BetaSchedule{.c = 2, .a = 2, .b = 1}.describe() == "2*(n+1)^2*ln(n+1)");
}

TEST_CASE("forward: margins are exact on a worked row", "[model]") {
  // "ab": at position 2 (future mask, beta = 1): scores BOS 0, a 1, b 0.
  Transformer t = probe(Mask::kFuture, HardKind::kRightmost, 1.0);
  RunOptions o;
  o.trace = true;
  const RunResult r = Engine(t).run("ab", o);
  REQUIRE(r.margins);
  // Row 0: only BOS (no gap). Row 1: {0, 1}: mass e/(1+e), gap 1. Row 2: {0,1,0}: mass e/(2+e).
  CHECK(r.margins->rows == 3);
  CHECK(r.margins->min_target_mass == Approx(std::exp(1.0) / (2 + std::exp(1.0))).epsilon(1e-15));
  CHECK(r.margins->min_gap == 1);
  CHECK(r.margins->min_scaled_gap == 1);
  // y = out at position 2 = (1*e + 2*1) / (2 + e) (values are j).
  CHECK(r.y == Approx((std::exp(1.0) + 2) / (2 + std::exp(1.0))).epsilon(1e-15));
  CHECK(r.accepted);
  CHECK(r.output_margin == Approx(r.y - 0.5).epsilon(1e-15));
}

TEST_CASE("forward: the empty word is read at BOS, the FFN is ReLU with residual", "[model]") {
  ModelConfig c;
  c.alphabet = "a";
  c.d_model = 2;
  c.residual_labels = {"x", "y"};
  c.layers = {LayerConfig{{}, 2, ""}};
  c.readout = {1, 0.5};
  Transformer t = Transformer::zeros(c);
  t.embed(0, 0) = 3;   // BOS: x = 3
  t.embed(1, 0) = -2;  // a: x = -2
  // y += ReLU(x - 1) - ReLU(-x) + 0.25
  t.layers[0].fc1 << 1, 0, -1, 0;
  t.layers[0].b1 << -1, 0;
  t.layers[0].fc2 << 0, 0, 1, -1;
  t.layers[0].b2 << 0, 0.25;
  const Engine e(t);
  const RunResult empty = e.run("");
  CHECK(empty.y == 2.25);  // ReLU(2) - ReLU(-3) + 0.25
  CHECK(empty.accepted);
  const RunResult a = e.run("a");
  CHECK(a.y == -1.75);  // ReLU(-3) - ReLU(2) + 0.25
  CHECK_FALSE(a.accepted);
  CHECK_THROWS_WITH(e.run("ab"), "symbol 'b' at 2 is not in the model's alphabet");
}

TEST_CASE("forward: an FFN unit that is NaN is an overflow error, on row pairs and on a last odd row", "[model]") {
  // Residual [x, y, out], finite (1e308); the unit reads 10 x - 10 y, whose
  // products are +inf and -inf: the unit is NaN. Both FFN matrices are sparse
  // (the fused path, row pairs then a last odd row); the residual is finite.
  ModelConfig c;
  c.alphabet = "a";
  c.d_model = 3;
  c.residual_labels = {"x", "y", "out"};
  c.layers = {LayerConfig{{}, 1, ""}};
  c.readout = {2, 0.5};
  Transformer t = Transformer::zeros(c);
  t.embed.col(0).setConstant(1e308);
  t.embed.col(1).setConstant(1e308);
  t.layers[0].fc1 << 10, -10, 0;
  t.layers[0].fc2 << 0, 0, 1;
  const Engine e(t);
  for (const char* word : {"", "a", "aa", "aaa"}) {  // 1 to 4 rows
    INFO("word '" << word << "'");
    CHECK_THROWS_WITH(e.run(word), "layer 0: the residual stream overflows (a value is infinite or NaN)");
  }
  // Without the NaN the same model runs: the unit is 10 x - 10 y = 0.
  t.embed.col(0).setConstant(1.0);
  t.embed.col(1).setConstant(1.0);
  CHECK(Engine(t).run("aaa").y == 0.0);
}

TEST_CASE("forward: blocked online attention equals the plain reference", "[model]") {
  std::mt19937_64 rng = derived_rng(5, "blocked");
  double worst = 0;
  int hard_checked = 0;
  for (int m = 0; m < 40; ++m) {
    const Transformer t = random_model(rng, {"abc", 3, 3, 8});
    const std::size_t n = m < 4 ? 2000 : uniform_int(rng, 0, 300);
    std::string w;
    for (std::size_t i = 0; i < n; ++i) w += "abc"[uniform_int(rng, 0, 2)];
    const Matrix ref = test::reference_forward(t, w);
    for (auto [qb, kb] : {std::pair{64, 256}, std::pair{7, 13}}) {
      RunOptions o;
      o.keep_all_states = true;
      o.query_block = qb;
      o.key_block = kb;
      const RunResult r = Engine(t).run(w, o);
      for (Eigen::Index i = 0; i < ref.rows(); ++i) {
        for (Eigen::Index j = 0; j < ref.cols(); ++j) {
          const double err = std::abs(r.states(i, j) - ref(i, j)) / std::max(1.0, std::abs(ref(i, j)));
          worst = std::max(worst, err);
        }
      }
    }
    // Hard mode: the same argmax sets (exact ties) give the same outputs.
    RunOptions h;
    h.mode = AttentionMode::kHard;
    h.keep_all_states = true;
    h.query_block = 5;
    h.key_block = 11;
    const Matrix hard_ref = test::reference_forward(t, w, AttentionMode::kHard);
    const Matrix hard = Engine(t).run(w, h).states;
    CHECK(((hard - hard_ref).cwiseAbs().maxCoeff() <= 1e-12 * std::max(1.0, hard_ref.cwiseAbs().maxCoeff())));
    ++hard_checked;
  }
  INFO("worst relative difference " << worst);
  CHECK(worst <= 1e-12);
  CHECK(hard_checked == 40);
}

TEST_CASE("forward: sparse weights (the nonzero-only product) equal the plain reference", "[model]") {
  // Compiled weights are mostly zeros and take the engine's nonzero-only
  // product; random weights with ~85% zeros do too, and must give the
  // reference's dense-product residual streams.
  std::mt19937_64 rng = derived_rng(5, "sparse");
  auto sparsify = [&](Matrix& m) {
    for (Eigen::Index i = 0; i < m.size(); ++i) {
      if (uniform_int(rng, 0, 99) < 85) m.data()[i] = 0.0;
    }
  };
  double worst = 0;
  for (int m = 0; m < 30; ++m) {
    Transformer t = random_model(rng, {"abc", 3, 3, 8});
    sparsify(t.pos_proj);
    for (LayerWeights& lw : t.layers) {
      for (HeadWeights& hw : lw.heads) {
        sparsify(hw.q);
        sparsify(hw.k);
        sparsify(hw.v);
        sparsify(hw.o);
      }
      sparsify(lw.fc1);
      sparsify(lw.fc2);
    }
    const std::size_t n = uniform_int(rng, 0, 200);
    std::string w;
    for (std::size_t i = 0; i < n; ++i) w += "abc"[uniform_int(rng, 0, 2)];
    for (const AttentionMode mode : {AttentionMode::kSoftmax, AttentionMode::kHard}) {
      const Matrix ref = test::reference_forward(t, w, mode);
      RunOptions o;
      o.mode = mode;
      o.keep_all_states = true;
      const Matrix got = Engine(t).run(w, o).states;
      for (Eigen::Index i = 0; i < ref.rows(); ++i) {
        for (Eigen::Index j = 0; j < ref.cols(); ++j) {
          worst = std::max(worst, std::abs(got(i, j) - ref(i, j)) / std::max(1.0, std::abs(ref(i, j))));
        }
      }
    }
  }
  INFO("worst relative difference " << worst);
  CHECK(worst <= 1e-12);
}

TEST_CASE("forward: huge logits stay finite (beta * score up to 1e12)", "[model]") {
  Transformer t = probe(Mask::kStrictFuture, HardKind::kRightmost, 1.0);
  t.config.beta = BetaSchedule{.c = 1e12, .a = 0, .b = 0};
  RunOptions o;
  o.trace = true;
  o.keep_all_states = true;
  const RunResult r = Engine(t).run("abab", o);
  CHECK(r.states.allFinite());
  CHECK(r.states(4, 3) == 2);  // the two tied a (1 and 3) share the weight
  CHECK(r.margins->min_target_mass == 1);
  CHECK(r.margins->min_scaled_gap == 1e12);
}

TEST_CASE("forward: a Runner reused across words, lengths, precisions and errors equals fresh runs", "[model]") {
  std::mt19937_64 rng = derived_rng(17, "runner");
  for (int m = 0; m < 12; ++m) {
    Transformer t = random_model(rng, {"abc", 3, 3, 8});
    if (m % 2 == 1) {
      // A sparse position projection: the runner keeps short words' position
      // features per length and reuses them for the next word of that length.
      for (Eigen::Index i = 0; i < t.pos_proj.size(); ++i) {
        if (uniform_int(rng, 0, 9) < 8) t.pos_proj.data()[i] = 0.0;
      }
    }
    for (Precision p : {Precision::kDouble, Precision::kFloat}) {
      const Engine engine(t, p);
      Runner runner(engine);
      for (int k = 0; k < 8; ++k) {
        // Lengths repeat and change (often, on the sparse models), and cross
        // the size at which a long word's buffers are given back, the longest
        // length whose position features are kept, and the longest whose
        // heads keep one buffer per width (1,100 positions: the shared ones).
        const std::size_t n = m < 2 && k == 3 ? 4200
                              : m % 4 == 3 && k == 6 ? 300
                              : m % 4 == 2 && k == 4 ? 1100
                              : uniform_int(rng, 0, m % 2 == 1 ? 5 : 40);
        std::string w;
        for (std::size_t i = 0; i < n; ++i) w += "abc"[uniform_int(rng, 0, 2)];
        RunOptions o;
        o.trace = true;
        o.keep_all_states = true;
        o.mode = k % 2 ? AttentionMode::kHard : AttentionMode::kSoftmax;
        if (k == 5) {
          // A failing word (a symbol outside the alphabet, found after the
          // earlier words sized the buffers) leaves the runner usable.
          CHECK_THROWS_AS(runner.run(w + "z", o), std::invalid_argument);
        }
        const RunResult a = runner.run(w, o), b = engine.run(w, o);
        CHECK(a.y == b.y);
        CHECK(a.accepted == b.accepted);
        CHECK(a.states == b.states);
        CHECK(a.margins.has_value() == b.margins.has_value());
        if (a.margins) {
          CHECK(a.margins->min_target_mass == b.margins->min_target_mass);
          CHECK(a.margins->min_gap == b.margins->min_gap);
        }
      }
    }
  }
}

TEST_CASE("forward: a Runner stays usable after a row error mid-layer", "[model]") {
  // beta * score = inf in the second word: the run fails inside attention,
  // after the embedding and the head projections were written.
  Transformer t = probe(Mask::kFuture, HardKind::kRightmost, 1e300);
  const Engine engine(t);
  Runner runner(engine);
  RunOptions o;
  o.keep_all_states = true;
  o.beta = BetaSchedule{1e300, 0, 0};
  CHECK_THROWS_AS(runner.run("aab", o), std::runtime_error);
  o.beta = BetaSchedule{1, 0, 0};
  const RunResult a = runner.run("aab", o), b = engine.run("aab", o);
  CHECK(a.states == b.states);
}

TEST_CASE("length_order: indices stably sorted by length, short lengths and long ones", "[model][batch]") {
  std::mt19937_64 rng = derived_rng(15, "length-order");
  for (int k = 0; k < 200; ++k) {
    const std::size_t first = uniform_int(rng, 0, 5), count = uniform_int(rng, 0, 300);
    // Lengths up to 10, or up to 10^6 (beyond the counting sort's range).
    const std::uint64_t longest = k % 2 ? 10 : 1000000;
    std::vector<std::size_t> lengths(first + count);
    for (std::size_t& l : lengths) l = uniform_int(rng, 0, k % 4 == 0 ? 3 : longest);
    std::vector<std::size_t> expected(count);
    for (std::size_t i = 0; i < count; ++i) expected[i] = first + i;
    std::stable_sort(expected.begin(), expected.end(),
                     [&](std::size_t a, std::size_t b) { return lengths[a] < lengths[b]; });
    CHECK(model::length_order(first, count, [&](std::size_t i) { return lengths[i]; }) == expected);
  }
}
