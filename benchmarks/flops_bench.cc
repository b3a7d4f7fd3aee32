// The dense (blocked O(n^2)) attention path's achieved FLOP/s as a fraction
// of this machine's measured peak, one thread. The peak is what Eigen's
// double GEMM reaches on 1024 x 1024 matrices here (measured, not a data
// sheet number). The dense model has unmasked heads whose queries and keys
// all differ (no linear-time path applies); its FLOPs are counted per word:
// projections, scores (2 d_head per pair), the weighted sums (2 d_value per
// pair), exponentials counted as one operation, the output projection and
// the FFN. Prints one JSON object.
#include <fmt/format.h>

#include <Eigen/Core>
#include <chrono>
#include <random>

#include "model/forward.h"
#include "util/random.h"
#include "words/words.h"

namespace {
double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

int main() {
  using namespace softhat;
  // Peak: double GEMM.
  const int g = 1024;
  Eigen::MatrixXd a = Eigen::MatrixXd::Random(g, g), b = Eigen::MatrixXd::Random(g, g), c(g, g);
  c.noalias() = a * b;  // warm up
  int reps = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (seconds_since(t0) < 1.5) {
    c.noalias() = a * b;
    ++reps;
  }
  const double peak = 2.0 * g * g * g * reps / seconds_since(t0);

  // The dense model: 2 layers x 2 unmasked heads, d = 64, d_head = d_value = 32, FFN 128.
  const int d = 64, dh = 32, dv = 32, hidden = 128;
  model::ModelConfig cfg;
  cfg.alphabet = "ab";
  cfg.d_model = d;
  cfg.residual_labels.assign(d, "");
  cfg.position_features = {model::parse_position_feature("one"), model::parse_position_feature("j/(n+1)"),
                           model::parse_position_feature("(j/(n+1))^2"), model::parse_position_feature("1/(j+1)")};
  cfg.beta = {1, 0, 0};
  for (int l = 0; l < 2; ++l) {
    model::LayerConfig lc;
    for (int h = 0; h < 2; ++h) lc.heads.push_back({dh, dv, model::Mask::kNone, model::HardKind::kAverage, ""});
    lc.ffn_hidden = hidden;
    cfg.layers.push_back(lc);
  }
  cfg.readout = {0, 0.0};
  model::Transformer t = model::Transformer::zeros(cfg);
  std::mt19937_64 rng = derived_rng(kDefaultSeed, "flops-model");
  std::normal_distribution<double> normal(0.0, 0.3);
  model::for_each_tensor(t, [&](model::TensorView<double> v) {
    for (std::int64_t i = 0; i < v.size(); ++i) v.data[i] = normal(rng);
  });
  const model::Engine engine(t);
  model::Runner runner(engine);
  const std::int64_t n = 1024, m = n + 1;
  std::mt19937_64 wr = derived_rng(kDefaultSeed, "flops-words");
  const std::string word = words::random_word(wr, "ab", static_cast<std::size_t>(n), 0);
  runner.run(word);  // warm up
  int words = 0;
  const auto t1 = std::chrono::steady_clock::now();
  while (seconds_since(t1) < 2.0) {
    runner.run(word);
    ++words;
  }
  const double per_word = seconds_since(t1) / words;
  double flops = 0;
  for (int l = 0; l < 2; ++l) {
    for (int h = 0; h < 2; ++h) {
      flops += 2.0 * m * d * (2 * dh + dv);      // q, k, v projections
      flops += 2.0 * m * m * dh + 1.0 * m * m;   // scores, exponentials
      flops += 2.0 * m * m * dv;                 // weighted sums
      flops += 2.0 * m * dv * d;                 // o_proj
    }
    flops += 2.0 * m * d * hidden * 2;  // FFN
  }
  fmt::print("{{\"peak_gflops\": {:.2f}, \"dense_n\": {}, \"dense_seconds_per_word\": {:.4f}, \"dense_gflops\": {:.2f}, "
             "\"fraction_of_peak\": {:.3f}}}\n",
             peak / 1e9, n, per_word, flops / per_word / 1e9, flops / per_word / peak);
  return 0;
}
