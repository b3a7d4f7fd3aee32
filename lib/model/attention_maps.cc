// Attention maps for pictures: every head's full (n+1) x (n+1) weights on one
// word, recomputed plainly from the residual stream at each layer's input.
#include <cmath>
#include <vector>

#include "model/attention.h"
#include "model/forward.h"

namespace softhat::model {

namespace {

// Row i of one head's map from its raw scores S.
void map_row(const Matrix& S, std::int64_t i, const HeadConfig& hc, HardKind kind, AttentionMode mode, double beta,
             AttentionMap& m) {
  const std::int64_t n_pos = S.cols();
  ArgmaxTracker top;
  std::vector<std::int64_t> arg;  // the argmax set, in increasing key order
  for (std::int64_t j = 0; j < n_pos; ++j) {
    if (!key_visible(hc.mask, i, j)) continue;
    switch (top.add(S(i, j))) {
      case ArgmaxTracker::Step::kNewBest: arg.assign(1, j); break;
      case ArgmaxTracker::Step::kTie: arg.push_back(j); break;
      case ArgmaxTracker::Step::kBelow: break;
    }
  }
  const double best = top.best;
  if (mode == AttentionMode::kSoftmax) {
    double z = 0;
    for (std::int64_t j = 0; j < n_pos; ++j) {
      if (key_visible(hc.mask, i, j)) z += (m.weights(i, j) = std::exp(beta * (S(i, j) - best)));
    }
    m.weights.row(i) /= z;
  } else if (kind == HardKind::kAverage) {
    for (std::int64_t j : arg) m.weights(i, j) = 1.0 / static_cast<double>(arg.size());
  } else {
    m.weights(i, kind == HardKind::kRightmost ? arg.back() : arg.front()) = 1.0;
  }
  double mass = 0;
  for (std::int64_t j : arg) mass += m.weights(i, j);
  m.target_mass.push_back(mass);
  m.gap.push_back(top.gap());
  m.targets.push_back(std::move(arg));
}

}  // namespace

std::vector<AttentionMap> attention_maps(const Engine& engine, std::string_view word, const RunOptions& options) {
  RunOptions o = options;
  o.keep_layer_inputs = true;
  const RunResult run = engine.run(word, o);
  const Transformer& t = engine.model();
  std::vector<AttentionMap> maps;
  const std::int64_t n_pos = static_cast<std::int64_t>(word.size()) + 1;
  for (std::size_t l = 0; l < t.layers.size(); ++l) {
    const Matrix& X = run.layer_inputs[l];
    for (std::size_t h = 0; h < t.layers[l].heads.size(); ++h) {
      const HeadConfig& hc = t.config.layers[l].heads[h];
      const Matrix S = (X * t.layers[l].heads[h].q.transpose()) * (X * t.layers[l].heads[h].k.transpose()).transpose();
      AttentionMap m;
      m.layer = static_cast<int>(l);
      m.head = static_cast<int>(h);
      m.label = hc.label;
      m.mode = options.mode;
      m.beta = run.beta;
      m.weights = Matrix::Zero(n_pos, n_pos);
      const HardKind kind = options.force_average ? HardKind::kAverage : hc.hard;
      for (std::int64_t i = 0; i < n_pos; ++i) map_row(S, i, hc, kind, options.mode, run.beta, m);
      maps.push_back(std::move(m));
    }
  }
  return maps;
}

}  // namespace softhat::model
